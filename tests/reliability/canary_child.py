"""A run with a canary secret in every key variable that fails in every way it can, for bench/fault_checks/canary.py.

Started as `python -m tests.reliability.canary_child DATA_DIR` with the canaries
(`tests.reliability.canaries`) in the environment, it goes through the CLI's own entry
(`program.cli.run_command`, which installs log redaction) and:
- evaluates the loop (over a search that fails with the canaries in its error, and a Tavily that
  answers 401 quoting them) and a program that crashes with them, into DATA_DIR/runs/eval;
- serves HTTP with the API token set, asks with the right token, a wrong one and none (one of the
  questions makes the search fail), answers from a healthy Tavily (so the web cache is written),
  and writes each response body to DATA_DIR/http/;
- runs the optimize job on a fake LM into DATA_DIR/optimize (program JSON, its MLflow run);
- logs an error carrying the canaries, with its traceback, then fails with them, so the CLI prints
  its error line and exits 1.
Not a test itself.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import dspy
from dspy.utils import DummyLM

import program  # noqa: F401  (sets the offline env vars before anything imports litellm)
from optimize.eval.evaluate import run_eval
from optimize.eval.example_schema import make_example
from optimize.eval.run_config import EvalConfig
from program.base.command_line import exit_with, run_command
from program.base.settings import Settings
from program.loop import GatedRAG
from program.retrieval.web_search import TavilyWeb
from tests.conftest import FakeSearch
from tests.optimize.conftest import examples, score
from tests.optimize.job.test_job import KEYED, run_job
from tests.program.fake_engine import (
    DOCS,
    QUESTION,
    fake_answerer,
    signature_lm,
    verdict,
)
from tests.program.retrieval.fake_tavily import FakeTavily
from tests.program.serving.live_server import serving
from tests.reliability.canaries import CANARIES, LEAK

FAILS_ON = "Alpha"  # a query with this word makes the search raise the canaries


class LeakySearch(FakeSearch):
    def __call__(self, query: str, k: int):
        if FAILS_ON in query:
            raise ConnectionError(LEAK)
        return super().__call__(query, k)


class Crashing(dspy.Module):
    def forward(self, question: str, time_limit_s: float | None = None):
        raise RuntimeError(LEAK)


def main(data: Path) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    return run_command(argparse.Namespace(run=lambda args: _scenario(data)))


def _scenario(data: Path) -> int:
    healthy, refusing = FakeTavily(), FakeTavily(error_detail=LEAK)
    refusing.mode = "unauthorized"
    try:
        _evaluate(data, _settings(data, refusing))
        _serve(data, _settings(data, healthy))
    finally:
        healthy.close()
        refusing.close()
    (data / "optimize").mkdir()
    run_job(data / "optimize", DummyLM(KEYED))
    try:
        raise ConnectionError(LEAK)
    except ConnectionError:
        logging.getLogger("program.canary").exception("the store refused us: %s", LEAK)
    raise RuntimeError(LEAK)  # the CLI's error line


def _settings(data: Path, tavily: FakeTavily) -> Settings:
    return Settings(data_dir=data, profile="local", web_backend="tavily", tavily_api_base_url=tavily.url,
                    mlflow_tracking_uri=None, serve_timeout_s=30)


def _engine(settings: Settings):
    """The loop over the leaky search and Tavily, and an LM whose judge always wants the web."""
    return (GatedRAG(LeakySearch(DOCS), web=TavilyWeb(settings)),
            signature_lm(judged=verdict(False, 0.1, ["Shirley Temple career"])))


def _evaluate(data: Path, settings: Settings) -> None:
    rag, lm = _engine(settings)
    asked = [*examples(), make_example("web", QUESTION, ["Chief of Protocol"], ["Shirley Temple"])]
    config = EvalConfig(split="smoke", systems=["gated", "crash"], profile="local", model="fake")
    with dspy.context(lm=lm, adapter=lm.adapter):
        run_eval(config, settings, data / "runs" / "eval", {"gated": rag, "crash": Crashing()}, asked, score,
                 progress=False)


def _serve(data: Path, settings: Settings) -> None:
    rag, lm = _engine(settings)
    token = CANARIES["GATEDRAG_API_TOKEN"]
    asks = [(f"Bearer {token}", QUESTION), (f"Bearer {token}", "Which is older, Alpha or Beta?"),
            (f"Bearer {CANARIES['OPENAI_API_KEY']}", QUESTION), (None, QUESTION)]
    (data / "http").mkdir(parents=True, exist_ok=True)
    with serving(fake_answerer(settings, search=rag.search, lm=lm, web=rag.web), settings) as client:
        for n, (authorization, question) in enumerate(asks):
            headers = {"Authorization": authorization} if authorization else {}
            response = client.post("/answer", json={"question": question, "include_trace": True}, headers=headers)
            (data / "http" / f"{n}-{response.status_code}.json").write_bytes(response.content)
        (data / "http" / "readyz.json").write_bytes(client.get("/readyz").content)


if __name__ == "__main__":
    exit_with(main(Path(sys.argv[1])))
