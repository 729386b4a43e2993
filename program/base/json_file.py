"""Parse JSON a user gave gatedrag (a compiled program, one line of a JSONL dataset), failing in one line
that names the file and the line.

Bytes that are not UTF-8, malformed JSON and values nested deeper than `MAX_DEPTH` are each an error
of the caller's class (`program.assembly.loading.ProgramLoadError`, `optimize.eval.example_schema.DatasetFileError`),
never a `UnicodeDecodeError` or a `RecursionError` with no file in it. This module checks syntax only;
what the JSON must hold is the caller's business.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

MAX_DEPTH = 64  # a saved program nests about 6 deep; anything near Python's recursion limit is not data
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}\n]")


def parse_json(data: bytes, where: str, error: type[Exception], first_line: int = 1) -> Any:
    """The JSON value in `data`; `where` names the file in errors, `first_line` is the line `data` starts on."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as bad:
        line = first_line + data[:bad.start].count(b"\n")
        raise error(f"{where} line {line}: not UTF-8 (byte 0x{data[bad.start]:02x})") from None
    deep = too_deep(text)
    if deep is not None:
        raise error(f"{where} line {first_line + deep - 1}: nested deeper than {MAX_DEPTH} levels") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as bad:
        raise error(f"{where} line {first_line + bad.lineno - 1}: not JSON: {bad.msg} (column {bad.colno})") from None


def read_json(path: Path, error: type[Exception]) -> Any:
    try:
        data = path.read_bytes()
    except OSError as bad:
        raise error(f"{path}: cannot be read: {bad.strerror or bad}") from None
    return parse_json(data, str(path), error)


def too_deep(text: str) -> int | None:
    """The line (from 1) where brackets first nest deeper than MAX_DEPTH, or None.

    subtle: `json.loads` recurses once per level and raises RecursionError near 1,000, so the depth is
    counted first, with strings blanked out so a "[" inside one does not count."""
    depth, line = 0, 1
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        char = match.group()
        if char == "\n":
            line += 1
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return line
        else:
            depth -= 1
    return None
