"""Canary secrets: a key set in every key variable never comes out in logs, the CLI's error line, result
warnings, results.jsonl or /readyz, however the error that carries it is induced.

The canaries (`tests.reliability.canaries`) have no key-like prefix, so they are caught only because
Settings handed them to `program.base.redaction`; the key patterns (sk-, tvly-, Bearer) are tested on their own.
"""

from __future__ import annotations

import argparse
import logging
import time
import typing

import dspy
import pytest
from pydantic import SecretStr

from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from program.base.command_line import run_command
from program.base.redaction import MARKER, redact
from program.base.settings import Settings
from program.retrieval.web_search import WebSearchError
from program.serving.answerer import Answerer
from tests.conftest import FakeWeb, scripted_lm
from tests.optimize.conftest import examples, result, score
from tests.program.serving.test_service import serving
from tests.program.test_loop import CLIFF, UNKNOWN, WEB, draft, run, verdict
from tests.reliability.canaries import CANARIES, LEAK, hits


@pytest.fixture
def config(monkeypatch, tmp_path) -> Settings:
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    return Settings(_env_file=None, data_dir=tmp_path, profile="local", web_backend="offline")


def test_every_secret_setting_has_a_canary():
    secret = {field.validation_alias.choices[0] if field.validation_alias else f"GATEDRAG_{name.upper()}"
              for name, field in Settings.model_fields.items() if SecretStr in typing.get_args(field.annotation)}
    assert secret == set(CANARIES)


def test_key_shaped_text_is_redacted_without_being_known():
    text = redact("sk-proj-AbCdEf0123456789xyz and tvly-dev-0123456789abcdefXYZ and Authorization: Bearer abc.def-123456")
    assert text == f"{MARKER} and {MARKER} and Authorization: Bearer {MARKER}"


def test_logs_and_the_cli_error_line_never_show_a_key(config, capsys, caplog, restore_logging):
    def failing(args):
        logging.getLogger("program.probe").error("search failed: %s", LEAK)
        try:
            raise ConnectionError(LEAK)
        except ConnectionError:
            logging.getLogger("optimize.probe").exception("load failed")
        raise RuntimeError(LEAK)

    assert run_command(argparse.Namespace(run=failing)) == 1
    captured = capsys.readouterr()
    assert hits(caplog.text + captured.out + captured.err) == []
    assert caplog.text.count(MARKER) == 2 * len(CANARIES) and MARKER in captured.err


def test_result_warnings_never_show_a_key(config):
    class Leaky:
        def __call__(self, query, k):
            raise RuntimeError(LEAK)

    stopped = run(scripted_lm(), search=Leaky())

    class LeakyWeb(FakeWeb):
        def search(self, query, max_results=None, seconds_left=None):
            raise WebSearchError(LEAK)

    # an "unknown" over a clear hit: the judge is asked, and names a gap the web is searched for
    lm = scripted_lm(UNKNOWN, verdict(False, 0.1, ["w"]), draft("Shirley Temple", "Shirley Temple [1]."))
    searched = run(lm, docs=CLIFF, web=LeakyWeb(WEB))
    assert stopped.trace.ended == "error" and any(MARKER in w for w in searched.warnings)
    assert hits(stopped.model_dump_json() + searched.model_dump_json()) == []


def test_results_records_never_show_a_key(config, tmp_path):
    class Crashing(dspy.Module):
        def forward(self, question, time_limit_s=None):
            raise RuntimeError(LEAK)

    class Leaky(dspy.Module):  # its own warnings, not through the loop's: the file is redacted as written
        def forward(self, question, time_limit_s=None):
            r = result(question, "x", [], actions=("decompose",), ended="error")
            r.warnings = [LEAK]
            return dspy.Prediction(answer=r.answer, result=r, evidence=[])

    log = RecordLog(tmp_path / "results.jsonl")
    crashed = run_examples(Crashing(), examples("q1"), "crash", log, score, progress=False)
    ended = run_examples(Leaky(), examples("q1"), "ended", log, score, progress=False)
    assert [r.status for r in crashed + ended] == ["error", "error"]
    assert hits("".join(r.model_dump_json() for r in crashed + ended)) == []  # what reports are built from
    written = log.path.read_text(encoding="utf-8")
    # the crash's error, then the ended record's error and the warning it repeats
    assert hits(written) == [] and written.count(MARKER) == 3 * len(CANARIES)


def test_readyz_never_shows_a_key(config):
    def load():
        raise RuntimeError(LEAK)

    with serving(Answerer(load, config), config, wait_ready=False) as client:
        while (ready := client.get("/readyz")).json()["status"] == "loading":
            time.sleep(0.01)
        refused = client.post("/answer", json={"question": "Who directed Kiss and Tell?"},
                              headers={"Authorization": f"Bearer {CANARIES['GATEDRAG_API_TOKEN']}"})
    assert ready.status_code == 503 and refused.status_code == 503
    assert hits(ready.text + refused.text) == [] and MARKER in ready.json()["detail"]


def test_a_provider_key_read_for_the_lm_is_redacted_like_a_setting(monkeypatch, capsys, restore_logging):
    from program.lm.lm_profiles import build_lm

    key = "canary-anthropic-7c6b5a4f3e"  # no key-like prefix: only the memory of keys read can catch it
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    handle = build_lm(Settings(_env_file=None, profile="anthropic/claude-3-5-haiku-latest"))
    assert key not in handle.description + repr(handle)

    def failing(args):
        logging.getLogger("program.probe").error("the provider said: key %s rejected", key)
        raise RuntimeError(f"the provider said: key {key} rejected")

    assert run_command(argparse.Namespace(run=failing)) == 1
    assert key not in capsys.readouterr().err
