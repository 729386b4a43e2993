"""Web faults: the real HTTP service (fake LM) searching a fake Tavily on 127.0.0.1 that fails in one way per run.

Faults: 429 with Retry-After, 401, 502, a 200 that is not JSON, no results, and a service that
never answers. The scripted judge always finds a gap the collection cannot close, so every
question searches the web. Figures: the share of answers that are HTTP 200 with a warning naming
the web (bar 100%), and whether 5 failed searches in a row open the breaker (the 6th question
warns that Tavily was skipped, and the fake sees no request from it).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from fault_checks.figure import Figure
from program.base.settings import Settings
from program.retrieval import web_retry
from program.retrieval.web_search import BREAKER_FAILURES, TavilyWeb
from tests.program.fake_engine import QUESTION, fake_answerer, signature_lm, verdict
from tests.program.retrieval.fake_tavily import FakeTavily
from tests.program.serving.live_server import serving

FAULTS = ("throttled", "unauthorized", "bad_gateway", "garbage", "empty", "hang")
LIMIT_S = 10.0


def run(quick: bool) -> list[Figure]:
    per_fault = 1 if quick else 5
    with tempfile.TemporaryDirectory() as folder:
        warned = {fault: _answers(Path(folder) / fault, fault, per_fault) for fault in FAULTS}
        opened = _breaker_opens(Path(folder) / "breaker")
    good = sum(sum(ok for ok, _ in found) for found in warned.values())
    total = len(FAULTS) * per_fault
    slowest = max(seconds for found in warned.values() for _, seconds in found)
    missed = [f for f, found in warned.items() if not all(ok for ok, _ in found)]
    return [Figure("web", f"{good}/{total} answers HTTP 200 with a web warning ({', '.join(FAULTS)}); "
                          f"slowest {slowest:.1f} s of {LIMIT_S:g}" + (f"; missed: {', '.join(missed)}" if missed else ""),
                   "100%", good == total),
            Figure("web", opened, f"opens after {BREAKER_FAILURES} failures", opened.startswith("opened"))]


def _answers(folder: Path, fault: str, n: int) -> list[tuple[bool, float]]:
    """(HTTP 200 with a warning about the web, seconds) for `n` questions against a Tavily failing with `fault`."""
    tavily = FakeTavily(retry_after="1")
    tavily.mode = fault
    try:
        with _served(folder, tavily) as client:
            return [_ask(client, f"{QUESTION} ({i})") for i in range(n)]  # another question: no cached answer
    finally:
        tavily.close()


def _breaker_opens(folder: Path) -> str:
    tavily = FakeTavily()
    tavily.mode = "bad_gateway"
    try:
        with _served(folder, tavily) as client:
            warnings = [client.post("/answer", json={"question": f"{QUESTION} ({i})"}).json()["warnings"]
                        for i in range(BREAKER_FAILURES + 1)]
    finally:
        tavily.close()
    skipped = any("failures in a row" in w for w in warnings[-1])
    sent = len(tavily.requests)  # each failed search is ATTEMPTS requests
    if sent == BREAKER_FAILURES * web_retry.ATTEMPTS and skipped:
        return (f"opened after {BREAKER_FAILURES} failed searches ({sent} requests): "
                f"question {BREAKER_FAILURES + 1} warned and sent none")
    return f"not opened: {sent} requests for {BREAKER_FAILURES + 1} questions"


def _served(folder: Path, tavily: FakeTavily):
    config = Settings(_env_file=None, data_dir=folder, profile="local", web_backend="tavily", tavily_api_key="tvly-fake",
                      tavily_api_base_url=tavily.url, serve_timeout_s=LIMIT_S)
    # the reader's guess no passage supports sends the loop to the judge, whose gap only the web can close
    guess = {"short_answer": "Prime Minister", "answer": "Prime Minister [1]."}
    lm = signature_lm(answer=guess, judged=verdict(False, 0.1, ["Shirley Temple career"], answer=guess))
    return serving(fake_answerer(config, lm=lm, web=TavilyWeb(config)), config)


def _ask(client, question: str) -> tuple[bool, float]:
    started = time.monotonic()
    response = client.post("/answer", json={"question": question})
    seconds = time.monotonic() - started
    warned = response.status_code == 200 and any("web search" in w for w in response.json()["warnings"])
    return warned, seconds
