"""A results log cut anywhere by a kill still resumes: inside a multi-byte UTF-8 character or mid-line,
the torn last line is dropped, cut off before the next append, and no finished record is lost or
written twice; a resumed eval says what it recovered."""

from __future__ import annotations

import pytest

from optimize.eval.evaluate import RESULTS, run_eval
from optimize.eval.question_traces import trace_urls
from optimize.eval.records import RecordLog, Recovery
from optimize.eval.run_config import EvalConfig
from tests.optimize.conftest import FakeProgram, examples, hand_record, score

# non-ASCII questions, so the log's lines hold 2-, 3- and 4-byte UTF-8 characters
QIDS = ["Müller", "東京の人口", "emoji 🎉 Ω"]


def log_with_two_and_a_torn_third(path, cut: int) -> bytes:
    """A log holding two finished records, then the first `cut` bytes of a third one's line."""
    log = RecordLog(path)
    for qid in QIDS[:2]:
        log.append(hand_record(qid))
    third = hand_record(QIDS[2]).model_dump_json().encode("utf-8") + b"\n"
    with path.open("ab") as out:
        out.write(third[:cut])
    return third


def cuts_inside_characters(line: bytes) -> list[int]:
    """Cut points that split a multi-byte UTF-8 character (just after a lead or continuation byte)."""
    return [i for i in range(1, len(line)) if line[i] & 0b1100_0000 == 0b1000_0000]


def test_the_third_line_holds_multi_byte_characters_to_cut():
    third = hand_record(QIDS[2]).model_dump_json().encode("utf-8")
    assert len(cuts_inside_characters(third)) >= 4  # the test below would be vacuous otherwise


@pytest.mark.parametrize("where", ["inside_a_character", "mid_line", "before_the_newline"])
def test_a_log_cut_by_a_kill_keeps_every_finished_record_and_drops_the_torn_one(tmp_path, where):
    path = tmp_path / RESULTS
    line = hand_record(QIDS[2]).model_dump_json().encode("utf-8") + b"\n"
    cut = {"inside_a_character": cuts_inside_characters(line)[0], "mid_line": len(line) // 2,
           "before_the_newline": len(line) - 1}[where]
    log_with_two_and_a_torn_third(path, cut)
    records, recovery = RecordLog(path).scan()
    assert [r.qid for r in records] == QIDS[:2]
    assert recovery == Recovery(kept=2, torn_tail_bytes=cut)


def test_every_cut_point_of_the_last_line_resumes_to_exactly_three_records(tmp_path):
    line = hand_record(QIDS[2]).model_dump_json().encode("utf-8") + b"\n"
    for cut in range(len(line) + 1):
        path = tmp_path / f"cut{cut}.jsonl"
        log_with_two_and_a_torn_third(path, cut)
        log = RecordLog(path)
        if len(log.read()) == 2:  # the third had not finished: a resumed run appends it again
            log.append(hand_record(QIDS[2]))
        assert [r.qid for r in log.read()] == QIDS, f"cut at byte {cut}"
        assert path.read_bytes().count(b"\n") == 3 and path.read_bytes().endswith(b"\n"), f"cut at byte {cut}"


def test_an_append_after_a_torn_tail_starts_a_clean_line(tmp_path):
    path = tmp_path / RESULTS
    third = log_with_two_and_a_torn_third(path, 40)
    RecordLog(path).append(hand_record(QIDS[2]))
    assert path.read_bytes().splitlines(keepends=True)[-1] == third
    assert RecordLog(path).scan()[1] == Recovery(kept=3)


def test_a_resumed_eval_reports_what_it_recovered_and_runs_only_the_rest(settings, tmp_path, capsys):
    config = EvalConfig(split="smoke", systems=["gated"], profile="local", model="fake")
    first = RecordLog(tmp_path / RESULTS)
    first.append(hand_record("q1").model_copy(update={"question": "Wer ist Müller?"}))
    torn = '{"qid": "q2", "question": "Wo liegt Zü'.encode("utf-8")[:-1]  # killed between the two bytes of "ü"
    with first.path.open("ab") as out:
        out.write(torn)
    program = FakeProgram()
    summary = run_eval(config, settings, tmp_path, {"gated": program}, examples("q1", "q2", "q3"), score, progress=False)
    assert summary.recovered == Recovery(kept=1, torn_tail_bytes=len(torn))
    said = f"resuming from {first.path}: kept 1 finished record(s), dropped a torn last line ({len(torn)} bytes)"
    assert said in capsys.readouterr().err
    assert len(program.calls) == 2  # q2 and q3; q1 was kept
    assert [r.qid for r in first.read()] == ["q1", "q2", "q3"]


def test_a_fresh_eval_reports_nothing_recovered(settings, tmp_path, capsys):
    config = EvalConfig(split="smoke", systems=["gated"], profile="local", model="fake")
    summary = run_eval(config, settings, tmp_path, {"gated": FakeProgram()}, examples("q1"), score, progress=False)
    assert summary.recovered is None and "resuming" not in capsys.readouterr().err


def test_a_record_finished_before_a_kill_cut_off_its_trace_gets_one_on_resume(settings, tmp_path):
    config = EvalConfig(split="smoke", systems=["gated"], profile="local", model="fake")
    RecordLog(tmp_path / RESULTS).append(hand_record("q1"))  # its trace line was never written
    program = FakeProgram()
    run_eval(config, settings, tmp_path, {"gated": program}, examples("q1", "q2"), score, progress=False)
    assert len(program.calls) == 1  # q1 is not run again
    assert set(trace_urls(tmp_path)) == {("gated", "q1"), ("gated", "q2")}
