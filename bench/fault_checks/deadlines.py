"""Hard deadlines: a fake LM that takes 30 s per call, behind the real HTTP service with a 5 s request limit.

Requests go in rounds of 3 at a time (the local profile's one LM slot: one runs the loop, two
queue). Figures: the slowest answer (bar: within 1 s of the limit) and, per round, how long after
its last answer the fake LM still had a request in flight (bar: free within 1 s), with every LM
request hung up rather than left to run.
"""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fault_checks.figure import Figure
from program.loop import GatedRAG
from program.serving.answerer import Answerer, Engine
from tests.conftest import FakeSearch
from tests.program.fake_engine import DOCS, QUESTION
from tests.program.fake_openai import FakeOpenAI
from tests.program.serving.live_server import serving, settings

LIMIT_S, LM_S, AT_ONCE = 5.0, 30.0, 3


def run(quick: bool) -> list[Figure]:
    rounds = 2 if quick else 10
    lm = FakeOpenAI(slow_s=LM_S)
    lm.mode = "slow"
    try:
        with tempfile.TemporaryDirectory() as folder:
            answers, lags = _measure(lm, Path(folder), rounds)
    finally:
        lm.close()
    slowest, ok = max(answers), len(answers) == rounds * AT_ONCE
    return [Figure("deadlines", f"slowest of {len(answers)} answers {slowest:.2f} s ({LM_S:g} s LM, {LIMIT_S:g} s limit)",
                   f"<= {LIMIT_S + 1:g} s, all HTTP 200", ok and slowest <= LIMIT_S + 1),
            Figure("deadlines", f"LM slot free {max(lags):.2f} s after a round's last answer at worst; "
                                f"{len(lm.hangups)}/{len(lm.bodies)} LM requests hung up",
                   "<= 1 s, every one hung up", max(lags) <= 1.0 and len(lm.hangups) == len(lm.bodies) > 0)]


def _measure(lm: FakeOpenAI, folder: Path, rounds: int) -> tuple[list[float], list[float]]:
    """Each 200 answer's seconds, and per round the seconds from its last answer to the fake LM idle."""
    config = settings(folder, serve_timeout_s=LIMIT_S)
    answerer = Answerer(lambda: Engine(GatedRAG(FakeSearch(DOCS)), lm.lm()), config)
    answers, lags = [], []
    with serving(answerer, config) as client, ThreadPoolExecutor(AT_ONCE) as pool:
        def ask(_) -> float | None:
            started = time.monotonic()
            response = client.post("/answer", json={"question": QUESTION}, timeout=LM_S * 2)
            return time.monotonic() - started if response.status_code == 200 else None

        for _ in range(rounds):
            answers += [s for s in pool.map(ask, range(AT_ONCE)) if s is not None]
            answered = time.monotonic()
            lm.idle_within(LM_S)
            lags.append(time.monotonic() - answered)
    return answers, lags
