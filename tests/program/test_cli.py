"""program/cli.py `ask`: the acceptance flags reach the loop, and a bad one is a one-line error before anything loads."""

from __future__ import annotations

import contextlib
import json
from types import SimpleNamespace

import pytest

import program.factory
import program.lm.lm_profiles
from program.cli import main
from program.loop import GatedRAG
from tests.conftest import FakeSearch
from tests.program.fake_engine import DOCS, QUESTION, signature_lm


@pytest.fixture
def built(monkeypatch):
    """Records each program built; the LM is the scripted one of the serving tests."""
    programs = []

    def build(*_, **__):
        programs.append(GatedRAG(FakeSearch(DOCS)))
        return programs[-1]

    monkeypatch.setattr(program.factory, "build_program", build)
    handle = SimpleNamespace(lm=signature_lm(), description="scripted")
    monkeypatch.setattr(program.lm.lm_profiles, "build_lm", lambda *_, **__: contextlib.nullcontext(handle))
    return programs


def test_require_prohibit_and_check_reach_the_answer_contract(built, capsys, tmp_path):
    code = main(["ask", QUESTION, "--json", "--trace", "--data-dir", str(tmp_path), "--require", "Chief of Protocol",
                 "--require", "re:united\\s+states", "--prohibit", "ambassador", "--check", "aws_region"])
    body = json.loads(capsys.readouterr().out)
    a = body["acceptance"]
    assert code == 0 and a["criteria_given"] == 4 and a["failed"] == ["must name an AWS region code such as us-east-1"]
    # a failed criterion counts as its share: 3 of 4 met x the judge's 0.9, with full factuality, is over 0.7
    assert a["accepted"] and a["score_before"] == round(0.7 * 0.75 * 0.9 + 0.3 * a["factuality"]["score"], 3)
    assert [s["action"] for s in body["trace"]["steps"]][-1] == "score"


def test_a_bad_pattern_is_one_line_and_nothing_is_built(built, capsys, tmp_path):
    code = main(["ask", QUESTION, "--data-dir", str(tmp_path), "--require", "ok", "--prohibit", "re:(x"])
    err = capsys.readouterr().err
    assert code == 2 and built == []
    assert err == "error: --prohibit 're:(x': not a valid regular expression: missing ) at position 2\n"


def test_an_unknown_check_is_refused_by_the_parser(built, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        main(["ask", QUESTION, "--check", "spelling"])
    assert exit_.value.code == 2 and "invalid choice: 'spelling'" in capsys.readouterr().err and built == []
