"""A user's labelled question file as examples by split: JSONL, CSV, Parquet, or a folder saved with `save_to_disk`.

JSONL and CSV are read here, line by line, so an error names its line (a blank JSONL line is
skipped; a CSV line is where its record ends, the header being line 1). CSV cells stay text (an
answer "1.2" stays "1.2", "None" is not missing), and list columns hold JSON lists (`["a", "b"]`).
Parquet, `.json` and saved folders go through Hugging Face `datasets` with a throwaway cache, so
reading writes nothing, and their errors name the row (1 = the first record). A saved
`DatasetDict` gives its split names to rows that have no `split` of their own.
Every row is checked first (`optimize.eval.example_schema`): one bad row refuses the whole file in
one line naming the file and the first bad lines or rows, so nothing is half-run. Rows without an
`id` get `row<N>`; ids must be unique, because runs resume by id.
This module reads; it does not choose splits for the optimizer.
"""

from __future__ import annotations

import contextlib
import csv
import io
import tempfile
from pathlib import Path

import dspy

from optimize.eval.example_schema import DatasetError, DatasetFileError, row_example
from program.base.json_file import parse_json

FORMATS = {".jsonl": "jsonl", ".json": "json", ".csv": "csv", ".parquet": "parquet"}
SHOWN_ERRORS = 5  # bad lines a refusal names; the rest are counted
NO_SPLIT = ""  # the split of rows that name none
Row = tuple[str, dict]  # where it is ("line 7", "row 7") and its columns
Problem = tuple[str, str]  # where a bad row is, and why


def read_examples(path: Path) -> dict[str, list[dspy.Example]]:
    """split -> its examples in file order; rows naming no split are under `NO_SPLIT`."""
    by_split: dict[str, list[dspy.Example]] = {}
    rows, errors = read_rows(path)
    seen = set()
    for n, (where, row) in enumerate(rows, start=1):
        try:
            split, example = row_example(row, f"row{n}")
        except ValueError as error:
            errors.append((where, str(error)))
            continue
        if example.qid in seen:
            errors.append((where, f"duplicate id {example.qid!r}"))
        seen.add(example.qid)
        by_split.setdefault((split or NO_SPLIT).strip(), []).append(example)
    if errors:
        raise DatasetFileError(bad_rows(path, errors))
    if not by_split:
        raise DatasetFileError(f"{path}: no rows")
    return by_split


def bad_rows(path: Path, errors: list[Problem]) -> str:
    """One line naming the first bad row and why, then up to SHOWN_ERRORS bad rows in all, in file order."""
    errors = sorted(errors, key=lambda e: _position(e[0]))
    (where, reason), rest = errors[0], errors[1:]
    shown = SHOWN_ERRORS - 1
    more = f"; {len(rest)} more bad row(s) ({', '.join(w for w, _ in rest[:shown])}" \
           f"{', ...' if len(rest) > shown else ''})" if rest else ""
    return f"{path} {where}: {reason}{more}; nothing was run"


def _position(where: str) -> int:
    return int(where.rsplit(" ", 1)[-1])


def read_rows(path: Path) -> tuple[list[Row], list[Problem]]:
    """Every readable row of the file or saved folder with where it is, and every line that could not
    be read as a row (a JSONL line that is not a JSON object, a CSV line with a cell too many). A
    file that cannot be parsed at all is a DatasetFileError naming the file and the line or row."""
    if path.is_dir():
        return _through_datasets(path), []
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise DatasetError(f"{path}: unknown format {path.suffix!r}; give .jsonl, .csv, .parquet or a saved dataset folder")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise DatasetFileError(f"{path}: cannot be read: {error.strerror or error}") from None
    if kind == "jsonl":
        return _jsonl(data, path)
    return _csv(data, path) if kind == "csv" else (_through_datasets(path), [])


def _jsonl(data: bytes, path: Path) -> tuple[list[Row], list[Problem]]:
    rows, problems = [], []
    for n, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            row = parse_json(line, str(path), DatasetFileError, first_line=n)
        except DatasetFileError as error:
            problems.append((f"line {n}", str(error).split(": ", 1)[1]))  # the reason, after "<file> line n"
            continue
        if not isinstance(row, dict):
            problems.append((f"line {n}", "not a JSON object"))
            continue
        rows.append((f"line {n}", row))
    return rows, problems


def _csv(data: bytes, path: Path) -> tuple[list[Row], list[Problem]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as bad:
        line = 1 + data[:bad.start].count(b"\n")
        raise DatasetFileError(f"{path} line {line}: not UTF-8 (byte 0x{data[bad.start]:02x})") from None
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    rows, problems = [], []
    try:
        for row in reader:
            if None in row:  # subtle: DictReader files the cells past the header under the key None
                problems.append((f"line {reader.line_num}", f"{len(reader.fieldnames) + len(row[None])} cells; "
                                 f"the header has {len(reader.fieldnames)}"))
                continue
            rows.append((f"line {reader.line_num}", row))
    except csv.Error as error:  # subtle: DictReader's own line_num is the last good record's
        raise DatasetFileError(f"{path} line {reader.reader.line_num}: not CSV: {error}") from None
    return rows, problems


def _through_datasets(path: Path) -> list[Row]:
    import datasets  # deferred: it takes seconds to import, and only Parquet files and saved folders need it

    with _quiet(datasets), tempfile.TemporaryDirectory() as cache:
        try:
            rows = _saved(datasets, path) if path.is_dir() else _file(datasets, path, cache)
        except DatasetError:
            raise
        except Exception as error:  # noqa: BLE001 - datasets, pyarrow and pandas each raise their own kinds
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise DatasetFileError(f"{path}: cannot be read: {reason[:200]}") from None
    return [(f"row {n}", row) for n, row in enumerate(rows, start=1)]


def _file(datasets, path: Path, cache: str) -> list[dict]:
    rows = datasets.load_dataset(FORMATS[path.suffix.lower()], data_files=str(path), split="train", cache_dir=cache,
                        keep_in_memory=True)
    return rows.to_list()


def _saved(datasets, path: Path) -> list[dict]:
    try:
        saved = datasets.load_from_disk(str(path), keep_in_memory=True)
    except FileNotFoundError:
        raise DatasetError(f"{path}: a folder, but not a dataset saved with save_to_disk") from None
    if isinstance(saved, datasets.DatasetDict):
        return [row | {"split": row.get("split") or name} for name, part in saved.items() for row in part.to_list()]
    return saved.to_list()


@contextlib.contextmanager
def _quiet(datasets):
    """No "Generating train split" bars on stderr while a small file is read; restored after."""
    was_off = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        if not was_off:
            datasets.enable_progress_bars()
