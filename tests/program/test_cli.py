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


@pytest.fixture
def no_lm_env(monkeypatch):
    for name in ("GATEDRAG_LM", "GATEDRAG_PROFILE", "GATEDRAG_LM_API_BASE", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def fake_server():
    from tests.program.fake_openai import FakeOpenAI

    server = FakeOpenAI()
    yield server
    server.close()


def test_ask_reaches_an_openai_compatible_server_named_by_gatedrag_lm_and_its_api_base(
        monkeypatch, no_lm_env, fake_server, capsys, tmp_path):
    monkeypatch.setattr(program.assembly.factory, "build_program", lambda *_, **__: GatedRAG(FakeSearch(DOCS)))
    monkeypatch.setenv("GATEDRAG_LM", "openai/fake")
    monkeypatch.setenv("GATEDRAG_LM_API_BASE", fake_server.api_base)
    main(["ask", QUESTION, "--data-dir", str(tmp_path), "--no-cache"])
    assert f"profile: openai/fake via DSPy at {fake_server.api_base}" in capsys.readouterr().err
    assert fake_server.bodies and {body["model"] for body in fake_server.bodies} == {"fake"}


@pytest.mark.parametrize(("env", "says"), [
    ({"GATEDRAG_LM": "nosuch/model"}, "error: GATEDRAG_LM 'nosuch/model': unknown provider 'nosuch'"),
    ({"GATEDRAG_LM": "anthropic/claude-3-5-haiku-latest"},
     "error: ANTHROPIC_API_KEY is not set, and GATEDRAG_LM anthropic/claude-3-5-haiku-latest needs it"),
    ({"GATEDRAG_LM": "openai/local", "GATEDRAG_LM_API_BASE": "http://127.0.0.1:{port}/v1"},
     "error: GATEDRAG_LM_API_BASE http://127.0.0.1:{port}/v1: nothing answers at 127.0.0.1:{port}"),
])
@pytest.mark.parametrize("command", [["ask", QUESTION], ["serve"], ["mcp"]])
def test_a_bad_lm_setting_is_one_line_naming_the_variable_before_anything_is_built(
        monkeypatch, no_lm_env, built, capsys, tmp_path, env, says, command):
    import socket

    with socket.socket() as sock:  # a loopback port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(port=port))
    assert main([*command, "--data-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(says.format(port=port)) and err.count("\n") == 1
    assert built == [] and list(tmp_path.iterdir()) == []


def test_the_profile_flag_takes_a_model_string_and_wins_over_gatedrag_lm(monkeypatch, no_lm_env, built, capsys, tmp_path):
    monkeypatch.setenv("GATEDRAG_LM", "openai/gpt-4o-mini")
    assert main(["ask", QUESTION, "--profile", "nosuch/x", "--data-dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith("error: GATEDRAG_LM 'nosuch/x': unknown provider")
