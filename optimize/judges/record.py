"""`python -m optimize record-states`: the retrieval-only rollouts of a labelled dataset, as a features table.

Every question of every split but test (test is for final reports) is rolled out
(`optimize.judges.rollout`); each state is one JSON line: the corpus name, the split, and the
state (question id, round, the action that made it, the `sufficient` label and the features).
The table goes to `<data dir>/states/<name>.jsonl` (generated, not committed), written whole
at the end. HotpotQA's train questions are searched in its web corpus's collection: their gold
pages are there only (`program.retrieval.corpora`), and it is an index like any other.
This module runs no LM.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import dspy
from tqdm import tqdm

from optimize.durable import write_atomic
from optimize.eval.examples import NAMED, TEST, load_examples, resolve_dataset
from optimize.eval.user_file import read_examples
from optimize.judges.rollout import roll_out
from program.base.command_line import settings_from_args
from program.base.settings import Settings
from program.loop import GatedRAG
from program.retrieval.retriever import HybridSearch
from program.thresholds import Thresholds

# subtle: HotpotQA's smoke questions are among its dev ones: recorded once, as smoke, so a report can leave them out
SPLITS = {"hotpotqa": ("smoke", "dev", "train"), "aws_docs": ("dev",)}


def record_command(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, data_dir="data_dir", collection="collection")
    name = args.name or settings.collection
    out = settings.data_dir / "states" / f"{name}.jsonl"
    rows = record_states(settings, args.dataset, name, Thresholds().max_iterations)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, "".join(json.dumps(r) + "\n" for r in rows))
    states, right = len(rows), sum(r["sufficient"] for r in rows)
    print(f"{states} states of {len({r['qid'] for r in rows})} questions, {right} sufficient: {out}")
    return 0


def record_states(settings: Settings, dataset: str, name: str, rounds: int) -> list[dict]:
    """Every state of every question of the dataset's splits (test aside), as table rows."""
    rows = []
    for split, examples in labelled_splits(settings, dataset).items():
        program = GatedRAG(HybridSearch.from_settings(settings, "index", collection=_collection(settings, dataset, split)))
        for example in tqdm(examples, desc=f"{name} {split}", unit="question"):
            rows += [{"corpus": name, "split": split, **s.model_dump()} for s in roll_out(program, example, rounds)]
    return rows


def labelled_splits(settings: Settings, dataset: str) -> dict[str, list[dspy.Example]]:
    ref = resolve_dataset(dataset)
    if ref.name in NAMED:
        by_split = {split: load_examples(settings, ref, split) for split in SPLITS[ref.name]}
        smoke = {e.qid for e in by_split.get("smoke", [])}
        return {split: [e for e in examples if split == "smoke" or e.qid not in smoke] for split, examples in by_split.items()}
    return {split: examples for split, examples in read_examples(Path(ref.name)).items() if split != TEST}


def _collection(settings: Settings, dataset: str, split: str) -> str:
    return settings.resolved_web_collection if dataset == "hotpotqa" and split == "train" else settings.collection
