"""The conformal acceptance threshold meets its wrong rate on a synthetic table."""

from __future__ import annotations

import numpy as np
import pytest

from optimize.judges.risk_control import acceptance_threshold, wrong_rate_bound


def table(n: int, seed: int) -> tuple[list[float], list[bool]]:
    """Calibrated probabilities: each answer is right with the probability it is given."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, n)
    return p.tolist(), (rng.uniform(0, 1, n) < p).tolist()


@pytest.mark.parametrize("alpha", [0.1, 0.2])
def test_the_threshold_meets_its_wrong_rate_on_new_questions(alpha):
    held_p, held_right = table(2000, seed=1)
    threshold = acceptance_threshold(held_p, held_right, alpha)
    new_p, new_right = map(np.asarray, table(20000, seed=2))
    answered = new_p >= threshold
    assert answered.sum() > 1000  # it still answers
    assert 1 - new_right[answered].mean() <= alpha


def test_the_chosen_threshold_meets_the_bound_and_no_lower_one_does():
    p, right = table(500, seed=3)
    threshold = acceptance_threshold(p, right, 0.15)

    def bound(at: float) -> float:
        answered = [r for q, r in zip(p, right) if q >= at]
        return wrong_rate_bound(sum(not r for r in answered), len(answered))

    assert bound(threshold) <= 0.15
    assert all(bound(q) > 0.15 for q in p if q < threshold)


def test_no_threshold_when_too_few_answers_can_show_the_rate():
    # three right answers bound the wrong rate by 1/4 at best
    assert acceptance_threshold([0.9, 0.8, 0.7], [True, True, True], 0.1) is None


def test_ties_are_answered_together():
    # nine right answers alone would bound the rate by 0.1; the tied wrong one makes it 2/11
    assert acceptance_threshold([0.9] * 10, [True] * 9 + [False], 0.15) is None


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        acceptance_threshold([0.5], [True, False], 0.1)
    with pytest.raises(ValueError):
        acceptance_threshold([0.5], [True], 1.5)
