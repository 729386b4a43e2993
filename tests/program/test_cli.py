"""program/cli.py `ask`: the acceptance flags reach the loop, a bad one is a one-line error before anything loads, and
`--session ID` keeps the conversation in files, so a later `ask` (another process) reads the earlier one's turn;
`--no-cache` starts the LM without DSPy's response cache."""

from __future__ import annotations

import contextlib
import json
from types import SimpleNamespace

import pytest

import program.assembly.factory
import program.lm.lm_profiles
from program.cli import main
from program.loop import GatedRAG
from tests.conftest import FakeSearch
from tests.program.fake_engine import (
    DOCS,
    FOLLOW_UP,
    QUESTION,
    STANDALONE,
    signature_lm,
)


@pytest.fixture
def built(monkeypatch):
    """Records each program built; the LM is the scripted one of the serving tests."""
    programs = []

    def build(*_, **__):
        programs.append(GatedRAG(FakeSearch(DOCS)))
        return programs[-1]

    monkeypatch.setattr(program.assembly.factory, "build_program", build)
    handle = SimpleNamespace(lm=signature_lm(), description="scripted")
    monkeypatch.setattr(program.lm.lm_profiles, "build_lm", lambda *_, **__: contextlib.nullcontext(handle))
    return programs


@pytest.fixture
def lm_caches(built, monkeypatch):
    """The `cache` each `ask` starts its LM with."""
    caches, build_lm = [], program.lm.lm_profiles.build_lm

    def recording(settings, *, cache: bool):
        caches.append(cache)
        return build_lm(settings, cache=cache)

    monkeypatch.setattr(program.lm.lm_profiles, "build_lm", recording)
    return caches


def test_require_prohibit_and_check_reach_the_answer_contract(built, capsys, tmp_path):
    code = main(["ask", QUESTION, "--json", "--trace", "--data-dir", str(tmp_path), "--require", "Chief of Protocol",
                 "--require", "re:united\\s+states", "--prohibit", "ambassador", "--check", "aws_region"])
    body = json.loads(capsys.readouterr().out)
    a = body["acceptance"]
    assert code == 0 and a["criteria_given"] == 4 and a["failed"] == ["must name an AWS region code such as us-east-1"]
    # a failed criterion counts as its share: 3 of 4 met (no judge spoke), with full factuality, is over 0.7
    assert a["accepted"] and a["score_before"] == round(0.7 * 0.75 + 0.3 * a["factuality"]["score"], 3)
    assert [s["action"] for s in body["trace"]["steps"]][-1] == "score"


def test_a_bad_pattern_is_one_line_and_nothing_is_built(built, capsys, tmp_path):
    code = main(["ask", QUESTION, "--data-dir", str(tmp_path), "--require", "ok", "--prohibit", "re:(x"])
    err = capsys.readouterr().err
    assert code == 2 and built == []
    assert err == ("error: --prohibit 're:(x': not a regular expression this service runs in linear time (RE2 syntax: "
                   "no lookaround, no backreference, repeats up to 1000, bounded size): missing )\n")


def test_an_unknown_check_is_refused_by_the_parser(built, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        main(["ask", QUESTION, "--check", "spelling"])
    assert exit_.value.code == 2 and "invalid choice: 'spelling'" in capsys.readouterr().err and built == []


def ask(capsys, tmp_path, question, *flags) -> dict:
    assert main(["ask", question, "--json", "--trace", "--data-dir", str(tmp_path), *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_follow_up_in_a_later_ask_reads_the_earlier_asks_turn_from_the_data_dir(built, capsys, tmp_path):
    ask(capsys, tmp_path, "Who is Shirley Temple?", "--session", "shell-1")
    body = ask(capsys, tmp_path, FOLLOW_UP, "--session", "shell-1")
    assert body["question"] == FOLLOW_UP and body["standalone_question"] == STANDALONE
    assert body["trace"]["steps"][0]["action"] == "contextualize" and len(built) == 2  # a fresh program each time
    assert [p.name for p in (tmp_path / "sessions").glob("*.json")] == ["shell-1.json"]
    alone = ask(capsys, tmp_path, FOLLOW_UP)  # no --session: nothing carried over
    assert alone["standalone_question"] == "" and alone["trace"]["steps"][0]["action"] == "decompose"


def test_a_bad_session_id_is_a_one_line_error_and_writes_nothing(built, capsys, tmp_path):
    assert main(["ask", FOLLOW_UP, "--session", "../../etc/x", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: session id") and err.count("\n") == 1
    assert not (tmp_path / "sessions").exists() and built == []


def test_ask_reads_dspys_cache_unless_told_not_to(lm_caches, capsys, tmp_path):
    ask(capsys, tmp_path, QUESTION)
    ask(capsys, tmp_path, QUESTION, "--no-cache")
    assert lm_caches == [True, False]
