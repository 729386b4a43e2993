"""Retrying a web search: which failures get another try, how long to wait, and never past the time left.

A 429 (throttled), a 500/502/503/504 or a dropped connection is retried, at most `ATTEMPTS` times
in all. The wait is the server's `Retry-After` (seconds or an HTTP date) plus a little jitter,
else a jittered exponential backoff. No wait is taken that would leave less than `MIN_ATTEMPT_S`
of the caller's time, or that is longer than `MAX_WAIT_S`: the call then fails at once with its
last error. A 400/401/403, a timeout and an unreadable answer are not retried (another try would
meet the same key, the same hung service, the same garbage).

The official Tavily client turns a 429 into `UsageLimitExceededError` and drops the response, its
headers included; `raise_if_throttled` is a `requests` response hook that reads `Retry-After` first.
This module does not call the service, cache, or count failures for the circuit breaker.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable
from typing import TypeVar

import requests
import tenacity

ATTEMPTS = 3
MIN_ATTEMPT_S = 1.0  # a try with less time than this left is not worth making
MAX_WAIT_S = 10.0  # a Retry-After beyond this is an outage, not a hiccup: give up
JITTER_S = 0.5
TRANSIENT_STATUS = frozenset({429, 500, 502, 503, 504})
BACKOFF = tenacity.wait_exponential_jitter(multiplier=0.5, max=4.0, jitter=JITTER_S)  # 0.5-1 s, 1-1.5 s, ...

T = TypeVar("T")


class Throttled(RuntimeError):
    """The service answered 429; `retry_after` is its Retry-After in seconds (None if it gave none)."""

    def __init__(self, retry_after: float | None):
        super().__init__("HTTP 429 Too Many Requests" + (f", retry after {retry_after:g} s" if retry_after is not None else ""))
        self.retry_after = retry_after


def raise_if_throttled(response: requests.Response, *args, **kwargs) -> requests.Response:
    """A `requests` response hook: a 429 raises `Throttled` with its Retry-After; others pass."""
    if response.status_code == 429:
        response.close()  # its body is not read: release the connection
        raise Throttled(retry_after_seconds(response.headers.get("Retry-After")))
    return response


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A Retry-After header in seconds: delta-seconds or an HTTP date; None if absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def call_retrying(attempt: Callable[[float | None], T], deadline: float | None) -> T:
    """`attempt(seconds_left)` until it succeeds, a failure is not transient, or time runs out.

    `deadline` is a `time.monotonic()` instant (None: no limit); each attempt gets the seconds
    left before it. The last error is raised as it was.
    """
    retrying = tenacity.Retrying(retry=tenacity.retry_if_exception(is_transient), wait=_wait,
                                 stop=tenacity.stop_after_attempt(ATTEMPTS) | _out_of_time(deadline), reraise=True)
    return retrying(lambda: attempt(_left(deadline)))


def is_transient(error: BaseException) -> bool:
    if isinstance(error, Throttled):
        return True
    if isinstance(error, requests.HTTPError) and error.response is not None:
        return error.response.status_code in TRANSIENT_STATUS
    # subtle: the client turns requests' Timeout into its own TimeoutError, so what is left of
    # ConnectionError here is a refused or reset connection
    return isinstance(error, requests.ConnectionError) and not isinstance(error, requests.Timeout)


def _wait(state: tenacity.RetryCallState) -> float:
    hint = _retry_after(state.outcome.exception())
    if hint is not None:
        return hint + random.uniform(0, JITTER_S)
    return BACKOFF(state)


def _out_of_time(deadline: float | None) -> Callable[[tenacity.RetryCallState], bool]:
    def stop(state: tenacity.RetryCallState) -> bool:  # runs after _wait has set the upcoming sleep
        left = _left(deadline)
        fits = left is None or state.upcoming_sleep + MIN_ATTEMPT_S <= left
        return state.upcoming_sleep > MAX_WAIT_S or not fits

    return stop


def _retry_after(error: BaseException | None) -> float | None:
    if isinstance(error, Throttled):
        return error.retry_after
    if isinstance(error, requests.HTTPError) and error.response is not None:
        return retry_after_seconds(error.response.headers.get("Retry-After"))
    return None


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()
