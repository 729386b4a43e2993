"""One example's outcome for one system (`Record`), and the JSONL file that holds them (`RecordLog`).

Each record is appended and flushed the moment its example finishes, so an interrupted run
loses nothing; reading the log back tells a re-run what is already done. Records hold the
scorecard and the full result (answer, citations, trace), never the raw LM history.
This module does not run programs or aggregate scores.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from metrics import Scorecard
from program.redaction import redact
from program.result import Result

Status = Literal["ok", "timeout", "error"]


class Record(BaseModel):
    qid: str
    system: str
    status: Status
    error: str = ""
    question: str
    gold: str
    answerable: bool = True  # False: the documents do not answer it, and abstaining is correct
    hotpot_type: str = ""
    holdout_title: str = ""
    seconds: float = 0.0  # the program's wall time, measured by the runner
    scores: Scorecard
    result: Result | None = None  # None when the hard timeout gave up on the example

    @property
    def answer(self) -> str:
        return self.result.answer if self.result else ""

    @property
    def question_type(self) -> str:
        """HotpotQA's own type where known, else the type the program gave the question."""
        return self.hotpot_type or (self.result.trace.query_type if self.result else "") or "unknown"


class RecordLog:
    """results.jsonl: one `Record` per line; first record of a (system, qid) wins."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()

    def read(self) -> list[Record]:
        if not self.path.exists():
            return []
        records, seen = [], set()
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                record = Record.model_validate_json(line)
            except ValidationError:
                continue  # subtle: a line cut short by a kill; its example simply runs again
            if (record.system, record.qid) not in seen:
                seen.add((record.system, record.qid))
                records.append(record)
        return records

    def append(self, record: Record) -> None:
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            if out.tell() and not self._ends_with_newline():
                out.write("\n")  # after a cut-short line, start a fresh one
            # subtle: the whole line, since warnings, errors and trace fields all quote raw error text
            out.write(redact(record.model_dump_json()) + "\n")
            out.flush()

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as f:
            f.seek(-1, 2)
            return f.read(1) == b"\n"
