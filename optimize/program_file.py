"""A saved program read for its state and written back: what `calibrate` and `fit-acceptance` attach models to.

No search is built and no LM is called: only the program's saved state is read and written.
"""

from __future__ import annotations

from pathlib import Path

from optimize.durable import replacing
from program.assembly.loading import ProgramLoadError, read_state
from program.base.command_line import UsageError
from program.loop import GatedRAG


def load_program(path: Path | None) -> GatedRAG:
    """The program at `path`, or the uncompiled one; a file this version cannot load is a UsageError."""
    program = GatedRAG(search=lambda query, k: [])
    if path is None:
        return program
    try:
        return program.load_state(read_state(path))
    except ProgramLoadError as error:
        raise UsageError(str(error)) from None


def save_program(program: GatedRAG, out: Path) -> None:
    """Written whole or not at all: a reader never sees half a program."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with replacing(out) as tmp:
        program.save(tmp)
