"""The results log: appended per record, read back for resuming, robust to a line cut short."""

from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from tests.optimize.conftest import FakeProgram, examples, score


def test_a_line_cut_short_is_skipped_and_the_next_record_starts_a_fresh_line(tmp_path):
    log = RecordLog(tmp_path / "results.jsonl")
    run_examples(FakeProgram(), examples("q1"), "gated", log, score, progress=False)
    with log.path.open("a") as out:
        out.write('{"qid": "q2", "sys')  # killed mid-write
    assert [r.qid for r in log.read()] == ["q1"]
    run_examples(FakeProgram(), examples("q1", "q2"), "gated", log, score, progress=False)
    assert [r.qid for r in log.read()] == ["q1", "q2"]


def test_the_first_record_of_a_question_wins(tmp_path):
    log = RecordLog(tmp_path / "results.jsonl")
    [record] = run_examples(FakeProgram(), examples("q1"), "gated", log, score, progress=False)
    log.append(record.model_copy(update={"status": "error"}))
    assert [r.status for r in log.read()] == ["ok"]


def test_question_type_falls_back_to_the_programs_own(tmp_path):
    log = RecordLog(tmp_path / "results.jsonl")
    [record] = run_examples(FakeProgram(), examples("q3"), "gated", log, score, progress=False)
    assert record.hotpot_type == "" and record.question_type == "factual"
