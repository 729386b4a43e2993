"""The labelled HotpotQA questions as `dspy.Example`s, by split: smoke, dev, test or train.

smoke/dev/test are ids from `splits.json` over the 500 dev questions (IRCoT format); their
question type comes from the 53 records in the official format, "" where unknown. train is
`train_100.json` (official format): its gold pages are in the offline web corpus only, so it
has no single held-out title. Gold sources are the supporting paragraphs' titles. `test` is
for final reports only; the CLI says so when used. This module reads files; it does not run or
score anything.
"""

from __future__ import annotations

import json

import dspy

from optimize.eval.example_schema import DatasetError, make_example
from program.retrieval.corpora import DEV, SPLITS, data_file, read_json
from program.settings import Settings

SPLITS_AVAILABLE = ("smoke", "dev", "test", "train")
TRAIN = "train_100.json"
DEV_OFFICIAL = "dev_distractor_first53.original.json"


def load_hotpotqa(settings: Settings, split: str) -> list[dspy.Example]:
    """The split's questions in their fixed order."""
    if split not in SPLITS_AVAILABLE:
        raise DatasetError(f"unknown split {split!r} of hotpotqa; its splits: {', '.join(SPLITS_AVAILABLE)}")
    return _train(settings) if split == "train" else _dev(settings, split)


def _dev(settings: Settings, split: str) -> list[dspy.Example]:
    splits = read_json(settings, SPLITS)
    holdout = splits["web_holdout_title_by_qid"]
    types = {r["_id"]: r["type"] for r in read_json(settings, DEV_OFFICIAL)}
    with data_file(settings, DEV).open(encoding="utf-8") as lines:
        rows = {row["question_id"]: row for row in map(json.loads, lines)}
    return [make_example(qid, rows[qid]["question_text"], rows[qid]["answers_objects"][0]["spans"],
                         [c["title"] for c in rows[qid]["contexts"] if c["is_supporting"]],
                         holdout_title=holdout.get(qid, ""), hotpot_type=types.get(qid, ""))
            for qid in splits[f"{split}_ids"]]


def _train(settings: Settings) -> list[dspy.Example]:
    return [make_example(r["_id"], r["question"], [r["answer"]], [t for t, _ in r["supporting_facts"]],
                         hotpot_type=r["type"])
            for r in read_json(settings, TRAIN)]
