"""program/cli.py: `ask --session ID` keeps the conversation in files, so a second process reads the first's turn."""

import contextlib
import json
from types import SimpleNamespace

import pytest

import program.factory
import program.lm.lm_profiles
from program.cli import main
from program.loop import GatedRAG
from tests.conftest import FakeSearch
from tests.program.fake_engine import DOCS, FOLLOW_UP, STANDALONE, signature_lm


@pytest.fixture
def scripted(monkeypatch):
    """Each `ask` builds a fresh program (as a new process would) over the scripted LM."""
    monkeypatch.setattr(program.factory, "build_program", lambda *_, **__: GatedRAG(FakeSearch(DOCS)))
    handle = SimpleNamespace(lm=signature_lm(), description="scripted")
    monkeypatch.setattr(program.lm.lm_profiles, "build_lm", lambda *_, **__: contextlib.nullcontext(handle))


def ask(capsys, tmp_path, question, *flags) -> dict:
    assert main(["ask", question, "--json", "--trace", "--data-dir", str(tmp_path), *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_follow_up_in_a_later_ask_reads_the_earlier_asks_turn_from_the_data_dir(scripted, capsys, tmp_path):
    ask(capsys, tmp_path, "Who is Shirley Temple?", "--session", "shell-1")
    body = ask(capsys, tmp_path, FOLLOW_UP, "--session", "shell-1")
    assert body["question"] == FOLLOW_UP and body["standalone_question"] == STANDALONE
    assert body["trace"]["steps"][0]["action"] == "contextualize"
    assert [p.name for p in (tmp_path / "sessions").iterdir()] == ["shell-1.json"]
    alone = ask(capsys, tmp_path, FOLLOW_UP)  # no --session: nothing carried over
    assert alone["standalone_question"] == "" and alone["trace"]["steps"][0]["action"] == "decompose"


def test_a_bad_session_id_is_a_one_line_error_and_writes_nothing(scripted, capsys, tmp_path):
    assert main(["ask", FOLLOW_UP, "--session", "../../etc/x", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: session id") and err.count("\n") == 1
    assert not (tmp_path / "sessions").exists()
