"""Concurrent session writers: 6 threads write 150 turns each to one session of the file store, and
every turn must be there afterwards (with a per-process temporary file and no lock, 13 of 900 were
left). Figures: turns lost (bar 0) and writer exceptions (bar 0).
"""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fault_checks.figure import Figure
from program.sessions.conversation import Turn
from program.sessions.file_store import FileSessionStore

WRITERS, RECORDS = 6, 150


def run(quick: bool) -> list[Figure]:
    records = 30 if quick else RECORDS
    with tempfile.TemporaryDirectory() as folder:
        store = FileSessionStore(Path(folder), turns=WRITERS * records + 1, idle_s=1e9)
        with ThreadPoolExecutor(WRITERS) as pool:
            outcomes = list(pool.map(lambda w: _write(store, w, records), range(WRITERS)))
        kept = {t.question for t in store.recall("shared").turns}
    failures = sum(outcomes)
    lost = WRITERS * records - len(kept)
    return [Figure("sessions", f"{lost} turns lost over {WRITERS} writers x {records} records", "0", lost == 0),
            Figure("sessions", f"{failures} writer exceptions", "0", failures == 0)]


def _write(store: FileSessionStore, writer: int, records: int) -> int:
    failures = 0
    for i in range(records):
        try:
            store.record("shared", Turn(question=f"{writer}-{i}", standalone=f"{writer}-{i}"))
        except Exception:  # noqa: BLE001 - every kind counts as a failed write
            failures += 1
    return failures
