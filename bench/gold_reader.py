"""The reader's ceiling: each system run with every question's gold passages placed first in
every search, so that retrieval cannot be what fails. Where the answers stay wrong with the gold
in view, the LM is the limit, not the index or the gate's hops.

    python bench/gold_reader.py --dataset ../shared/data/musique/questions.jsonl --collection musique \
        --split dev --limit 40 [--systems gated,single_pass] [--out FILE]

The gold passages are found as labelled demos find theirs (`optimize.job.labelled_demos.gold_passages`:
the index's hits for the question, then a search by each gold source's name); each is shown with its
own similarity to the query asked, so the gate's signals read what they would. Web search is off,
DSPy's response cache is off, and the LM is the settings' profile. Prints one line a question and a
summary per system: F1, right answers (F1 at least 0.5), refusals, LM calls and median seconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

import program  # noqa: F401
from metrics.answer_quality import abstained, token_f1
from metrics.calibration import RIGHT_F1
from optimize.eval.example_schema import DatasetError
from optimize.eval.examples import load_examples, resolve_dataset
from optimize.eval.systems import SYSTEMS, build_systems
from optimize.job.labelled_demos import SEARCH_K, gold_passages
from program.base.settings import Settings
from program.lm.lm_profiles import configure_lm
from program.retrieval.passage import Passage
from program.retrieval.store import StoreError


class GoldFirst:
    """A search that returns the gold passages, each scored against the query, before the real hits."""

    def __init__(self, search, gold: list[Passage]):
        self.search, self.gold = search, gold
        self.embed = search.embed  # the acceptance score reads the index's embedder through the search

    def __call__(self, query: str, k: int) -> list[Passage]:
        ids = {p.chunk_id for p in self.gold}
        return [*self._scored(query), *(p for p in self.search(query, k) if p.chunk_id not in ids)][:max(k, len(self.gold))]

    def _scored(self, query: str) -> list[Passage]:
        vectors = np.array(self.search.embed([query] + [f"{p.title}. {p.text}" for p in self.gold]))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return [p.model_copy(update={"similarity": float(v @ vectors[0])}) for p, v in zip(self.gold, vectors[1:])]

    def __getattr__(self, name):  # neighbours, excluding, ...: the real search's
        return getattr(self.search, name)


def main() -> None:
    args = _parser().parse_args()
    settings = Settings(collection=args.collection, web_backend="none")
    if unknown := set(args.systems.split(",")) - set(SYSTEMS):
        sys.exit(f"gold_reader: no system {', '.join(sorted(unknown))}: choose from {', '.join(SYSTEMS)}")
    try:
        examples = load_examples(settings, resolve_dataset(args.dataset), args.split, args.limit)
        systems = build_systems(settings, args.systems.split(","), None)
    except (DatasetError, StoreError) as error:  # bad input: one line, nothing run
        sys.exit(f"gold_reader: {error}")
    if not examples:
        sys.exit(f"gold_reader: no question in split {args.split!r} of {args.dataset}")
    records = []
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with configure_lm(settings, cache=False), open(args.out, "w") as out:
        finder = next(iter(systems.values()))  # every system searches the same index
        for example in examples:
            gold = gold_passages(finder, example, finder.search(example.question, SEARCH_K))
            for name, system in systems.items():
                records.append(_run(name, system, example, gold))
                out.write(json.dumps(records[-1]) + "\n")
                out.flush()  # an interrupted run keeps the questions it finished
                print(_line(records[-1]), flush=True)
    for name in systems:
        _summary(name, [r for r in records if r["system"] == name])


def _run(name: str, system, example, gold: list[Passage]) -> dict:
    real = system.search
    system.search = GoldFirst(real, gold)
    try:
        pred = system(question=example.question)
    finally:
        system.search = real
    result = pred.result
    return {"question": example.question, "system": name, "gold_found": len(gold),
            "f1": float(token_f1(example, pred)), "abstained": abstained(pred), "short_answer": result.short_answer,
            "answers": list(example.answers), "lm_calls": result.trace.resources.lm.calls,
            "seconds": result.timing.total_s}


def _line(r: dict) -> str:
    mark = "A" if r["abstained"] else " "
    return f"{r['system']:<12} {r['f1']:.2f} {mark} {r['seconds']:5.1f}s gold {r['gold_found']} | {r['short_answer'][:40]!r} | {r['answers'][0][:30]}"


def _summary(name: str, rows: list[dict]) -> None:
    n = len(rows)
    print(f"{name}: {n} questions, F1 {sum(r['f1'] for r in rows) / n:.3f}, right {sum(r['f1'] >= RIGHT_F1 for r in rows)}, "
          f"abstained {sum(r['abstained'] for r in rows)}, LM calls {statistics.mean(r['lm_calls'] for r in rows):.2f}, "
          f"p50 {statistics.median(r['seconds'] for r in rows):.1f} s, gold found for {sum(r['gold_found'] > 0 for r in rows)}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--collection", required=True)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--systems", default="gated,single_pass")
    parser.add_argument("--out", default=".gatedrag/gold_reader.jsonl")
    return parser


if __name__ == "__main__":
    main()
