"""The AWS documentation QA set (`aws_docs/QA_true.csv`, 100 questions) as examples, split dev/test by a fixed seed.

Columns: `Question`, `Answer_True` (a text answer), `Yes_No_True` (Yes, No or None) and
`Document_True` (the gold page, `<guide>/<page>.md`, sometimes with stray spaces). Mapping:
- answers: for a Yes/No question, the label ("yes"/"no") first, then the text answer. The
  program's short answer to a yes/no question is "yes" or "no", so EM/F1 compare it with the
  label; HotpotQA's F1 scores a wrong yes/no 0 against both, while a free-text short answer can
  still earn partial credit from the text answer. Other questions: the text answer.
- `None` means "not a yes/no question", not "unanswerable": the upstream README says every
  question has a factual answer in the documents. So all 100 are answerable.
- gold_sources: the cleaned page as `<guide>/doc_source/<page>.md`, the layout of the
  documents archive, so it path-suffix-matches `documents/<guide>/doc_source/<page>.md`.
- holdout_title: the gold page, when it is one held out to the offline web corpus.
- split: stratified by label, each label's rows shuffled with seed `SEED`, the first half to
  dev (Yes 11, No 5, None 34: 50) and the rest to test (50). Computed, never stored. test is for
  final reports only.
This module reads the CSV; it does not run or score anything.
"""

from __future__ import annotations

import random
from pathlib import Path

import dspy

from optimize.eval.example_schema import DatasetError, DatasetFileError, make_example
from optimize.eval.user_file import bad_rows, read_rows
from program.retrieval.aws_corpus import gold_page

SPLITS_AVAILABLE = ("dev", "test")
SEED = 20240501
COLUMNS = ("Question", "Answer_True", "Yes_No_True", "Document_True")


def load_aws_docs(path: Path, split: str, web_only: set[str] = frozenset()) -> list[dspy.Example]:
    """The split's questions, in file order; `web_only`: the gold pages held out of the local
    collection (`program.retrieval.aws_corpus.held_out_gold`), which make a question web-holdout."""
    if split not in SPLITS_AVAILABLE:
        raise DatasetError(f"unknown split {split!r} of aws_docs; its splits: {', '.join(SPLITS_AVAILABLE)}")
    located, problems = read_rows(path)
    if problems:
        raise DatasetFileError(bad_rows(path, problems))
    rows = [row for _, row in located]
    missing = [c for c in COLUMNS if rows and c not in rows[0]]
    if missing or not rows:
        raise DatasetFileError(f"{path}: not the AWS docs QA file (missing columns: {', '.join(missing) or 'all rows'})")
    short = next((where for where, row in located if any(row[c] is None for c in COLUMNS)), None)
    if short is not None:
        raise DatasetFileError(f"{path} {short}: fewer cells than the header")
    dev = dev_rows([r["Yes_No_True"].strip() for r in rows])
    return [aws_example(n, row, web_only) for n, row in enumerate(rows, start=1) if (n in dev) == (split == "dev")]


def dev_rows(labels: list[str]) -> set[int]:
    """Row numbers (1-based) of the dev half, stratified by label; the same labels always give the same rows."""
    rng, dev = random.Random(SEED), set()
    for label in sorted(set(labels)):
        rows = [n for n, x in enumerate(labels, start=1) if x == label]
        rng.shuffle(rows)
        dev.update(rows[: len(rows) // 2])
    return dev


def aws_example(n: int, row: dict, web_only: set[str] = frozenset()) -> dspy.Example:
    label, text = row["Yes_No_True"].strip().lower(), row["Answer_True"].strip()
    answers = [label, text] if label in ("yes", "no") else [text]
    page = gold_page(row["Document_True"])
    return make_example(f"aws-{n:03d}", row["Question"].strip(), answers, [page],
                        holdout_title=page if page in web_only else "")
