"""optimize/eval/multiturn.py: turn 2 with sessions on and off, scored, resumable; a scripted LM, a fake search."""

import contextlib
import json
from types import SimpleNamespace

import pytest

import program.lm.lm_profiles
from optimize.eval import multiturn
from optimize.eval.multiturn import main, summarize
from program.loop import GatedRAG
from tests.conftest import FakeSearch, passage
from tests.program.fake_engine import signature_lm

STANDALONE = "What government position did Shirley Temple hold?"
PAGES = [passage("Shirley Temple", "Shirley Temple was named Chief of Protocol of the United States in 1976.",
                 similarity=0.8)]


@pytest.fixture
def scripted(monkeypatch):
    lm = signature_lm(answer={"short_answer": "Chief of Protocol", "answer": "Chief of Protocol [1]."},
                      standalone={"standalone_question": STANDALONE})
    monkeypatch.setattr(multiturn, "build_program", lambda *_, **__: GatedRAG(FakeSearch(PAGES)))
    lm.emptied = []  # the prompt caches emptied, one mode each
    handle = SimpleNamespace(lm=lm, description="scripted", empty_prompt_cache=lambda: lm.emptied.append(1))
    monkeypatch.setattr(program.lm.lm_profiles, "build_lm", lambda *_, **__: contextlib.nullcontext(handle))
    return lm


def test_sessions_on_find_the_page_the_pronoun_hid_and_a_rerun_resumes(scripted, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["--limit", "1", "--out", str(out), "--data-dir", str(tmp_path), "--web", "none"]) == 0
    rows = {r["mode"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert rows["on"]["standalone_question"] == STANDALONE and rows["on"]["rule"] == "pronoun"
    assert rows["on"]["evidence_recall"] == 1.0 and rows["on"]["f1"] == 1.0
    assert rows["on"]["turn1_ended"] == "answered" and rows["on"]["turn1_short_answer"] == "Chief of Protocol"
    assert rows["off"]["standalone_question"] == "" and rows["off"]["evidence_recall"] == 0.0
    assert rows["off"]["turn1_ended"] == ""  # off never asks turn 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["conversations"] == 1 and summary["on_minus_off"]["evidence_recall"]["mean"] == 1.0
    assert "sessions on: F1 1.000" in capsys.readouterr().out
    calls = len(scripted.history)
    assert len(scripted.emptied) == 2  # before each mode
    assert main(["--limit", "1", "--out", str(out), "--data-dir", str(tmp_path), "--web", "none"]) == 0
    assert len(scripted.history) == calls and len((out / "results.jsonl").read_text().splitlines()) == 2
    assert len(scripted.emptied) == 2  # nothing left to run


def test_a_folder_holding_a_run_with_other_settings_is_refused(scripted, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["--limit", "1", "--out", str(out), "--data-dir", str(tmp_path), "--web", "none"]) == 0
    assert main(["--limit", "1", "--out", str(out), "--data-dir", str(tmp_path), "--web", "none", "--timeout", "9"]) == 2
    assert "holds a run with other settings" in capsys.readouterr().err


def test_the_summary_pairs_conversations_both_modes_finished():
    def row(qid, mode, f1, recall, held_out=False):
        return {"qid": qid, "mode": mode, "f1": f1, "evidence_recall": recall, "seconds": 1.0, "held_out": held_out,
                "standalone_question": "q" if mode == "on" else "", "fallback": False, "rewrite_prompt_tokens": 0}

    rows = [row("a", "off", 0.0, 0.0), row("a", "on", 1.0, 1.0), row("b", "off", 0.5, 1.0, True),
            row("b", "on", 0.5, 1.0, True), row("c", "off", 1.0, 1.0)]  # c: on never finished
    summary = summarize(rows, {"a", "b", "c"})
    assert summary["conversations"] == 2 and summary["modes"]["on"]["rewritten"] == 2
    assert summary["on_minus_off"]["f1"]["mean"] == 0.5 and summary["on_minus_off"]["evidence_recall"]["mean"] == 0.5
    assert summary["modes"]["off"]["evidence_recall"]["page_on_web_only"]["mean"] == 1.0
