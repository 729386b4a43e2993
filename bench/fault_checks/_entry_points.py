"""Run a gatedrag entry point in a child process and judge how it ended: one line on stderr, exit 1, no traceback.

Children run this tree's code (the project root as cwd and on PYTHONPATH), with no keys or Qdrant
URL from the environment, the web off, and an LM that cannot be reached (the openai profile with a
dummy key against a closed port): no check ever starts the local model or leaves the machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass

from program.base.settings import PROJECT_ROOT

CLOSED_URL = "http://127.0.0.1:9"  # the discard port: nothing listens there
_DROPPED = ("OPENAI_API_KEY", "TAVILY_API_KEY", "QDRANT_URL", "QDRANT_API_KEY", "MLFLOW_TRACKING_URI")


@dataclass(frozen=True)
class Ended:
    name: str
    code: int | None  # None: killed at the time limit
    stderr: str
    seconds: float

    def one_line_error(self, *names: str) -> bool:
        """Exit 1 with exactly one stderr line, `error: ...`, naming each of `names`; no traceback."""
        lines = self.stderr.strip().splitlines()
        return (self.code == 1 and len(lines) == 1 and lines[0].startswith("error: ")
                and all(name in lines[0] for name in names))

    def why(self) -> str:
        """What a run that missed the bar did, in one line, for the figure."""
        lines = self.stderr.strip().splitlines()
        said = lines[-1][:160] if lines else "(no stderr)"
        return f"{self.name}: exit {self.code}, {len(lines)} stderr line(s), last: {said}"


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED and not k.startswith("GATEDRAG_")}
    return env | {"PYTHONPATH": str(PROJECT_ROOT), "GATEDRAG_PROFILE": "openai", "OPENAI_API_KEY": "sk-fault-check",
                  "OPENAI_BASE_URL": CLOSED_URL, "OPENAI_API_BASE": CLOSED_URL, "GATEDRAG_WEB_BACKEND": "none"} | extra


def run_child(name: str, args: list[str], env: dict[str, str], timeout_s: float = 180) -> Ended:
    """`python <args>` in a child; one still running at `timeout_s` is killed and counts as a miss."""
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, *args], cwd=PROJECT_ROOT, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout_s)
        code, stderr = done.returncode, done.stderr
    except subprocess.TimeoutExpired as expired:
        code, stderr = None, (expired.stderr or b"").decode(errors="replace") + "\n(killed at the time limit)"
    return Ended(name, code, stderr, time.monotonic() - started)
