"""A circuit breaker for a remote service: after `threshold` failures in a row, calls fail fast
for `cool_s` seconds instead of each waiting out a timeout, then one call is let through to try.

It only counts and tells; the caller decides what a failure is and what failing fast raises.
Thread-safe, since the HTTP service answers requests on several threads.
"""

from __future__ import annotations

import threading
import time


class CircuitBreaker:
    def __init__(self, threshold: int = 5, cool_s: float = 60.0):
        self.threshold, self.cool_s = threshold, cool_s
        self._failures = 0
        self._open_until = 0.0
        self._lock = threading.Lock()

    def seconds_open(self) -> float:
        """How long calls should still fail fast; 0 when a call may go through."""
        with self._lock:
            return max(0.0, self._open_until - time.monotonic())

    def succeeded(self) -> None:
        with self._lock:
            self._failures, self._open_until = 0, 0.0

    def failed(self) -> None:
        with self._lock:
            self._failures += 1
            if self._failures >= self.threshold:
                self._open_until = time.monotonic() + self.cool_s
