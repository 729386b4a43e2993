"""Mutations of a valid compiled program and of valid labelled-question files, each one invalid by construction.

Kinds: truncation, wrong types, missing keys, bad numbers (out of range, NaN, malformed tokens), bytes
that are not UTF-8, deep nesting; for datasets also a line that is not an object, a duplicate id, an
empty question, and CSV's own faults (a cell too many, bad quoting, a list cell that is not JSON, a
missing column). Every draw comes from the caller's seeded `random.Random`, so a run is repeatable.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import random
from typing import Any

from program.loop import GatedRAG
from program.thresholds import Thresholds

BAD_UTF8 = (b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80", b"\xf8\x88\x80\x80\x80")
BAD_TOKENS = ("01", "1.2.3", "+1", ".5", "1e", "-", "0x1F", "1_000")
DEPTHS = (65, 300, 5_000, 100_000)
DEEP = "__deep__"
WRONG = {str: (5, 1.5, True, [], {}), dict: ("x", 5, [], True), list: ("x", 5, {}, True),
         int: ("3", True, 2.5, [], None), float: ("0.5", True, [], None, {}), "optional dict": ("x", 5, [])}


def program_mutants(rng: random.Random, state: dict, count: int) -> list[tuple[str, bytes]]:
    kinds = [_truncated, _wrong_type, _missing_key, _bad_number, _not_utf8, _deep]
    return [kinds[n % len(kinds)](rng, state) for n in range(count)]


def _text(state: Any, replacement: str | None = None) -> bytes:
    """The state as a saved program's JSON; `replacement` is written, raw, where the value `DEEP` stands."""
    text = json.dumps(state, indent=2)
    return (text.replace(f'"{DEEP}"', replacement) if replacement is not None else text).encode()


def _truncated(rng: random.Random, state: dict) -> tuple[str, bytes]:
    data = _text(state)
    return "truncated", data[: rng.randrange(0, len(data) - 1)]


def _typed_paths(state: dict) -> list[tuple[tuple, Any]]:
    """(path, the type it must have) for every value the loader checks."""
    paths: list[tuple[tuple, Any]] = [(("thresholds",), dict), (("gatedrag",), dict), (("gatedrag", "format"), int),
                                      (("metadata",), dict)]
    paths += [(("thresholds", name), int if isinstance(value, int) else float if isinstance(value, float) else str)
              for name, value in state["thresholds"].items()]
    for name in GatedRAG.PREDICTORS:
        paths += [((name,), dict), ((name, "signature"), dict), ((name, "signature", "instructions"), str),
                  ((name, "signature", "fields"), list), ((name, "demos"), list), ((name, "lm"), "optional dict")]
        for n, _ in enumerate(state[name]["signature"]["fields"]):
            paths += [((name, "signature", "fields", n, "prefix"), str), ((name, "signature", "fields", n, "description"), str)]
    return paths


def _wrong_type(rng: random.Random, state: dict) -> tuple[str, bytes]:
    path, kind = rng.choice(_typed_paths(state))
    return f"wrong type at {'.'.join(map(str, path))}", _text(_set(state, path, rng.choice(WRONG[kind])))


def _missing_key(rng: random.Random, state: dict) -> tuple[str, bytes]:
    required = [p for p, kind in _typed_paths(state) if kind in (str, list, dict) and p[-1] not in ("demos",)
                and p[0] not in GatedRAG.LATER_PREDICTORS and p[0] not in ("thresholds", "gatedrag", "metadata")]
    path = rng.choice(required)
    mutated = copy.deepcopy(state)
    del _parent(mutated, path)[path[-1]]
    return f"missing {'.'.join(map(str, path))}", _text(mutated)


def _bad_number(rng: random.Random, state: dict) -> tuple[str, bytes]:
    # every number of the thresholds has a range well inside ±1e9, and NaN fails any range
    name = rng.choice([n for n in Thresholds.model_fields if not isinstance(state["thresholds"][n], str)])
    value = rng.choice([-(10 ** 30), 10 ** 30, float("nan"), float("inf"), -1e9, 1e9, "token"])
    if value == "token":
        token = rng.choice(BAD_TOKENS)
        return f"malformed number {token} at thresholds.{name}", _text(_set(state, ("thresholds", name), DEEP), token)
    return f"{value} at thresholds.{name}", _text(_set(state, ("thresholds", name), value))


