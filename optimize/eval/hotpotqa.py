"""The labelled HotpotQA questions as `dspy.Example`s, by split: smoke, dev, test or train.

smoke/dev/test are ids from `splits.json` over the 500 dev questions (IRCoT format); their
question type comes from the 53 records in the official format, "" where unknown. train is
`train_100.json` (official format): its gold pages are in the offline web corpus only, so it
has no single held-out title. Gold sources are the supporting paragraphs' titles. Each record is
checked for the fields read here, so a damaged file fails in one line naming it and the line or
record, never with a KeyError. `test` is for final reports only; the CLI says so when used.
This module reads files; it does not run or score anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dspy
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from optimize.eval.example_schema import DatasetError, DatasetFileError, make_example
from program.base.errors import first_problem
from program.base.json_file import parse_json, read_json
from program.base.settings import Settings
from program.retrieval.corpora import DEV, SPLITS, data_file

SPLITS_AVAILABLE = ("smoke", "dev", "test", "train")
TRAIN = "train_100.json"
DEV_OFFICIAL = "dev_distractor_first53.original.json"


class _Answer(BaseModel):
    spans: list[str]


class _Context(BaseModel):
    title: str
    is_supporting: bool


class _DevRow(BaseModel):  # IRCoT's format: the fields read here
    question_id: str
    question_text: str
    answers_objects: list[_Answer]
    contexts: list[_Context]


class _TrainRow(BaseModel):  # the official format
    id: str = Field(alias="_id")
    question: str
    answer: str
    supporting_facts: list[tuple[str, int]]
    type: str = ""


class _Splits(BaseModel):
    web_holdout_title_by_qid: dict[str, str]
    smoke_ids: list[str]
    dev_ids: list[str]
    test_ids: list[str]


def load_hotpotqa(settings: Settings, split: str) -> list[dspy.Example]:
    """The split's questions in their fixed order."""
    if split not in SPLITS_AVAILABLE:
        raise DatasetError(f"unknown split {split!r} of hotpotqa; its splits: {', '.join(SPLITS_AVAILABLE)}")
    return _train(settings) if split == "train" else _dev(settings, split)


def smoke_qids(settings: Settings) -> set[str]:
    """The smoke questions' ids: the quick job's report split, which no shipped model is fitted on."""
    return {example.qid for example in load_hotpotqa(settings, "smoke")}


def outside_smoke(records: list, dataset: str, settings: Settings) -> list:
    """The eval records of a run on `dataset`; on HotpotQA, without the smoke questions."""
    if dataset != "hotpotqa":
        return records
    smoke = smoke_qids(settings)
    return [r for r in records if r.qid not in smoke]


def _dev(settings: Settings, split: str) -> list[dspy.Example]:
    splits = _checked(_Splits, read_json(data_file(settings, SPLITS), DatasetFileError), data_file(settings, SPLITS))
    types = {r.id: r.type for r in _records(settings, DEV_OFFICIAL)}
    rows = {row.question_id: row for row in _dev_rows(data_file(settings, DEV))}
    ids = getattr(splits, f"{split}_ids")
    unknown = next((qid for qid in ids if qid not in rows), None)
    if unknown is not None:
        raise DatasetFileError(f"{data_file(settings, SPLITS)}: {split}_ids: {unknown!r} is not a question of {DEV}")
    return [_dev_example(rows[qid], splits.web_holdout_title_by_qid.get(qid, ""), types.get(qid, "")) for qid in ids]


def _dev_example(row: _DevRow, holdout: str, hotpot_type: str) -> dspy.Example:
    spans = row.answers_objects[0].spans if row.answers_objects else []
    return make_example(row.question_id, row.question_text, spans, [c.title for c in row.contexts if c.is_supporting],
                        holdout_title=holdout, hotpot_type=hotpot_type)


def _train(settings: Settings) -> list[dspy.Example]:
    return [make_example(r.id, r.question, [r.answer], [t for t, _ in r.supporting_facts], hotpot_type=r.type)
            for r in _records(settings, TRAIN)]


def _dev_rows(path: Path) -> list[_DevRow]:
    rows = []
    for n, line in enumerate(path.read_bytes().split(b"\n"), start=1):
        if line.strip():
            rows.append(_checked(_DevRow, parse_json(line, str(path), DatasetFileError, first_line=n), path, f" line {n}"))
    return rows


def _records(settings: Settings, name: str) -> list[_TrainRow]:
    """The official-format records of a JSON list file, each checked."""
    path = data_file(settings, name)
    records = _checked(TypeAdapter(list[dict[str, Any]]), read_json(path, DatasetFileError), path)
    return [_checked(_TrainRow, record, path, f" record {n}") for n, record in enumerate(records, start=1)]


def _checked(model, value: Any, path: Path, where: str = ""):
    try:
        return model.validate_python(value) if isinstance(model, TypeAdapter) else model.model_validate(value)
    except ValidationError as error:
        raise DatasetFileError(f"{path}{where}: {first_problem(error)}") from None
