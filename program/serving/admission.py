"""A bounded count of requests in flight: `admitted()` lets one in, or raises `Overloaded` past the bound.

The service keeps one for `/answer` and one for `POST /ingest`, each of `serve_max_pending`, so slow
ingests fill only their own count: answers still get in, and the probes never need a worker thread
(`program.serving.service`). This module does not time or queue anything.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Overloaded(RuntimeError):
    """More requests of one kind are running or queued than `serve_max_pending`."""


class Admission:
    def __init__(self, limit: int, what: str):
        self.limit, self.what = limit, what
        self._count, self._lock = 0, threading.Lock()

    @contextmanager
    def admitted(self) -> Iterator[None]:
        with self._lock:
            if self._count >= self.limit:
                raise Overloaded(f"{self._count} {self.what} are running or queued (serve_max_pending); retry later")
            self._count += 1
        try:
            yield
        finally:
            with self._lock:
                self._count -= 1
