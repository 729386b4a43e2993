"""program/answer/acceptance.py: w_judge x judge + w_fact x factuality, with the judge part built from what exists."""

import pytest

from program.answer.acceptance import acceptance, score_answer
from program.answer.criteria import CriteriaReport
from program.contract.result import Factuality
from program.thresholds import Thresholds

T = Thresholds()
NONE = CriteriaReport(given=0, failed=())
HALF = CriteriaReport(given=2, failed=('must mention "us-east-1"',))


def fact(score, contradictions=()):
    return Factuality(score=score, support=score, claims=1, contradictions=list(contradictions))


def test_the_judge_part_is_the_criteria_met_times_the_judges_confidence():
    s = score_answer(HALF, verdict=0.8, factuality=fact(1.0), t=T)
    assert s.judge == pytest.approx(0.4) and s.total == pytest.approx(0.7 * 0.4 + 0.3 * 1.0)


def test_criteria_alone_or_a_verdict_alone_is_the_judge_part():
    assert score_answer(HALF, None, fact(0.5), T).total == pytest.approx(0.7 * 0.5 + 0.3 * 0.5)
    assert score_answer(NONE, 0.9, fact(0.5), T).total == pytest.approx(0.7 * 0.9 + 0.3 * 0.5)


def test_with_neither_the_score_is_factuality_alone():
    s = score_answer(NONE, None, fact(0.62), T)
    assert s.judge is None and s.total == 0.62


def test_the_weights_are_thresholds_and_are_normalised():
    t = Thresholds(judge_weight=1.0, factuality_weight=1.0)
    assert score_answer(NONE, 0.4, fact(1.0), t).total == pytest.approx(0.7)
    with pytest.raises(ValueError):
        Thresholds(judge_weight=0.0, factuality_weight=0.0)


def test_what_failed_lists_the_criteria_then_the_contradictions():
    s = score_answer(HALF, None, fact(0.0, ["it says 1946 where [1] says 1945"]), T)
    assert s.failed == ('must mention "us-east-1"', "it says 1946 where [1] says 1945")


def test_the_record_keeps_both_scores_and_reports_the_returned_answer():
    before = score_answer(HALF, None, fact(0.9), T)
    after = score_answer(CriteriaReport(given=2, failed=()), None, fact(0.8), T)
    kept = acceptance(before, after, kept=True, accepted=True, t=T)
    assert (kept.score_before, kept.score_after, kept.repaired, kept.accepted) == (before.total, after.total, True, True)
    assert kept.failed == ['must mention "us-east-1"'] and kept.failed_after == [] and kept.factuality.score == 0.8
    reverted = acceptance(before, after, kept=False, accepted=False, t=T)
    assert reverted.failed_after == kept.failed and not reverted.accepted and reverted.score_after == after.total
    assert acceptance(before, None, kept=False, accepted=False, t=T).score_after is None
