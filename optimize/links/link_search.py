"""The link score's weights fitted to a site and its labelled questions, offline: no LM, no fetch.

Each trial sets the five weights (`optimize.job.threshold_search.space`, kind "links") and replays
every question's traversal from its seed page (`optimize.links.traversal`). A question scores 1
when a page its label names is reached, else 0; its cost is the pages spent (to the gold page, or
all of them). The search is the job's: NSGA-II over (reach, pages), the first trial being the
current weights, the pick the best of `reach - latency_weight * pages` on the front (both scaled).
The pick is cross-validated over the questions (`optimize.job.cross_validation`): picked on four
folds, scored on the fifth. It ships only if that held-out gain in reach has a 95% interval above
0; otherwise the current weights stay, and the one line printed says why. `walks` walks other
questions (held out from the search) under the current and the chosen weights.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from optimize.job.config import OptimizeConfig
from optimize.job.cross_validation import cross_validate
from optimize.job.threshold_search import (
    LINK_WEIGHTS,
    Scored,
    all_points,
    search_thresholds,
)
from optimize.links.site import Site
from optimize.links.traversal import Cosines, traverse
from program.thresholds import Thresholds


@dataclass(frozen=True)
class LinkQuestion:
    qid: str
    question: str
    seed: str  # the seed page's URL on the site
    gold: list[str]  # the label's gold sources
    terms: list[str]  # `program.signals.link_terms`
    cosines: Cosines


class Row(BaseModel):
    """One question under the current and the chosen weights."""
    qid: str
    question: str
    reached_current: int | None  # pages spent when the gold page was reached; None: never
    reached_chosen: int | None


class HeldOut(BaseModel):
    """Questions no trial saw, walked under the current and the chosen weights."""
    questions: int
    reach_current: float
    reach_chosen: float
    pages_current: float
    pages_chosen: float

    @property
    def line(self) -> str:
        return (f"on the {self.questions} held-out questions, reach {self.reach_chosen:.3f} with the searched weights "
                f"against {self.reach_current:.3f}, {self.pages_chosen:.1f} pages against {self.pages_current:.1f}")


class LinkFit(BaseModel):
    current: dict[str, float]
    chosen: dict[str, float]
    ships: bool
    line: str
    trials: int
    questions: int
    reach_current: float
    reach_chosen: float
    pages_current: float
    pages_chosen: float
    cv_gain: float | None = None
    cv_low: float | None = None
    cv_high: float | None = None
    rows: list[Row] = []
    held_out: HeldOut | None = None


def fit_link_weights(site: Site, questions: list[LinkQuestion], current: Thresholds, trials: int,
                     latency_weight: float, seed: int, folder: Path, progress: bool = True) -> LinkFit:
    config = OptimizeConfig(threshold_trials=trials, latency_weight=latency_weight, seed=seed)
    chosen, _ = search_thresholds(current, lambda t: _walked(site, questions, t), config, folder, progress, kind="links")
    points = all_points(folder)
    base = next(p for p in points if p.thresholds == current)
    picked = next(p for p in points if p.thresholds == chosen)
    gain = cross_validate(points, base.trial, latency_weight, None, seed)
    ships = chosen != current and gain is not None and gain.direction == 1
    return LinkFit(
        current=_weights(current), chosen=_weights(chosen), ships=ships,
        line=_line(ships, chosen == current, gain, base, picked),
        trials=len(points), questions=len(questions), reach_current=base.quality, reach_chosen=picked.quality,
        pages_current=base.latency_s, pages_chosen=picked.latency_s,
        cv_gain=gain and round(gain.mean, 4), cv_low=gain and round(gain.low, 4), cv_high=gain and round(gain.high, 4),
        rows=[Row(qid=q.qid, question=q.question, reached_current=_reached_at(b), reached_chosen=_reached_at(a))
              for q, b, a in zip(questions, base.questions, picked.questions, strict=True)])


def walks(site: Site, questions: list[LinkQuestion], current: Thresholds, chosen: Thresholds) -> HeldOut:
    """`questions` walked under both sets of weights."""
    before, after = _walked(site, questions, current), _walked(site, questions, chosen)
    return HeldOut(questions=len(questions), reach_current=before.quality, reach_chosen=after.quality,
                   pages_current=before.latency_s, pages_chosen=after.latency_s)


def _walked(site: Site, questions: list[LinkQuestion], t: Thresholds) -> Scored:
    """Each question's (reached a gold page, pages spent) under `t`, and their means."""
    walked = [traverse(site, q.seed, q.cosines, q.terms, q.gold, t) for q in questions]
    scored = [(float(w.reached_at is not None), float(w.pages_spent)) for w in walked]
    return Scored(statistics.fmean(r for r, _ in scored), statistics.fmean(p for _, p in scored), scored)


def _reached_at(scored: tuple[float, float]) -> int | None:
    """A question's (reach, pages spent) as its trial recorded it: the pages spent to the gold page, or None."""
    reached, pages = scored
    return int(pages) if reached else None


def _weights(t: Thresholds) -> dict[str, float]:
    return {name: getattr(t, name) for name in LINK_WEIGHTS}


def _line(ships: bool, same: bool, gain, base, picked) -> str:
    numbers = (f"reach {picked.quality:.3f} against {base.quality:.3f}, {picked.latency_s:.1f} pages against "
               f"{base.latency_s:.1f}")
    if same:
        return f"link weights: the search chose the current weights; keeping them ({numbers})"
    held_out = "too few questions to cross-validate" if gain is None else (
        f"held out, the search gained {gain.mean:+.3f} [{gain.low:+.3f}, {gain.high:+.3f}] reach")
    if ships:
        return f"link weights: shipping the searched weights ({numbers}; {held_out})"
    return f"link weights: keeping the current weights; the searched ones did not hold up ({numbers}; {held_out})"
