"""Cross-validating a threshold pick: luck on the questions that picked it does not count."""

from optimize.job.cross_validation import cross_validate
from optimize.job.threshold_search import Point
from program.thresholds import Thresholds

N = 10


def point(trial: int, composites: list[float]) -> Point:
    return Point(trial=trial, quality=sum(composites) / N, latency_s=1.0, thresholds=Thresholds(top_k=trial + 1),
                 questions=[(c, 1.0) for c in composites])


CURRENT = point(0, [0.5] * N)
# each lucky trial does far better on one question and a little worse on the rest: the best mean of all
LUCKY = [point(1 + i, [1.0 if q == i else 0.48 for q in range(N)]) for i in range(N)]


def test_a_pick_that_won_by_one_lucky_question_gains_nothing_held_out():
    assert max(LUCKY, key=lambda p: p.quality).quality > CURRENT.quality
    gain = cross_validate([CURRENT, *LUCKY], current=0, latency_weight=0.0, latency_budget_s=None, seed=1)
    assert gain.mean < 0 and gain.n == N


def test_a_point_better_on_every_question_gains_held_out_too():
    better = point(20, [0.6] * N)
    gain = cross_validate([CURRENT, *LUCKY, better], current=0, latency_weight=0.0, latency_budget_s=None, seed=1)
    assert gain.mean > 0.05 and gain.low > 0


def test_trials_without_per_question_scores_are_not_cross_validated():
    old = Point(trial=0, quality=0.5, latency_s=1.0, thresholds=Thresholds())
    assert cross_validate([old], current=0, latency_weight=0.3, latency_budget_s=None, seed=1) is None
