"""Summaries: every record counts, loop behaviour is tallied, slices by holdout and question type."""

import pytest

from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from optimize.eval.summary import MAIN, summarize
from tests.optimize.conftest import GOLD, HAND, FakeProgram, examples, score


@pytest.fixture
def records(tmp_path):
    log = RecordLog(tmp_path / "results.jsonl")
    gated = run_examples(FakeProgram(actions=("decompose", "retrieve", "draft", "query_docs", "answer")), examples(),
                         "gated", log, score, progress=False)
    wrong = FakeProgram(answers={GOLD["q1"][0]: "nobody"}, fail=GOLD["q2"][0], actions=("retrieve", "draft"))
    return gated + run_examples(wrong, examples(), "single_pass", log, score, progress=False)


def test_systems_keep_their_order_and_count_every_record(records):
    summary = summarize(records, "run-1", split="smoke", dataset="hotpotqa", program="uncompiled", profile="local",
                        model="m", judge="lexical")
    gated, single = summary.systems
    assert (gated.system, single.system) == ("gated", "single_pass")
    assert single.n == 3 and single.status == {"ok": 2, "error": 1}
    assert gated.metrics["exact_match"].mean == 1.0
    assert single.metrics["exact_match"].mean == pytest.approx(1 / 3)  # the error counts as a miss


def test_actions_iterations_and_endings_are_tallied(records):
    gated, single = summarize(records, "r", split="", dataset="", program="", profile="", model="", judge="").systems
    assert gated.actions["query_docs"] == 3 and gated.iterations == {"2": 3} and gated.ended == {"answered": 3}
    assert single.actions == {"retrieve": 2, "draft": 2}  # the errored example has no trace


def test_slices_by_holdout_and_type_and_the_worst_first(records):
    gated, single = summarize(records, "r", split="", dataset="", program="", profile="", model="", judge="").systems
    assert set(gated.by_holdout) == {"web holdout", "local only"}
    assert gated.by_holdout["web holdout"]["exact_match"].n == 2
    assert set(gated.by_type) == {"bridge", "comparison", "factual"} and set(gated.by_type["bridge"]) == set(MAIN)
    assert single.worst[0] in {"q1", "q2"} and set(single.worst) == {"q1", "q2", "q3"}


def test_abstention_web_use_cost_and_gate_rules_are_counted():
    [gated] = summarize(HAND, "r", split="", dataset="", program="", profile="", model="", judge="").systems
    assert gated.metrics["abstained"].mean == pytest.approx(2 / 5)
    # searched the web: a, c, d; of those with a held-out paragraph: a, d -> precision 2/3
    assert (gated.web_precision.hits, gated.web_precision.n) == (2, 3) and str(gated.web_precision) == "0.67 (2/3)"
    # held-out paragraph: a, b, d; of those that searched the web: a, d -> recall 2/3
    assert (gated.web_recall.hits, gated.web_recall.n) == (2, 3)
    assert gated.metrics["lm_calls"].mean == 4 and gated.metrics["prompt_tokens"].mean == 900
    assert gated.rules == {"covered_with_cliff": 2, "out_of_time": 1}  # the empty rule is skipped


def test_web_use_has_no_rate_without_questions_to_count():
    [gated] = summarize(HAND[-1:], "r", split="", dataset="", program="", profile="", model="", judge="").systems
    assert gated.web_precision.rate is None and gated.web_recall.rate is None and str(gated.web_recall) == "–"
    assert gated.rules == {}


def test_abstention_is_split_by_answerable_and_metrics_that_do_not_apply_are_left_out():
    from optimize.eval.summary import summarize_system

    unanswerable = [r.model_copy(update={"answerable": False}) for r in HAND[2:4]]  # c abstained, d did not
    for r in unanswerable:
        r.scores = r.scores.model_copy(update={"evidence_recall": None})
    system = summarize_system(HAND[:2] + unanswerable + HAND[4:])
    assert str(system.abstained_answerable) == "0.33 (1/3)" and str(system.abstained_unanswerable) == "0.50 (1/2)"
    assert system.metrics["evidence_recall"].n == 3 and system.metrics["composite"].n == 5


def test_outcomes_count_a_broken_question_as_abstained_and_records_scored_before_them_give_none(records):
    summary = summarize(records, "run-1", split="smoke", dataset="hotpotqa", program="uncompiled", profile="local",
                        model="m", judge="lexical")
    single = summary.systems[1]
    assert (single.outcomes.right, single.outcomes.wrong, single.outcomes.abstained) == (1, 1, 1)
    assert single.risk_coverage.answered == 2 and single.risk_coverage.questions == 3
    old = summarize(HAND, "run-2", split="smoke", dataset="hotpotqa", program="uncompiled", profile="local",
                    model="m", judge="lexical").systems[0]
    assert old.outcomes is None and old.risk_coverage is None and old.metrics["net_right"].n == 0
