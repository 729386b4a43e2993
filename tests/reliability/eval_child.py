"""A tiny eval run for the SIGTERM test, started as `python -m tests.reliability.eval_child RUN_FOLDER DATA_DIR`.

It takes the eval command's path: SIGTERM turned into Ctrl-C as `python -m optimize` does, one
fast question (q1) and one that sleeps for a minute (q2), an MLflow run in DATA_DIR's SQLite
store, and exit code 130 on an interrupt. Not a test itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

import program  # noqa: F401  (sets the offline env vars before anything imports litellm)
from optimize.eval.evaluate import run_eval
from optimize.eval.run_config import EvalConfig
from optimize.sigterm import interrupt_on_sigterm
from program.base.command_line import INTERRUPTED, exit_with
from program.base.settings import Settings
from tests.optimize.conftest import GOLD, FakeProgram, examples, score

SLOW_S = 60.0


def main(folder: Path, data_dir: Path) -> int:
    config = EvalConfig(split="smoke", systems=["gated"], profile="local", model="fake")
    settings = Settings(data_dir=data_dir, mlflow_tracking_uri=None, openai_api_key=None, tavily_api_key=None)
    slow = FakeProgram(sleep_s={GOLD["q2"][0]: SLOW_S})
    try:
        run_eval(config, settings, folder, {"gated": slow}, examples("q1", "q2"), score, progress=False)
    except KeyboardInterrupt:
        return INTERRUPTED
    return 0


if __name__ == "__main__":
    interrupt_on_sigterm()
    exit_with(main(Path(sys.argv[1]), Path(sys.argv[2])))
