"""A searched threshold point with every change that does not earn its place put back.

The search moves all of its space's knobs at once (23 in the full space), so the point it picks
differs from the current thresholds almost everywhere, though few of those changes matter: on
ClapNQ's 60 select questions, three of the 23 carried the whole gain. `Sparsifier` puts each moved
knob back to its current value, one at a time, and leaves it there when the replay scores the
point no worse on either objective (mean composite, estimated seconds a question) over the given
questions; it sweeps the knobs again until a sweep puts none back. What is left says which knobs
matter, and moves the loop less far from the recorded run, so fewer of its LM replies are stand-ins.
Each put-back costs one replayed trial, remembered by its thresholds, so that cross-validation's
folds (`optimize.job.cross_validation`) share them. This module neither searches nor ships.
"""

from __future__ import annotations

import statistics

from optimize.job.threshold_search import Evaluate, Point, Scored
from program.thresholds import Thresholds

SWEEPS = 3  # a knob put back can free another, so the knobs are swept again; this bounds the replays
TIE = 1e-9  # means that differ by less are the same: float sums over the same scores in another order


class Sparsifier:
    """`sparsify(point, questions)`: `point` with the changes from `current` that do not pay put back."""

    def __init__(self, evaluate: Evaluate, current: Point):
        self.evaluate, self.current = evaluate, current
        self._scored: dict[str, Point] = {}

    def __call__(self, point: Point, questions: list[int]) -> Point:
        for _ in range(SWEEPS):
            before = point
            for name in moved(self.current.thresholds, point.thresholds):
                back = self._score(point, point.thresholds.model_copy(update={name: getattr(self.current.thresholds, name)}))
                if _no_worse(back, point, questions):
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


def _no_worse(back: Point, point: Point, questions: list[int]) -> bool:
    # subtle: "no worse", not "better": a change the questions cannot tell apart from none is
    # luck the pick could not see, and shipping it would move the program for nothing
    (back_quality, back_s), (quality, seconds) = _means(back, questions), _means(point, questions)
    return back_quality >= quality - TIE and back_s <= seconds + TIE


def _means(point: Point, questions: list[int]) -> tuple[float, float]:
    return (statistics.fmean(point.questions[i][0] for i in questions),
            statistics.fmean(point.questions[i][1] for i in questions))
