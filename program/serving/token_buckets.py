"""A token bucket per client, in bounded memory: the rate limit of the HTTP service.

Each client may make `per_minute` requests a minute, in bursts of up to as many; a refused request
costs nothing. At most `max_clients` buckets are kept, the least recently seen dropped first: that
one has most likely refilled, so dropping it forgets little. Not thread-safe: the service calls it
from its event loop only. This module does not speak HTTP; see `program.serving.http_guards`.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

MAX_CLIENTS = 10_000


class TokenBuckets:
    def __init__(self, per_minute: int, max_clients: int = MAX_CLIENTS, clock: Callable[[], float] = time.monotonic):
        self.capacity, self.per_second = float(per_minute), per_minute / 60
        self.max_clients, self.clock = max_clients, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # client -> (tokens, when counted)

    def take(self, client: str) -> float:
        """0 when `client` may go on (it spends a token), else the seconds until it may."""
        now = self.clock()
        tokens, then = self._buckets.pop(client, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - then) * self.per_second)
        wait = 0.0 if tokens >= 1 else (1 - tokens) / self.per_second
        self._buckets[client] = (tokens - 1 if wait == 0 else tokens, now)
        if len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return wait

    def __len__(self) -> int:
        return len(self._buckets)
