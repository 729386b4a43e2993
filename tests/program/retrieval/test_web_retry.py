"""program/retrieval/web_retry.py: what is retried, after how long, and never past the deadline (no network;
the fake Tavily tests are in tests/reliability/test_web_faults.py)."""

from __future__ import annotations

import email.utils
import time

import pytest
import requests

from program.retrieval import web_retry
from program.retrieval.web_retry import (
    Throttled,
    call_retrying,
    is_transient,
    retry_after_seconds,
)


def failing(*errors: BaseException):
    """An attempt that raises `errors` in turn, then returns "ok"; it records the seconds left it was given."""
    given: list[float | None] = []

    def attempt(seconds_left):
        given.append(seconds_left)
        if len(given) <= len(errors):
            raise errors[len(given) - 1]
        return "ok"

    attempt.given = given
    return attempt


def http_error(status: int, retry_after: str | None = None) -> requests.HTTPError:
    response = requests.Response()
    response.status_code, response.headers["Retry-After"] = status, retry_after or ""
    return requests.HTTPError(response=response)


def test_retry_after_reads_seconds_and_http_dates():
    now = 1_700_000_000.0
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(email.utils.formatdate(now + 12, usegmt=True), now=now) == pytest.approx(12.0)
    assert retry_after_seconds(email.utils.formatdate(now - 5, usegmt=True), now=now) == 0.0
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


@pytest.mark.parametrize("error, transient", [(Throttled(1), True), (http_error(502), True), (http_error(503), True),
                                              (http_error(401), False), (http_error(400), False),
                                              (requests.ConnectionError(), True), (requests.ReadTimeout(), False),
                                              (ValueError("not JSON"), False)])
def test_what_is_worth_another_try(error, transient):
    assert is_transient(error) is transient


def test_a_retry_after_is_waited_and_each_try_gets_the_time_left():
    attempt = failing(Throttled(0.3), http_error(503, "0"))
    started = time.monotonic()
    assert call_retrying(attempt, time.monotonic() + 10) == "ok"
    assert 0.3 <= time.monotonic() - started < 0.3 + 2 * web_retry.JITTER_S + 0.2
    assert attempt.given[0] > attempt.given[1] > attempt.given[2] and attempt.given[0] <= 10


@pytest.mark.parametrize("deadline_s, retry_after", [(5.0, 30), (None, web_retry.MAX_WAIT_S + 1)])
def test_a_wait_past_the_deadline_or_the_cap_gives_up_at_once(deadline_s, retry_after):
    attempt = failing(Throttled(retry_after))
    started = time.monotonic()
    with pytest.raises(Throttled):
        call_retrying(attempt, None if deadline_s is None else time.monotonic() + deadline_s)
    assert time.monotonic() - started < 0.2 and len(attempt.given) == 1


def test_a_failure_that_is_not_transient_is_raised_at_once():
    attempt = failing(http_error(401))
    with pytest.raises(requests.HTTPError):
        call_retrying(attempt, None)
    assert attempt.given == [None]
