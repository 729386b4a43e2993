"""Right, wrong or abstained: what one answer was worth to the person who asked.

Right: short-answer F1 of at least `RIGHT_F1` against the best gold answer. On an unanswerable
question (`example.answerable` false) abstaining is right and any answer is wrong, which
`metrics.answer_quality.token_f1` already scores (1 for an abstention, 0 for an answer).
Abstained: not right, and no answer given: the program abstained, or it was given up with
nothing to show (no answer reached the user, so none was wrong). Wrong: any other answer.
`metrics.net_right` weighs the three. This module does not look at evidence or confidence.
"""

from __future__ import annotations

from enum import StrEnum

from metrics.answer_quality import short_answer_text, token_f1

RIGHT_F1 = 0.5


class Outcome(StrEnum):
    RIGHT = "right"
    WRONG = "wrong"
    ABSTAINED = "abstained"


def outcome(example, pred) -> Outcome:
    if token_f1(example, pred) >= RIGHT_F1:
        return Outcome.RIGHT
    return Outcome.WRONG if short_answer_text(pred).strip() else Outcome.ABSTAINED
