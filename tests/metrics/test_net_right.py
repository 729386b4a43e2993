"""Right, wrong or abstained, and net right, on hand-made predictions, unanswerable questions included."""

import dspy
import pytest

from metrics.net_right import net_right, outcome_of
from metrics.outcome import Outcome, outcome
from tests.metrics.conftest import example, prediction

UNANSWERABLE = example(answerable=False, gold=())


@pytest.mark.parametrize("gold, pred, expected", [
    (example(), prediction("x", short_answer="Chief of Protocol"), Outcome.RIGHT),
    (example(), prediction("x", short_answer="Chief of the Protocol office"), Outcome.RIGHT),  # F1 0.86
    (example(), prediction("x", short_answer="Ambassador"), Outcome.WRONG),
    (example(), prediction("I could not find it.", abstained=True), Outcome.ABSTAINED),
    (UNANSWERABLE, prediction("I could not find it.", abstained=True), Outcome.RIGHT),  # abstaining is the answer
    (UNANSWERABLE, prediction("x", short_answer="Ambassador"), Outcome.WRONG),  # any answer is wrong
    (example(), dspy.Prediction(answer="", evidence=[]), Outcome.ABSTAINED),  # given up: nothing reached the user
    (UNANSWERABLE, dspy.Prediction(answer="", evidence=[]), Outcome.ABSTAINED),
])
def test_outcome(gold, pred, expected):
    assert outcome(gold, pred) is expected


def test_net_right_is_plus_one_minus_one_or_zero_and_a_strict_bool_under_a_trace():
    right, wrong = prediction("x", short_answer="Chief of Protocol"), prediction("x", short_answer="Ambassador")
    abstained = prediction("none", abstained=True)
    assert [net_right(example(), p) for p in (right, wrong, abstained)] == [1.0, -1.0, 0.0]
    assert net_right(UNANSWERABLE, abstained) == 1.0 and net_right(UNANSWERABLE, wrong) == -1.0
    assert net_right(example(), right, trace=[]) is True and net_right(example(), abstained, trace=[]) is False


def test_a_recorded_value_reads_back_as_its_outcome():
    assert [outcome_of(v) for v in (1.0, -1.0, 0.0)] == [Outcome.RIGHT, Outcome.WRONG, Outcome.ABSTAINED]
