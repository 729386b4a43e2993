"""Comparing two runs: paired deltas over shared questions, and the questions that flipped."""

import re

import pytest

from optimize.eval.compare import compare_runs, comparison_blocks, text_table
from optimize.eval.document import to_markdown
from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from tests.optimize.conftest import GOLD, FakeProgram, examples, score


def records(tmp_path, name, program, qids=()):
    return run_examples(program, examples(*qids), "gated", RecordLog(tmp_path / f"{name}.jsonl"), score, progress=False)


@pytest.fixture
def comparison(tmp_path):
    a = records(tmp_path, "a", FakeProgram(answers={GOLD["q1"][0]: "nobody"}))  # q1 wrong in A
    b = records(tmp_path, "b", FakeProgram(answers={GOLD["q2"][0]: "Beta"}), ("q1", "q2"))  # q2 wrong in B; no q3
    return compare_runs("run-a", a, "run-b", b)


def test_deltas_are_b_minus_a_over_shared_questions(comparison):
    [system] = comparison.systems
    assert system.system == "gated" and system.n == 2
    em = next(d for d in system.deltas if d.metric == "exact_match")
    assert (em.a, em.b, em.delta.mean) == (0.5, 0.5, 0.0)
    assert em.delta.low < 0 < em.delta.high


def test_flipped_questions_name_the_change_and_both_answers(comparison):
    flips = {f.qid: f for f in comparison.systems[0].flips}
    assert set(flips) == {"q1", "q2"}
    assert flips["q1"].change.startswith("EM 0->1") and "nobody" in flips["q1"].answer_a
    assert flips["q2"].change.startswith("EM 1->0") and flips["q2"].answer_b.startswith("Beta")
    assert flips["q1"].question == GOLD["q1"][0] and flips["q1"].gold == "Richard Wallace"


def test_the_text_table_is_aligned_and_the_markdown_lists_flips(comparison):
    text = text_table(comparison)
    header, em = (next(line for line in text.splitlines() if line.startswith(s)) for s in ("metric", "exact_match"))
    assert header.index("B-A") == em.index("+0.000") and header.index("95% CI") == em.index("[-1.000")
    seconds = next(line for line in text.splitlines() if line.startswith("seconds / question"))  # named as in the report
    assert re.match(r"seconds / question +\d+\.\d +\d+\.\d +[+-]\d+\.\d +\[[+-]\d+\.\d, [+-]\d+\.\d\]", seconds)  # tenths
    markdown = to_markdown(comparison_blocks(comparison), ".")
    assert "2 flipped" in markdown and "| q1 | EM 0->1" in markdown


def test_runs_without_a_shared_system_compare_nothing(tmp_path):
    a = records(tmp_path, "a", FakeProgram())
    b = run_examples(FakeProgram(), examples(), "single_pass", RecordLog(tmp_path / "b.jsonl"), score, progress=False)
    assert compare_runs("a", a, "b", b).systems == []
