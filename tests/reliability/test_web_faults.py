"""Tavily faults through the real client against a fake Tavily on 127.0.0.1: a 429's Retry-After is
honoured, 5xx are retried with backoff, a bad key or garbage is not, and no search outlasts the time
it was given, retries and a hanging service included. The loop hands each search its time left."""

from __future__ import annotations

import email.utils
import time

import dspy
import pytest

from program.base.settings import Settings
from program.loop import GatedRAG
from program.retrieval import web_retry
from program.retrieval.web_search import TavilyWeb, WebSearchError
from tests.conftest import FakeSearch, scripted_lm
from tests.program.retrieval.fake_tavily import FakeTavily
from tests.program.test_loop import CLIFF, QUESTION, UNKNOWN, verdict


@pytest.fixture
def tavily():
    fake = FakeTavily()
    yield fake
    fake.close()


def web(tmp_path, fake: FakeTavily, timeout_s: float = 20.0) -> TavilyWeb:
    return TavilyWeb(Settings(_env_file=None, data_dir=tmp_path, web_backend="tavily", tavily_api_key="tvly-test-key",
                              tavily_api_base_url=fake.url, tavily_timeout_s=timeout_s))


def gaps(fake: FakeTavily) -> list[float]:
    return [b["at"] - a["at"] for a, b in zip(fake.requests, fake.requests[1:])]


@pytest.mark.parametrize("retry_after", ["1", "date"])
def test_a_429_is_retried_after_its_retry_after(tmp_path, tavily, retry_after):
    # an HTTP date has whole seconds: 2 s ahead is at least 1 s away
    tavily.retry_after = email.utils.formatdate(time.time() + 2, usegmt=True) if retry_after == "date" else retry_after
    tavily.script = ["throttled"]
    results = web(tmp_path, tavily).search("river thames", seconds_left=10)
    assert len(results) == 5 and [r["mode"] for r in tavily.requests] == ["throttled", "ok"]
    assert gaps(tavily)[0] >= 1.0


def test_a_retry_after_longer_than_the_time_left_fails_at_once(tmp_path, tavily):
    tavily.retry_after, tavily.mode = "30", "throttled"
    started = time.monotonic()
    with pytest.raises(WebSearchError, match="429"):
        web(tmp_path, tavily).search("river thames", seconds_left=10)
    assert time.monotonic() - started < 1.0 and len(tavily.requests) == 1


def test_a_502_is_retried_with_backoff(tmp_path, tavily):
    tavily.script = ["bad_gateway", "bad_gateway"]
    assert len(web(tmp_path, tavily).search("river thames", seconds_left=10)) == 5
    assert len(tavily.requests) == 3 and all(gap >= 0.5 for gap in gaps(tavily))


@pytest.mark.parametrize("mode", ["unauthorized", "garbage"])
def test_a_bad_key_or_an_unreadable_answer_is_not_retried(tmp_path, tavily, mode):
    tavily.mode = mode
    with pytest.raises(WebSearchError, match="tavily search failed"):
        web(tmp_path, tavily).search("river thames", seconds_left=10)
    assert len(tavily.requests) == 1


@pytest.mark.parametrize("mode", ["hang", "bad_gateway", "throttled"])
def test_no_search_outlasts_its_time_left(tmp_path, tavily, mode):
    tavily.mode = mode  # throttled with Retry-After 1: each wait fits, until the time does not
    started = time.monotonic()
    with pytest.raises(WebSearchError):
        web(tmp_path, tavily, timeout_s=20).search("river thames", seconds_left=2.0)
    assert time.monotonic() - started < 2.0 + 0.5


def test_with_too_little_time_left_no_request_is_made(tmp_path, tavily):
    with pytest.raises(WebSearchError, match="s left of the time limit"):
        web(tmp_path, tavily).search("river thames", seconds_left=0.3)
    assert tavily.requests == []


def test_the_loop_gives_a_hanging_web_only_the_questions_time(tmp_path, tavily):
    tavily.mode = "hang"
    # an "unknown" over a clear hit: the judge is asked, and names a gap the web is searched for
    lm = scripted_lm(UNKNOWN, verdict(False, 0.1, ["Shirley Temple career"]))
    rag = GatedRAG(FakeSearch(CLIFF), web=web(tmp_path, tavily, timeout_s=20))
    started = time.monotonic()
    with dspy.context(lm=lm, adapter=lm.adapter):
        result = rag(question=QUESTION, time_limit_s=3.0).result
    assert time.monotonic() - started < 3.0 * 1.1
    assert tavily.requests and any("web search failed" in w for w in result.warnings)
    assert result.trace.ended == "budget_exhausted"


def test_attempts_are_capped(tmp_path, tavily, monkeypatch):
    monkeypatch.setattr(web_retry, "BACKOFF", lambda state: 0.05)
    tavily.mode = "error"
    with pytest.raises(WebSearchError):
        web(tmp_path, tavily).search("river thames")  # no time limit: the cap alone stops it
    assert len(tavily.requests) == web_retry.ATTEMPTS
