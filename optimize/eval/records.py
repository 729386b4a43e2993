"""One example's outcome for one system (`Record`), and the JSONL file that holds them (`RecordLog`).

Each record is appended and flushed the moment its example finishes, so an interrupted run
loses nothing; reading the log back tells a re-run what is already done. The log is read as
bytes, line by line: a kill mid-append leaves a torn last line (possibly cut inside a UTF-8
character), which is dropped on reading and cut off before the next append, so no finished
record is lost or written twice; `Recovery` says what a read kept and dropped; `outcomes` pairs
each result with whether its answer was right, for the confidence's calibration. Records hold
the scorecard and the full result (answer, citations, trace), never the raw LM history.
This module does not run programs or aggregate scores.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Iterable, Literal

from pydantic import BaseModel, ValidationError

from metrics import Scorecard
from metrics.calibration import is_right
from program.base.redaction import redact
from program.contract.result import Result

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
    def right(self) -> bool:
        """The answer counts as right (`metrics.calibration.is_right`): what a confidence should predict."""
        return is_right(self.scores)

    @property
    def question_type(self) -> str:
        """HotpotQA's own type where known, else the type the program gave the question."""
        return self.hotpot_type or (self.result.trace.query_type if self.result else "") or "unknown"


def outcomes(records: list[Record]) -> tuple[list[Result], list[bool]]:
    """The records' results and whether each answer was right, leaving out those given up (no result)."""
    kept = [r for r in records if r.result is not None]
    return [r.result for r in kept], [r.right for r in kept]


def score_of(record: Record, name: str) -> float | None:
    """The record's value of a metric; None when the metric does not apply to its question."""
    value = getattr(record.scores, name)
    return None if value is None else float(value)


def paired_scores(name: str, pairs: Iterable[tuple[Record, Record]]) -> tuple[list[float], list[float]]:
    """A metric's values on each side of the pairs where it applies to both (evidence recall does
    not on an unanswerable question): what a paired difference is taken over."""
    both = [(x, y) for a, b in pairs if (x := score_of(a, name)) is not None and (y := score_of(b, name)) is not None]
    return [x for x, _ in both], [y for _, y in both]


class Recovery(BaseModel):
    """What reading a log found: the finished records kept, the whole lines that did not parse
    (left by older versions, which appended after a torn line), and the bytes of a torn tail."""

    kept: int = 0
    skipped_lines: int = 0
    torn_tail_bytes: int = 0

    def __str__(self) -> str:
        torn = f", dropped a torn last line ({self.torn_tail_bytes} bytes)" if self.torn_tail_bytes else ""
        skipped = f", skipped {self.skipped_lines} unreadable line(s)" if self.skipped_lines else ""
        return f"kept {self.kept} finished record(s){skipped}{torn}"


class RecordLog:
    """results.jsonl: one `Record` per line; first record of a (system, qid) wins."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()

    def read(self) -> list[Record]:
        return self.scan()[0]

    def scan(self) -> tuple[list[Record], Recovery]:
        """The finished records, and what was kept and dropped to get them. Reads only."""
        data = self.path.read_bytes() if self.path.exists() else b""
        # subtle: only a line ending in a newline is finished; what follows the last one is a torn append
        lines, tail = data.split(b"\n")[:-1], data.rpartition(b"\n")[2]
        records, seen, skipped = [], set(), 0
        for line in filter(None, lines):
            try:
                record = Record.model_validate_json(line)
            except ValidationError:  # bad JSON or bad UTF-8 alike
                skipped += 1
                continue
            if (record.system, record.qid) not in seen:
                seen.add((record.system, record.qid))
                records.append(record)
        return records, Recovery(kept=len(records), skipped_lines=skipped, torn_tail_bytes=len(tail))

    def append(self, record: Record) -> Record:
        """Append `record`, redacted, and return it as written: reports built from what this returns
        show what a resumed run would read back, and no secret the record quoted."""
        # subtle: the whole line, since warnings, errors and trace fields all quote raw error text
        line = redact(record.model_dump_json())
        with self._lock:
            _drop_torn_tail(self.path)
            with self.path.open("ab") as out:
                out.write(line.encode("utf-8") + b"\n")
                out.flush()
        return Record.model_validate_json(line)


def _drop_torn_tail(path: Path) -> None:
    """Cut `path` after its last newline, so the next append starts a clean line."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as handle:
        handle.seek(-1, os.SEEK_END)
        if handle.read(1) == b"\n":  # the usual case: one byte read per append
            return
        handle.seek(0)
        handle.truncate(handle.read().rfind(b"\n") + 1)


def recovery_of(log: RecordLog, announce: bool = True) -> Recovery | None:
    """What a resumed run found in its log, and with `announce` also said in one line on stderr;
    None for a fresh log."""
    recovery = log.scan()[1]
    if recovery == Recovery():
        return None
    if announce:
        print(f"resuming from {log.path}: {recovery}", file=sys.stderr)
    return recovery
