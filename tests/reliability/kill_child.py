"""A run for the kill check (bench/fault_checks/kills.py) to kill: `python -m tests.reliability.kill_child MODE FOLDER DATA_DIR`.

MODE `eval`: two systems over 12 non-ASCII questions, each answered after a short sleep, into
FOLDER with its MLflow run in DATA_DIR's store. MODE `optimize`: the optimize job (prompts, a
few threshold trials, both evals) on the keyed fake LM of tests/optimize/job/test_job.py, with
non-ASCII questions. Run again with the same FOLDER, either resumes. SIGTERM becomes Ctrl-C, as
in `python -m optimize`; a finished run exits 0, an interrupted one 130. It prints "started"
once its imports are done and "done" when its work is, so the killer can time its kills into the
work. Not a test itself.
"""

from __future__ import annotations

import sys
import time
import zlib
from pathlib import Path

import dspy
from dspy.utils import DummyLM

import program  # noqa: F401  (sets the offline env vars before anything imports litellm)
from optimize.eval.evaluate import run_eval
from optimize.eval.example_schema import make_example
from optimize.eval.examples import JobSets
from optimize.eval.run_config import EvalConfig
from optimize.eval.tracking import tracked_run
from optimize.job.budget import SpendingGuard
from optimize.job.config import load_config
from optimize.job.job import Job
from optimize.sigterm import interrupt_on_sigterm
from program.base.command_line import INTERRUPTED, exit_with
from program.base.settings import Settings
from program.loop import GatedRAG
from tests.conftest import FakeSearch
from tests.optimize.conftest import result, score
from tests.optimize.job.test_job import DOCS, KEYED

WORDS = ["Müller", "東京の人口", "emoji 🎉 Ω", "Zürich–Genève", "Ελληνικά", "naïve café"]
SYSTEMS = ("gated", "single_pass")


def questions(n: int, prefix: str) -> list[dspy.Example]:
    """`n` questions whose ids and text hold 2-, 3- and 4-byte UTF-8 characters."""
    return [make_example(f"{prefix}{i}-{WORDS[i % len(WORDS)]}", f"{WORDS[i % len(WORDS)]} {i}: which office did "
                         "Shirley Temple hold?", ["Chief of Protocol"], ["Shirley Temple", "Kiss and Tell"],
                         hotpot_type="bridge") for i in range(n)]


class Sleepy(dspy.Module):
    """Answers right after a sleep of 50-250 ms that depends on the question, so runs differ in where they are cut."""

    def forward(self, question: str, time_limit_s: float | None = None) -> dspy.Prediction:
        time.sleep(0.05 + zlib.crc32(question.encode()) % 200 / 1000)
        r = result(question, "Chief of Protocol", ["Shirley Temple"])
        return dspy.Prediction(answer=r.answer, result=r, evidence=r.evidence)


def main(mode: str, folder: Path, data: Path) -> int:
    settings = Settings(data_dir=data, mlflow_tracking_uri=None, openai_api_key=None, tavily_api_key=None)
    try:  # subtle: "started" inside the try, since a SIGTERM may come the moment it is read
        print("started", flush=True)
        _eval(folder, settings) if mode == "eval" else _optimize(folder, settings)
    except KeyboardInterrupt:
        return INTERRUPTED
    print("done", flush=True)
    return 0


def _eval(folder: Path, settings: Settings) -> None:
    config = EvalConfig(split="kills", systems=list(SYSTEMS), profile="local", model="fake")
    run_eval(config, settings, folder, {name: Sleepy() for name in SYSTEMS}, questions(12, "q"), score, progress=False)


def _optimize(folder: Path, settings: Settings) -> None:
    config = load_config("quick", overrides={"train_limit": 2, "select_limit": 4, "threshold_trials": 3, "time_limit_s": 30})
    folder.mkdir(parents=True, exist_ok=True)
    guard = SpendingGuard(config.caps, "dummy", ledger=folder / "spent.json")
    with dspy.context(lm=DummyLM(KEYED), callbacks=[guard]), \
            tracked_run(settings, folder, {}, "gatedrag-optimize") as tracking:
        job = Job(config, settings, folder, guard, tracking, progress=False)
        job.run(GatedRAG(FakeSearch(DOCS)), JobSets(questions(2, "train"), questions(4, "select"),
                                                    questions(4, "report"), "select", "report"))


if __name__ == "__main__":
    interrupt_on_sigterm()
    exit_with(main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])))
