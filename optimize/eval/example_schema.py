"""One labelled question, as every dataset gives it: the row schema users write, and the `dspy.Example` built from it.

A row has `question` (required), `answer` (a string) or `answers` (a list of strings, any of
which counts), optional `gold_sources` (titles, paths or URLs of the documents holding the
evidence; one string is taken as a list of one), optional `id`, optional `split`, optional
`answerable`. A question is unanswerable (the documents do not cover it; abstaining is the right
answer) when `answerable` is false or `answers` is an empty list. Other columns are ignored.
`make_example` is the one constructor of the examples the eval and the optimizers read:
question, answer (the first gold answer, for reports), answers, answerable, gold_sources, qid,
holdout_title, hotpot_type. This module checks and builds; it reads no files.
"""

from __future__ import annotations

import json

import dspy
from pydantic import (
    BaseModel,
    ConfigDict,
    ValidationError,
    field_validator,
    model_validator,
)

from program.base.errors import BadFileError, first_problem
from program.base.json_file import MAX_DEPTH, too_deep


class DatasetError(ValueError):
    """A dataset or split that cannot be used as labelled questions; the message is one line."""


class DatasetFileError(DatasetError, BadFileError):
    """A dataset file whose content cannot be used: the message names the file and the line or row."""


class LabelledRow(BaseModel):
    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)

    question: str
    answer: str | None = None
    answers: list[str] | None = None
    gold_sources: list[str] = []
    id: str | None = None
    split: str | None = None
    answerable: bool | None = None

    @field_validator("answers", "answerable", "id", "split", mode="before")
    @classmethod
    def _blank_is_missing(cls, value):
        return None if isinstance(value, str) and not value.strip() else value  # subtle: an empty CSV cell

    @field_validator("answers", "gold_sources", mode="before")
    @classmethod
    def _list(cls, value, info):
        if isinstance(value, str) and value.strip().startswith("["):
            return _json_list(value)  # subtle: CSV cells hold lists as JSON text
        if info.field_name == "gold_sources" and isinstance(value, str):
            return [value] if value.strip() else []
        return [] if value is None and info.field_name == "gold_sources" else value

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("question is empty")
        return value.strip()

    @model_validator(mode="after")
    def _has_answer(self) -> LabelledRow:
        if self.answers is None and not (self.answer or "").strip() and self.answerable is not False:
            raise ValueError("no answer: give `answer` or `answers` (an empty `answers` list marks it unanswerable)")
        if self.answerable is True and not self.gold_answers():
            raise ValueError("answerable is true but no answer is given")
        return self

    def gold_answers(self) -> list[str]:
        answers = self.answers if self.answers is not None else [self.answer or ""]
        return [a.strip() for a in answers if a.strip()]

    def is_answerable(self) -> bool:
        return self.answerable is not False and bool(self.gold_answers())


def row_example(row: dict, qid: str) -> tuple[str | None, dspy.Example]:
    """The row's split (None when it has none) and its example; raises ValueError with the reason."""
    try:
        parsed = LabelledRow.model_validate(row)
    except ValidationError as error:
        first = error.errors()[0]
        if first["type"] == "missing" and len(first["loc"]) == 1:
            raise ValueError(f"missing key {first['loc'][0]!r}") from None
        if first.get("input", "") is None:  # subtle: a CSV row with fewer cells than the header
            raise ValueError(f"{first['loc'][0]}: empty") from None
        raise ValueError(first_problem(error)) from None
    return parsed.split, make_example(parsed.id or qid, parsed.question, parsed.gold_answers(), parsed.gold_sources,
                                      answerable=parsed.is_answerable())


def make_example(qid: str, question: str, answers: list[str], gold_sources: list[str], answerable: bool = True,
                 holdout_title: str = "", hotpot_type: str = "") -> dspy.Example:
    return dspy.Example(question=question, answer=answers[0] if answerable and answers else "",
                        answers=list(answers), answerable=answerable,
                        gold_sources=list(dict.fromkeys(gold_sources)), holdout_title=holdout_title, qid=qid,
                        hotpot_type=hotpot_type).with_inputs("question")


def _json_list(text: str):
    if too_deep(text) is not None:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise ValueError(f"not a JSON list: {text[:60]!r}") from None
