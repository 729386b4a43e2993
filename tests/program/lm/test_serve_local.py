"""program/lm/serve_local.py: the bundled model served by a process of its own, as a user's llama-server is, and
`python -m program ask` answering through it as an API LM (GATEDRAG_LM=openai/..., GATEDRAG_LM_API_BASE), not
through the in-process local profile."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from program.base.settings import PROJECT_ROOT

MODEL = "openai/qwen2.5-coder-0.5b"
QUESTION = "Who is the Eiffel Tower named after?"


def command(*args: str, env: dict[str, str], timeout_s: float = 1800) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=timeout_s,
                          cwd=PROJECT_ROOT)


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    """This environment without any LM setting or key, and a data folder of the test's own."""
    kept = {k: v for k, v in os.environ.items()
            if not k.startswith("GATEDRAG_") and not k.endswith("_API_KEY") and not k.endswith("_API_BASE")}
    return kept | {"PYTHONPATH": str(PROJECT_ROOT), "GATEDRAG_DATA_DIR": str(tmp_path / "data")}


@pytest.fixture
def api_base(env):
    """The API base of `python -m program.lm.serve_local` on a free port, stopped after the test."""
    server = subprocess.Popen([sys.executable, "-m", "program.lm.serve_local", "--port", "0"], env=env,
                              stdout=subprocess.PIPE, text=True, cwd=PROJECT_ROOT)
    try:
        announced = server.stdout.readline()  # printed once the server is healthy; "" if it failed
        found = re.search(r" at (http://127\.0\.0\.1:\d+/v1);", announced)
        assert found, f"the server did not start: {announced!r}"
        yield found.group(1)
    finally:
        server.terminate()
        server.wait(timeout=60)


@pytest.mark.real_lm
def test_ask_answers_through_the_bundled_model_served_by_another_process(env, api_base, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "eiffel.md").write_text("# The Eiffel Tower\n\nThe Eiffel Tower is a wrought-iron lattice tower in Paris. "
                                    "It is named after the engineer Gustave Eiffel, whose company built it.\n")
    ingested = command("-m", "program", "ingest", str(docs), "--collection", "docs", "--no-progress", env=env)
    assert ingested.returncode == 0, ingested.stderr
    asked = command("-m", "program", "ask", QUESTION, "--json", "--collection", "docs", "--web", "none", "--no-cache",
                    env=env | {"GATEDRAG_LM": MODEL, "GATEDRAG_LM_API_BASE": api_base})
    assert asked.returncode == 0, asked.stderr
    assert f"profile: {MODEL} via DSPy at {api_base}" in asked.stderr  # not the in-process llama.cpp
    body = json.loads(asked.stdout)
    assert not body["abstained"] and "Eiffel" in body["answer"] and body["citations"]

