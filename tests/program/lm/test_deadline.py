"""call_within: a hard time limit on one predictor call, against a fake OpenAI server on 127.0.0.1."""

from __future__ import annotations

import json
import signal
import threading
import time
import urllib.request

import dspy
import pytest
from dspy.clients.cache import Cache
from dspy.utils.exceptions import LMError

from program.lm.deadline import GRACE_S, DeadlineExceeded, call_within
from tests.program.fake_openai import FakeOpenAI


class Capital(dspy.Signature):
    """Name the capital city."""

    question: str = dspy.InputField()
    answer: str = dspy.OutputField()


@pytest.fixture
def memory_cache(monkeypatch):
    """DSPy's response cache in memory only, so tests never write to the user's disk cache."""
    monkeypatch.setattr(dspy, "cache", Cache(enable_disk_cache=False, enable_memory_cache=True, disk_cache_dir=None))


@pytest.mark.parametrize("cache", [False, True], ids=["cache-off", "cache-on"])
@pytest.mark.parametrize("engine", ["auto", "litellm"])  # DSPy's native lm15 engine, and its LiteLLM fallback
def test_a_call_out_of_time_raises_and_hangs_up(server, memory_cache, cache, engine):
    if engine == "litellm":
        pytest.importorskip("litellm")  # its first import takes seconds, which would eat the 2 s
    server.mode = "slow"
    with dspy.context(lm=server.lm(cache, engine), adapter=dspy.JSONAdapter()):
        started = time.perf_counter()
        with pytest.raises(DeadlineExceeded, match="Capital: no answer within 2.0 s"):
            call_within(dspy.Predict(Capital), 2.0, question="France?")
        elapsed = time.perf_counter() - started
    assert 2.0 <= elapsed < 2.5
    assert server.closed.wait(1.0), "the server still holds the request"
    assert len(server.bodies) == 1  # cancelled, never retried


def test_a_call_in_time_returns_its_prediction_and_takes_per_call_config(server):
    with dspy.context(lm=server.lm(), adapter=dspy.JSONAdapter()):
        pred = call_within(dspy.Predict(Capital), 5.0, question="France?", config={"max_tokens": 77})
    assert pred.answer == "Paris"
    body = server.bodies[0]
    assert body.get("max_completion_tokens", body.get("max_tokens")) == 77  # OpenAI's newer name for it


def test_a_cached_answer_needs_no_time_at_the_server(server, memory_cache):
    predict = dspy.Predict(Capital)
    with dspy.context(lm=server.lm(cache=True), adapter=dspy.JSONAdapter()):
        first = call_within(predict, 5.0, question="France?")
        server.mode = "slow"  # a request now would hang; the cache must answer
        again = call_within(predict, 1.0, question="France?")
    assert first.answer == again.answer == "Paris"
    assert len(server.bodies) == 1


@pytest.mark.parametrize("seconds_left", [0.0, -3.0])
def test_no_time_left_raises_before_any_request(server, seconds_left):
    with dspy.context(lm=server.lm(), adapter=dspy.JSONAdapter()):
        with pytest.raises(DeadlineExceeded, match="no time left"):
            call_within(dspy.Predict(Capital), seconds_left, question="France?")
    assert server.bodies == []


def test_no_limit_is_a_plain_call(server):
    with dspy.context(lm=server.lm(), adapter=dspy.JSONAdapter()):
        assert call_within(dspy.Predict(Capital), None, question="France?").answer == "Paris"


def test_other_errors_pass_through_unchanged(server):
    server.mode = "error"
    with dspy.context(lm=server.lm(), adapter=dspy.JSONAdapter()):
        with pytest.raises(LMError) as raised:
            call_within(dspy.Predict(Capital), 5.0, question="France?")
    assert not isinstance(raised.value, DeadlineExceeded)


def test_an_interrupted_call_cancels_its_request(server):
    server.mode = "slow"
    # subtle: Python's own Ctrl-C handler, whatever a library loaded by an earlier test left in place
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    ctrl_c = threading.Thread(target=_ctrl_c_once_in_flight, args=(server,), daemon=True)
    ctrl_c.start()
    try:
        with dspy.context(lm=server.lm(), adapter=dspy.JSONAdapter()):
            with pytest.raises(KeyboardInterrupt):
                call_within(dspy.Predict(Capital), None, question="France?")  # no limit: waits for Ctrl-C
    finally:
        ctrl_c.join()
        signal.signal(signal.SIGINT, previous)
    assert server.closed.wait(1.0)


def _ctrl_c_once_in_flight(server: FakeOpenAI) -> None:
    """A real SIGINT, as Ctrl-C sends (_thread.interrupt_main() would not wake a blocked wait),
    once the request is at the server: sent at a fixed time, it could land before the call."""
    end = time.monotonic() + 10
    while not server.in_flight and time.monotonic() < end:
        time.sleep(0.01)
    time.sleep(0.2)
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)


class Stubborn(dspy.Module):
    """A call that blocks its event loop (sync work inside async code), so cancelling cannot stop it."""

    async def aforward(self, question: str) -> dspy.Prediction:
        time.sleep(1.5)
        return dspy.Prediction(answer="late")


def test_a_call_that_cannot_be_cancelled_is_still_given_up_in_time():
    started = time.perf_counter()
    with pytest.raises(DeadlineExceeded, match="has not stopped"):
        call_within(Stubborn(), 0.3, question="France?")
    assert time.perf_counter() - started < 0.3 + GRACE_S + 0.2


class Poem(dspy.Signature):
    """Write an epic poem of 300 lines about the topic, one line per verse, numbered."""

    topic: str = dspy.InputField()
    text: str = dspy.OutputField()


@pytest.mark.real_lm
def test_real_local_model_stops_generating_when_out_of_time():
    from program.base.settings import Settings
    from program.lm.lm_profiles import build_lm

    with build_lm(Settings(_env_file=None, profile="local"), cache=False) as handle:
        with dspy.context(lm=handle.lm, adapter=dspy.JSONAdapter()):
            started = time.perf_counter()
            with pytest.raises(DeadlineExceeded):  # 2000 tokens take ~40 s on 2 idle cores
                call_within(dspy.Predict(Poem, max_tokens=2000), 3.5, topic="a dragon")
            assert time.perf_counter() - started < 3.5 + GRACE_S
        # subtle: one look only. llama.cpp checks for a closed client when a second passes with
        # no result for any request, and every /slots answer is such a result. Needs idle cores:
        # with another model running, the poem's prompt alone can outlast the 3.5 s.
        time.sleep(2.0)
        with urllib.request.urlopen(f"{handle._server.base_url}/slots", timeout=10) as response:
            assert not any(slot["is_processing"] for slot in json.load(response))
