"""A user's labelled question file as examples by split: JSONL, CSV, Parquet, or a folder saved with `save_to_disk`.

Every format goes through Hugging Face `datasets` (`load_dataset("json"|"csv"|"parquet")`,
`load_from_disk`) with a throwaway cache, so reading a file writes nothing. CSV cells are read
as text (an answer "1.2" stays "1.2"), and list columns hold JSON lists there (`["a", "b"]`).
A saved `DatasetDict` gives its split names to rows that have no `split` of their own.
Every row is checked first (`optimize.eval.example_schema`): one bad row refuses the whole
file, naming the file and the first bad rows (1 = the first record), so nothing is half-run.
Rows without an `id` get `row<N>`; ids must be unique, because runs resume by id.
This module reads; it does not choose splits for the optimizer.
"""

from __future__ import annotations

import contextlib
import csv
import tempfile
from pathlib import Path

import dspy

from optimize.eval.example_schema import DatasetError, row_example

FORMATS = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}
SHOWN_ERRORS = 3
NO_SPLIT = ""  # the split of rows that name none


def read_examples(path: Path) -> dict[str, list[dspy.Example]]:
    """split -> its examples in file order; rows naming no split are under `NO_SPLIT`."""
    by_split: dict[str, list[dspy.Example]] = {}
    errors, seen = [], set()
    for n, row in enumerate(read_rows(path), start=1):
        try:
            split, example = row_example(row, f"row{n}")
        except ValueError as error:
            errors.append(f"row {n}: {error}")
            continue
        if example.qid in seen:
            errors.append(f"row {n}: duplicate id {example.qid!r}")
        seen.add(example.qid)
        by_split.setdefault((split or NO_SPLIT).strip(), []).append(example)
    if errors:
        raise DatasetError(f"{path}: {len(errors)} bad row(s), nothing was run; " + "; ".join(errors[:SHOWN_ERRORS]))
    if not by_split:
        raise DatasetError(f"{path}: no rows")
    return by_split


def read_rows(path: Path) -> list[dict]:
    with _quiet(), tempfile.TemporaryDirectory() as cache:
        try:
            return _saved(path) if path.is_dir() else _file(path, cache)
        except DatasetError:
            raise
        except Exception as error:  # noqa: BLE001 - datasets, pyarrow and pandas each raise their own kinds
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise DatasetError(f"{path}: cannot be read: {reason[:200]}") from None


def _file(path: Path, cache: str) -> list[dict]:
    from datasets import Features, Value, load_dataset

    builder = FORMATS.get(path.suffix.lower())
    if builder is None:
        raise DatasetError(f"{path}: unknown format {path.suffix!r}; give .jsonl, .csv, .parquet or a saved dataset folder")
    options = {}
    if builder == "csv":
        # subtle: pandas would guess types (an answer "1.2" read as a float) and read "None" as missing
        with path.open(encoding="utf-8-sig", newline="") as f:
            header = next(csv.reader(f), [])
        options = {"features": Features({name: Value("string") for name in header}), "na_filter": False,
                   "encoding": "utf-8-sig"}
    rows = load_dataset(builder, data_files=str(path), split="train", cache_dir=cache, keep_in_memory=True, **options)
    return rows.to_list()


def _saved(path: Path) -> list[dict]:
    from datasets import DatasetDict, load_from_disk

    try:
        saved = load_from_disk(str(path), keep_in_memory=True)
    except FileNotFoundError:
        raise DatasetError(f"{path}: a folder, but not a dataset saved with save_to_disk") from None
    if isinstance(saved, DatasetDict):
        return [row | {"split": row.get("split") or name} for name, part in saved.items() for row in part.to_list()]
    return saved.to_list()


@contextlib.contextmanager
def _quiet():
    """No "Generating train split" bars on stderr while a small file is read; restored after."""
    from datasets.utils.tqdm import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

    was_off = are_progress_bars_disabled()
    disable_progress_bars()
    try:
        yield
    finally:
        if not was_off:
            enable_progress_bars()
