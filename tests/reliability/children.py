"""Entry points as child processes for the reliability tests: this tree's code, no keys or Qdrant URL from the
environment, the web off, and an LM that cannot be reached, so no test starts the local model. Not a test itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLOSED_URL = "http://127.0.0.1:9"  # nothing listens on the discard port


def run(*args: str, timeout_s: float = 180, **env: str) -> subprocess.CompletedProcess:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("GATEDRAG_")
            and k not in ("OPENAI_API_KEY", "TAVILY_API_KEY", "QDRANT_URL", "QDRANT_API_KEY", "MLFLOW_TRACKING_URI")}
    env = kept | {"PYTHONPATH": str(ROOT), "GATEDRAG_PROFILE": "openai", "OPENAI_API_KEY": "sk-test",
                  "OPENAI_BASE_URL": CLOSED_URL, "GATEDRAG_WEB_BACKEND": "none"} | env
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=timeout_s)


def one_line_error(done: subprocess.CompletedProcess, names: str) -> str:
    """The single stderr line of a run that must have failed with exit 1, naming `names`."""
    lines = done.stderr.strip().splitlines()
    assert (done.returncode, len(lines)) == (1, 1), done.stderr
    assert lines[0].startswith("error: ") and names in lines[0], lines[0]
    return lines[0]
