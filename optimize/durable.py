"""Durable state files for eval runs and optimize jobs: atomic writes and forgiving reads.

`write_atomic(path, data)` and `replacing(path)` write to a temp file in the same folder,
fsync it, rename it over `path`, then fsync the folder, so a kill or a full disk leaves either
the old file or the new one, never a torn mix. `read_state(path, Model)` reads a state file
back, and treats one that cannot be parsed (written by an older version in place, or cut by
a crash) as missing, with one line on stderr. This module does not append logs; see
`optimize.eval.records` for the JSONL logs.
"""

from __future__ import annotations

import os
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, TypeVar

from pydantic import BaseModel, ValidationError

Model = TypeVar("Model", bound=BaseModel)


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temp path beside `path` for a writer that wants a path (a saver, a copy, a plot); on a clean
    exit the file there replaces `path`, and on an exception `path` is left as it was."""
    # subtle: a random name, not mkstemp, so the writer creates the file with the usual permissions
    # (mkstemp's are 0600); the temp keeps the suffix, since DSPy's save and matplotlib pick the format by it
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp{path.suffix}")
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, path)
        _fsync_folder(path.parent)  # the rename itself is only durable once the folder is on disk
    finally:
        tmp.unlink(missing_ok=True)


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) to `path` atomically."""
    with replacing(path) as tmp:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def read_state(path: Path, model: type[Model]) -> Model | None:
    """The state in `path`, or None when there is none or it cannot be parsed."""
    if not path.is_file():
        return None
    try:
        return model.model_validate_json(path.read_bytes())
    except ValidationError as error:
        print(f"warning: {path} is unreadable ({error.errors()[0]['msg']}); starting it afresh", file=sys.stderr)
        return None


def _fsync_file(path: Path) -> None:
    with path.open("rb+") as handle:
        os.fsync(handle.fileno())


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
