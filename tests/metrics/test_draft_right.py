"""Whether the final draft was right, given or withheld by the learned release, on hand-made predictions."""

import pytest

from metrics.draft_right import draft_right
from program.contract.result import Step
from tests.metrics.conftest import example, prediction

UNANSWERABLE = example(answerable=False, gold=())
CHECKS = {"support": 1.0}


def measured(short_answer: str = "", withheld: str | None = None):
    """A prediction whose draft the loop measured; `withheld`: the draft the release step kept, the
    prediction then an abstention."""
    pred = prediction("x", short_answer=short_answer, abstained=withheld is not None)
    pred.result.trace.draft_checks = dict(CHECKS)
    if withheld is not None:
        pred.result.trace.steps = [Step(action="release", rule="likely_wrong", short_answer=withheld)]
    return pred


@pytest.mark.parametrize("gold, pred, expected", [
    (example(), measured("Chief of Protocol"), True),
    (example(), measured("Ambassador"), False),
    (example(), measured(withheld="Chief of Protocol"), True),  # withheld, yet right: the release erred
    (example(), measured(withheld="Ambassador"), False),
    (UNANSWERABLE, measured(withheld="Ambassador"), False),  # on an unanswerable question no draft is right
    (UNANSWERABLE, measured("Ambassador"), False),
])
def test_the_draft_is_scored_whether_given_or_withheld(gold, pred, expected):
    assert draft_right(gold, pred) is expected


def test_no_measured_draft_has_no_label():
    assert draft_right(example(), prediction("x", short_answer="Chief of Protocol")) is None
    abstained_first = prediction("none", abstained=True)
    abstained_first.result.trace.draft_checks = dict(CHECKS)  # checks, but no release step kept a draft
    assert draft_right(example(), abstained_first) is None
