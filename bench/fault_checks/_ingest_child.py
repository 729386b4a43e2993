"""Ingest one source in a child process and print its seconds and peak memory growth as JSON.

    python bench/fault_checks/_ingest_child.py SOURCE FOLDER [chunk]

The embedder loads, and one document is indexed, before the clock and the memory baseline start: what
is measured is the source's own fetch, read, chunking and embedding. Memory is the resident set,
sampled every 10 ms while the ingest runs (the peak since start would be the embedder's load). URLs are fetched as an internal
host's are (`tests.reliability.hostile_pages.allowed`). With `chunk`, a file is only read and chunked as
ingest does, the embedding aside (it is the model's time, about 13 chunks a second on 2 shared cores). Run by the hostile-fetch and linear-ingest checks.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

from qdrant_client import QdrantClient

from program.retrieval.chunking import Document, chunk_document
from program.retrieval.embeddings import load_embedder
from program.retrieval.ingest import ingest
from program.retrieval.readers import read
from program.retrieval.server_store import ServerStore
from program.retrieval.sources import SourceFile
from tests.reliability.hostile_pages import allowed


def main(source: str, folder: str, mode: str = "ingest") -> None:
    if mode == "chunk":
        return _chunk_only(Path(source))
    config = allowed(Path(folder))
    store, embedder = ServerStore(QdrantClient(":memory:"), ":memory:"), load_embedder(config)
    ingest([Document(doc_id="warm", title="warm", text="warm up")], config, store=store, embedder=embedder)
    sampler = _Sampler()
    started, error, report = time.monotonic(), "", None
    try:
        report = ingest([source], config, store=store, embedder=embedder)
    except Exception as failed:  # noqa: BLE001 - the figure says what ended it
        error = f"{type(failed).__name__}: {failed}"[:200]
    seconds, growth = time.monotonic() - started, sampler.stop()
    print(json.dumps({"seconds": seconds, "growth_mb": growth, "error": error,
                      "chunks": report.chunks if report else 0,
                      "longest": max((len(p["text"]) for _, p in store.payloads(config.collection, ["text"])), default=0)}))


def _chunk_only(path: Path) -> None:
    sampler, started = _Sampler(), time.monotonic()
    chunks = [c for d in read(SourceFile(root=str(path), path=path.name, origin=str(path), url="",
                                         data=path.read_bytes()), 10 * 2**20) for c in chunk_document(d)]
    seconds, growth = time.monotonic() - started, sampler.stop()
    print(json.dumps({"seconds": seconds, "growth_mb": growth, "error": "", "chunks": len(chunks),
                      "longest": max(len(c.text) for c in chunks)}))


class _Sampler:
    """The resident set's growth over its size at start, sampled from /proc until stopped, in MB."""

    def __init__(self):
        self.before = self.peak = _rss_mb()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._done.wait(0.01):
            self.peak = max(self.peak, _rss_mb())

    def stop(self) -> float:
        self._done.set()
        self._thread.join()
        return max(self.peak, _rss_mb()) - self.before


def _rss_mb() -> float:
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024  # kB


if __name__ == "__main__":
    main(*sys.argv[1:4])
