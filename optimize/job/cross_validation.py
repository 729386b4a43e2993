"""What a threshold pick gains on select questions that did not pick it: K-fold cross-validation.

The search picks the best of hundreds of replayed trials on the select questions, so its gain
there is partly the luck of the pick. Cross-validation measures the picking itself, from the
trials' per-question scores and no further replay: the questions are split into folds; for each
fold, the chooser (`choose` on the Pareto front of the other folds' means) picks a trial, and its
composite gain over the current thresholds is read on the fold's own questions. Each question is
held out once, so the held-out gains pair up question by question, and their mean, with its
bootstrap interval, estimates what the search gains on questions it never saw. When the job
refines its pick (`optimize.job.sparse_point`), each fold refines its own on its other questions
(a few replays more), so that the estimate is of the whole procedure.
"""

from __future__ import annotations

import random
import statistics
from typing import Callable

from optimize.eval.stats import Estimate, paired_delta_ci
from optimize.job.threshold_search import Point, choose, pareto_front

FOLDS = 5


def cross_validate(points: list[Point], current: int, latency_weight: float, latency_budget_s: float | None,
                   seed: int, folds: int = FOLDS, refine: Callable[[Point, list[int]], Point] | None = None,
                   ) -> Estimate | None:
    """The held-out composite gain of the pick (`refine`d on the picking questions, if given) over
    trial `current`; None when the trials lack per-question scores (a study from an older version)
    or there are fewer questions than folds."""
    n = len(points[0].questions) if points else 0
    if n < folds or any(len(p.questions) != n for p in points):
        return None
    order = list(range(n))
    random.Random(seed).shuffle(order)
    base = next(p for p in points if p.trial == current)
    before, after = [], []
    for fold in (order[k::folds] for k in range(folds)):
        others = sorted(set(order) - set(fold))
        picked = choose(pareto_front([_on(p, others) for p in points]), latency_weight, latency_budget_s)
        chosen = next(p for p in points if p.trial == picked.trial)
        chosen = refine(chosen, others) if refine else chosen
        before += [base.questions[i][0] for i in fold]
        after += [chosen.questions[i][0] for i in fold]
    return paired_delta_ci(before, after)


def _on(point: Point, questions: list[int]) -> Point:
    """The point with its quality and latency the means over `questions` only."""
    return point.model_copy(update={"quality": statistics.fmean(point.questions[i][0] for i in questions),
                                    "latency_s": statistics.fmean(point.questions[i][1] for i in questions)})