def _not_utf8(rng: random.Random, state: dict) -> tuple[str, bytes]:
    data = _text(state)
    at = rng.randrange(0, len(data))
    return "not UTF-8", data[:at] + rng.choice(BAD_UTF8) + data[at:]


def _deep(rng: random.Random, state: dict) -> tuple[str, bytes]:
    depth = rng.choice(DEPTHS)
    path, _ = rng.choice(_typed_paths(state))
    return f"{depth} levels deep at {'.'.join(map(str, path))}", _text(_set(state, path, DEEP), "[" * depth + "]" * depth)


def _set(state: dict, path: tuple, value: Any) -> dict:
    mutated = copy.deepcopy(state)
    _parent(mutated, path)[path[-1]] = value
    return mutated


def _parent(state: Any, path: tuple) -> Any:
    for key in path[:-1]:
        state = state[key]
    return state


def dataset_mutants(rng: random.Random, rows: list[dict], count: int) -> list[tuple[str, str, bytes]]:
    """(what, file suffix, content): two in three JSONL, one in three CSV."""
    jsonl = [_jsonl_truncated, _jsonl_wrong_type, _jsonl_missing, _jsonl_bad_number, _jsonl_not_utf8, _jsonl_deep,
             _jsonl_not_object, _jsonl_duplicate_id, _jsonl_empty_question]
    csv_kinds = [_csv_missing_column, _csv_extra_cell, _csv_not_utf8, _csv_bad_quote, _csv_bad_list, _csv_deep,
                 _csv_empty_question, _csv_bad_bool, _csv_truncated]
    made = []
    for n in range(count):
        if n % 3 == 2:
            what, data = csv_kinds[(n // 3) % len(csv_kinds)](rng, rows)
            made.append((what, ".csv", data))
        else:
            what, data = jsonl[(n - n // 3) % len(jsonl)](rng, rows)
            made.append((what, ".jsonl", data))
    return made


def _lines(rows: list[dict]) -> list[bytes]:
    return [json.dumps(row).encode() for row in rows]


def _jsonl(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n"


def _with_row(rng: random.Random, rows: list[dict], change) -> tuple[int, bytes]:
    """The file with one row, drawn at random, changed by `change(row) -> line bytes`; its line number."""
    at = rng.randrange(len(rows))
    lines = _lines(rows)
    lines[at] = change(copy.deepcopy(rows[at]))
    return at + 1, _jsonl(lines)


def _jsonl_truncated(rng, rows):
    lines = _lines(rows)
    at = rng.randrange(len(lines))
    cut = lines[at][: rng.randrange(1, len(lines[at]) - 1)]
    return f"truncated in line {at + 1}", _jsonl(lines[:at]) + cut


def _jsonl_wrong_type(rng, rows):
    field, value = rng.choice([("question", []), ("question", {"q": 1}), ("question", True), ("answer", ["x"]),
                               ("answers", {"a": 1}), ("answers", 5), ("answers", [{"a": 1}]), ("answerable", "maybe"),
                               ("answerable", [1]), ("gold_sources", 7), ("gold_sources", [{"t": 1}]), ("id", [1]),
                               ("split", {"s": 1})])
    line, data = _with_row(rng, rows, lambda row: json.dumps(row | {field: value}).encode())
    return f"wrong type of {field} in line {line}", data


def _jsonl_missing(rng, rows):
    drop = rng.choice([("question",), ("answer", "answers")])
    line, data = _with_row(rng, rows, lambda row: json.dumps({k: v for k, v in row.items() if k not in drop}).encode())
    return f"missing {'/'.join(drop)} in line {line}", data


def _jsonl_bad_number(rng, rows):
    field = rng.choice(["id", "answer", "split", "answerable"])
    token = "2" if field == "answerable" and rng.random() < 0.3 else rng.choice(BAD_TOKENS)
    line, data = _with_row(rng, rows, lambda row: json.dumps(row | {field: DEEP}).replace(f'"{DEEP}"', token).encode())
    return f"bad number {token} for {field} in line {line}", data


def _jsonl_not_utf8(rng, rows):
    def change(row):
        text = json.dumps(row).encode()
        at = rng.randrange(0, len(text))
        return text[:at] + rng.choice(BAD_UTF8) + text[at:]
    line, data = _with_row(rng, rows, change)
    return f"not UTF-8 in line {line}", data


def _jsonl_deep(rng, rows):
    depth, field = rng.choice(DEPTHS), rng.choice(["question", "answers", "gold_sources", "notes"])
    line, data = _with_row(rng, rows, lambda row: json.dumps(row | {field: DEEP}).replace(
        f'"{DEEP}"', "[" * depth + "]" * depth).encode())
    return f"{depth} levels deep in {field}, line {line}", data


def _jsonl_not_object(rng, rows):
    value = rng.choice(["[1, 2]", '"a question?"', "42", "null", "true"])
    line, data = _with_row(rng, rows, lambda row: value.encode())
    return f"{value} as line {line}", data


def _jsonl_duplicate_id(rng, rows):
    at = rng.randrange(1, len(rows))
    lines = _lines(rows)
    lines[at] = json.dumps(rows[at] | {"id": rows[rng.randrange(at)]["id"]}).encode()
    return f"duplicate id in line {at + 1}", _jsonl(lines)


def _jsonl_empty_question(rng, rows):
    line, data = _with_row(rng, rows, lambda row: json.dumps(row | {"question": rng.choice(["", "   ", "\t"])}).encode())
    return f"empty question in line {line}", data


CSV_COLUMNS = ("question", "answer", "answers", "gold_sources", "id", "split", "answerable")


def _csv_rows(rows: list[dict], columns=CSV_COLUMNS) -> list[list[str]]:
    def cell(value):
        return json.dumps(value) if isinstance(value, list) else "" if value is None else str(value).lower() \
            if isinstance(value, bool) else str(value)
    return [list(columns)] + [[cell(row.get(c)) for c in columns] for row in rows]


def _csv(table: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(table)
    return out.getvalue().encode()


def _csv_cell(rng, rows, column: str, value: str, what: str):
    table = _csv_rows(rows)
    at = rng.randrange(1, len(table))
    table[at][CSV_COLUMNS.index(column)] = value
    return f"{what} in CSV line {at + 1}", _csv(table)


def _csv_missing_column(rng, rows):
    return "CSV without a question column", _csv(_csv_rows(rows, CSV_COLUMNS[1:]))


def _csv_extra_cell(rng, rows):
    table = _csv_rows(rows)
    at = rng.randrange(1, len(table))
    table[at].append("extra")
    return f"a cell too many in CSV line {at + 1}", _csv(table)


def _csv_not_utf8(rng, rows):
    lines = _csv(_csv_rows(rows)).split(b"\n")
    at = rng.randrange(1, len(lines) - 1)
    cut = rng.randrange(0, len(lines[at]) + 1)
    lines[at] = lines[at][:cut] + rng.choice(BAD_UTF8) + lines[at][cut:]
    return f"not UTF-8 in CSV line {at + 1}", b"\n".join(lines)


def _csv_bad_quote(rng, rows):
    lines = _csv(_csv_rows(rows)).decode().split("\n")
    at = rng.randrange(1, len(lines) - 1)
    lines[at] = '"quoted"then text,' + lines[at]
    return f"bad quoting in CSV line {at + 1}", "\n".join(lines).encode()


def _csv_bad_list(rng, rows):
    return _csv_cell(rng, rows, "answers", rng.choice(['["a", ', "[1, 2", '["x"]]', "[{]"]), "an answers cell that is not JSON")


def _csv_deep(rng, rows):
    depth = rng.choice(DEPTHS[:3])
    return _csv_cell(rng, rows, rng.choice(["answers", "gold_sources"]), "[" * depth + "]" * depth, f"{depth} levels deep")


def _csv_empty_question(rng, rows):
    return _csv_cell(rng, rows, "question", rng.choice(["", "  "]), "an empty question")


def _csv_bad_bool(rng, rows):
    return _csv_cell(rng, rows, "answerable", rng.choice(["maybe", "2", "yes please"]), "answerable not a bool")


def _csv_truncated(rng, rows):
    data = _csv(_csv_rows(rows))
    lines = data.split(b"\n")
    at = rng.randrange(1, len(lines) - 1)
    question_end = len(next(csv.reader([lines[at].decode()]))[0])  # cut inside the first cell: no answer left
    return f"truncated in CSV line {at + 1}", b"\n".join(lines[:at]) + b"\n" + lines[at][: rng.randrange(1, max(2, question_end))]
