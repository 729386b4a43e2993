"""The labelled HotpotQA questions as `dspy.Example`s, by split: smoke, dev, test or train.

smoke/dev/test are ids from `splits.json` over the 500 dev questions (IRCoT format); their
question type comes from the 53 records in the official format, "" where unknown. train is
`train_100.json` (official format): its gold pages are in the offline web corpus only, so it
has no single held-out title. `test` is for final reports only; the CLI says so when used.
This module reads files; it does not run or score anything.
"""

from __future__ import annotations

import json
from typing import Literal

import dspy

from program.retrieval.corpora import DEV, SPLITS, data_file, read_json
from program.settings import Settings

Split = Literal["smoke", "dev", "test", "train"]
SPLITS_AVAILABLE: tuple[Split, ...] = ("smoke", "dev", "test", "train")
TRAIN = "train_100.json"
DEV_OFFICIAL = "dev_distractor_first53.original.json"


def load_split(settings: Settings, split: Split, limit: int | None = None) -> list[dspy.Example]:
    """The split's questions in their fixed order; `limit` keeps the first N."""
    if split not in SPLITS_AVAILABLE:
        raise ValueError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS_AVAILABLE)}")
    examples = _train(settings) if split == "train" else _dev(settings, split)
    return examples[:limit] if limit is not None else examples


def _dev(settings: Settings, split: Split) -> list[dspy.Example]:
    splits = read_json(settings, SPLITS)
    holdout = splits["web_holdout_title_by_qid"]
    types = {r["_id"]: r["type"] for r in read_json(settings, DEV_OFFICIAL)}
    with data_file(settings, DEV).open(encoding="utf-8") as lines:
        rows = {row["question_id"]: row for row in map(json.loads, lines)}
    return [_example(qid, rows[qid]["question_text"], rows[qid]["answers_objects"][0]["spans"][0],
                     [c["title"] for c in rows[qid]["contexts"] if c["is_supporting"]],
                     holdout.get(qid, ""), types.get(qid, ""))
            for qid in splits[f"{split}_ids"]]


def _train(settings: Settings) -> list[dspy.Example]:
    return [_example(r["_id"], r["question"], r["answer"], [t for t, _ in r["supporting_facts"]], "", r["type"])
            for r in read_json(settings, TRAIN)]


def _example(qid: str, question: str, answer: str, gold_titles: list[str], holdout_title: str,
             hotpot_type: str) -> dspy.Example:
    return dspy.Example(question=question, answer=answer, gold_titles=list(dict.fromkeys(gold_titles)),
                        holdout_title=holdout_title, qid=qid, hotpot_type=hotpot_type).with_inputs("question")
