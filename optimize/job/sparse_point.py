"""A searched threshold point with every change that does not earn its place put back.

The search moves all of its space's knobs at once (28 in the full space), so the point it picks
differs from the current thresholds almost everywhere, though few of those changes matter: on
ClapNQ's 60 select questions, one of the 23 it moved carried the gain. `Sparsifier` puts each
moved knob back to its current value, one at a time, and leaves it there when the replayed point
stays within one standard error of the pick on both objectives (mean composite, estimated seconds
a question), paired over the given questions: the one-standard-error rule of CART's pruning, so a
change ships only if the replay can tell it from none. Measured against the pick, not the last
put-back, so that the losses cannot add up. The knobs are swept again until a sweep puts none
back. What is left says which knobs matter, and moves the loop less far from the recorded run, so
fewer of its LM replies are stand-ins. Each put-back costs one replayed trial, remembered by its
thresholds, so that cross-validation's folds (`optimize.job.cross_validation`) share them. This
module neither searches nor ships.
"""

from __future__ import annotations

import math
import statistics

from optimize.job.threshold_search import Evaluate, Point, Scored
from program.thresholds import Thresholds

SWEEPS = 3  # a knob put back can free another, so the knobs are swept again; this bounds the replays
TIE = 1e-9  # means that differ by less are the same: float sums over the same scores in another order


class Sparsifier:
    """`sparsify(pick, questions)`: `pick` with the changes from `current` that do not pay put back."""

    def __init__(self, evaluate: Evaluate, current: Point):
        self.evaluate, self.current = evaluate, current
        self._scored: dict[str, Point] = {}

    def __call__(self, pick: Point, questions: list[int]) -> Point:
        point = pick
        for _ in range(SWEEPS):
            before = point
            for name in moved(self.current.thresholds, point.thresholds):
                back = self._score(point, point.thresholds.model_copy(update={name: getattr(self.current.thresholds, name)}))
                if _within_noise(back, pick, questions):
                    point = back
            if point is before:
                break
        return point

    @property
    def replays(self) -> int:
        return len(self._scored)

    def _score(self, origin: Point, thresholds: Thresholds) -> Point:
        """The replay of `thresholds`, as a point that keeps the number of the trial it came from."""
        key = thresholds.model_dump_json()
        if key not in self._scored:
            scored = Scored(*self.evaluate(thresholds))
            self._scored[key] = Point(trial=origin.trial, quality=scored.quality, latency_s=scored.latency_s,
                                      thresholds=thresholds, questions=scored.questions)
        return self._scored[key]


def moved(current: Thresholds, chosen: Thresholds) -> list[str]:
    """The knobs `chosen` sets otherwise than `current`, in the thresholds' order."""
    return [name for name in Thresholds.model_fields if getattr(chosen, name) != getattr(current, name)]


def changes(current: Thresholds, chosen: Thresholds) -> str:
    """The moved knobs in words, for the job's line: "answer_support 0.5 -> 0.75, top_k 3 -> 4"."""
    return ", ".join(f"{name} {getattr(current, name)} -> {getattr(chosen, name)}" for name in moved(current, chosen))


def _within_noise(back: Point, pick: Point, questions: list[int]) -> bool:
    """`back` loses at most one standard error of the paired differences to `pick`, in quality
    and in seconds."""
    lost = [pick.questions[i][0] - back.questions[i][0] for i in questions]
    slower = [back.questions[i][1] - pick.questions[i][1] for i in questions]
    return all(statistics.fmean(d) <= _standard_error(d) + TIE for d in (lost, slower))


def _standard_error(differences: list[float]) -> float:
    return statistics.stdev(differences) / math.sqrt(len(differences)) if len(differences) > 1 else 0.0
