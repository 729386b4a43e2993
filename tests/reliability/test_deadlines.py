"""Hard deadlines end to end, against a fake LM server that takes 30 s per call: an HTTP request answers
within 1 s of its limit and an eval question within 10% of its, and in both the LM request in flight
is hung up (the fake's slot is free again) within 1 s; a hung question is given up 10% past its limit."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import dspy
import pytest

from optimize.eval import runner
from optimize.eval.example_schema import make_example
from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from program.loop import GatedRAG
from program.serving.answerer import Answerer, Engine
from tests.conftest import FakeSearch
from tests.optimize.conftest import GOLD, FakeProgram, examples, score
from tests.program.fake_engine import DOCS, QUESTION
from tests.program.fake_openai import FakeOpenAI
from tests.program.serving.live_server import serving, settings
from tests.program.test_loop import FLAT  # its flat scores call the LM judge
from tests.program.test_loop import QUESTION as LOOP_QUESTION

LIMIT_S = 2.0


@pytest.fixture
def slow_lm():
    fake = FakeOpenAI(slow_s=30.0)
    fake.mode = "slow"
    yield fake
    fake.close()


def test_every_http_answer_comes_within_a_second_of_its_limit_and_frees_the_lm(tmp_path, slow_lm):
    config = settings(tmp_path, serve_timeout_s=LIMIT_S)
    answerer = Answerer(lambda: Engine(GatedRAG(FakeSearch(DOCS)), slow_lm.lm()), config)
    with serving(answerer, config) as client:
        def ask(_):
            started = time.monotonic()
            response = client.post("/answer", json={"question": QUESTION})
            return response, time.monotonic() - started, time.monotonic()

        with ThreadPoolExecutor(3) as pool:  # one gets the LM slot, two wait for it
            answered = list(pool.map(ask, range(3)))
    assert [r.status_code for r, _, _ in answered] == [200, 200, 200]
    assert max(seconds for _, seconds, _ in answered) <= LIMIT_S + 1.0
    assert all(r.json()["warnings"] for r, _, _ in answered)  # each says it was cut short
    assert slow_lm.bodies and slow_lm.idle_within(1.0)
    assert len(slow_lm.hangups) == len(slow_lm.bodies)  # every LM request was hung up, none left to run
    assert max(slow_lm.hangups) <= max(done for _, _, done in answered) + 1.0


def test_an_eval_question_ends_within_10_percent_of_its_limit_and_frees_the_lm(tmp_path, slow_lm):
    rag, asked = GatedRAG(FakeSearch(FLAT)), make_example("slow", LOOP_QUESTION, ["Chief of Protocol"], ["Kiss and Tell"])
    with dspy.context(lm=slow_lm.lm(), adapter=dspy.JSONAdapter()):
        [record] = run_examples(rag, [asked], "gated", RecordLog(tmp_path / "r.jsonl"), score,
                                time_limit_s=LIMIT_S, progress=False)
    assert record.result.trace.ended == "budget_exhausted"  # its draft (none) was scored, not given up
    assert record.seconds <= LIMIT_S * 1.1
    assert slow_lm.idle_within(1.0) and len(slow_lm.hangups) == 1


def test_a_question_stuck_outside_the_lm_is_given_up_10_percent_past_its_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "POLL_S", 0.02)
    monkeypatch.setattr(runner, "HARD_GRACE_S", 0.0)  # so the 10% shows at a CI-sized limit
    stuck = FakeProgram(sleep_s={GOLD["q1"][0]: 30.0})
    started = time.monotonic()
    [record] = run_examples(stuck, examples("q1"), "gated", RecordLog(tmp_path / "r.jsonl"), score,
                            time_limit_s=1.0, progress=False)
    assert record.status == "timeout" and "given up" in record.error
    assert 1.1 <= time.monotonic() - started < 1.4
