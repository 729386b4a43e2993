"""Regex and ReDoS inputs at every text entry point, against the real HTTP service on 127.0.0.1.

Each input is sent while a second thread polls `/healthz`: a pattern that backtracks holds the GIL,
and the whole service waits behind it. The inputs: callers' `re:` criteria that would exhaust memory
or backtrack (RE2 refuses or matches them in linear time), questions of long runs of spaces (the
session's definition pattern, the decomposer's clause split), a long answer for a backtracking
pattern to match, and Markdown, HTML and text pages with such lines, read and chunked as ingest does. Figures: the slowest
input's seconds (bar: each within 1 s) and the slowest `/healthz` meanwhile (bar: within 1 s).
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path

from fault_checks.figure import Figure
from program.retrieval.chunking import chunk_document
from program.retrieval.readers import DEFAULT_INCLUDE, read
from program.retrieval.sources import ArchiveCaps, source_files
from tests.program.fake_engine import fake_answerer
from tests.program.serving.live_server import serving, settings

SPACES = " " * 20_000
BODIES = [
    {"question": "hi", "required": ["re:(?:(?:a{999}){999}){999}"]},
    {"question": "hi", "required": ["re:(?:a{1000}){1000}"]},
    {"question": "hi", "prohibited": ["re:((a{50}){50}){50}"]},
    {"question": "hi", "required": ["re:(a+)+$", "re:(a|aa)+$", "re:(.*a){20}"]},
    {"question": "What is A" + SPACES[:1_900] + "x", "session_id": "redos"},
    {"question": "Who is" + SPACES[:1_900] + "and what?", "session_id": "redos"},
    {"question": "a" + SPACES[:1_900] + "and which one?"},
    {"question": "x" * 1_990 + "?", "required": ["re:(x+x+)+y"]},
]
PAGES = {"heading.md": "# a" + SPACES + "b\n\ntext\n", "title.md": "# a" + SPACES + "- b\n\ntext\n",
         "page.html": f"<html><head><title>a{SPACES}| b</title></head><body><p>{SPACES}but{SPACES}</p></body></html>",
         "clauses.txt": ("word" + " " * 5_000 + "but ") * 20}


def run(quick: bool) -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder:
        config = settings(Path(folder))
        with serving(fake_answerer(config), config) as client:
            probe = _Probe(client)
            slowest = max(_timed(lambda b=b: client.post("/answer", json=b).status_code) for b in BODIES)
            slowest = max(slowest, _ingest_pages(Path(folder)))
            probe.stop()
    return [Figure("redos", f"slowest of {len(BODIES)} bodies and {len(PAGES)} ingested pages: {slowest:.2f} s",
                   "each within 1 s", slowest <= 1.0),
            Figure("redos", f"slowest /healthz meanwhile: {probe.worst:.2f} s over {probe.polls} polls",
                   "within 1 s", probe.worst <= 1.0 and probe.polls > 0)]


def _timed(call) -> float:
    started = time.perf_counter()
    status = call()
    assert status is None or status < 500, f"HTTP {status}"
    return time.perf_counter() - started


def _ingest_pages(folder: Path) -> float:
    """The slowest page read and chunked as `ingest` reads files (embedding aside: it is the model's time)."""
    pages = folder / "pages"
    pages.mkdir()
    for name, text in PAGES.items():
        (pages / name).write_text(text)
    files = list(source_files(pages, DEFAULT_INCLUDE, [], 10 * 2**20, ArchiveCaps(10, 10 * 2**20)))
    return max(_timed(lambda f=f: [chunk_document(d) for d in read(f, 10 * 2**20)] and None) for f in files)


class _Probe:
    """Polls /healthz from another thread until stopped, keeping the slowest answer."""

    def __init__(self, client):
        self.client, self.worst, self.polls, self._done = client, 0.0, 0, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def _poll(self) -> None:
        while not self._done.is_set():
            self.worst = max(self.worst, _timed(lambda: self.client.get("/healthz").status_code))
            self.polls += 1
            time.sleep(0.02)

    def stop(self) -> None:
        self._done.set()
        self._thread.join(5)
