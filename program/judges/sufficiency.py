"""`sufficiency`: P(the evidence as it stands holds the answer), from the retrieval signals alone.

A logistic regression over standardized features (`FEATURES`, read from `program.signals.Signals`
by `features`), stored as plain numbers: feature names, their means and scales on the fitting
set, one coefficient each and an intercept. Applying it needs numpy only. The label it was fitted
to is reader-free: the evidence shown to the reader holds every gold passage (or, where a dataset
names none, the gold answer string); see `optimize.judges.evidence_label`.
The default model ships as `program/assets/judges/sufficiency.json`, fitted jointly on the
labelled corpora (`python -m optimize fit-sufficiency`); a saved program may carry its own.
This module predicts and decides nothing: the gate's rules do not read it (yet).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from program.gate import redundancy, uncovered
from program.signals import Signals
from program.thresholds import Thresholds

DEFAULT = Path(__file__).resolve().parent.parent / "assets" / "judges" / "sufficiency.json"
FEATURES = ("best", "cliff", "spread", "min_coverage", "covered_share", "entity_coverage", "term_coverage",
            "pending_bridge", "redundancy", "saturation", "gain", "round")


def features(s: Signals, t: Thresholds, round: int) -> dict[str, float]:
    """The signals as named numbers; `round`: retrieval rounds after the first (0 at the first retrieval)."""
    measured = len(s.sub_queries)
    return {"best": s.best, "cliff": s.cliff, "spread": s.spread, "min_coverage": s.min_coverage,
            "covered_share": 1.0 - len(uncovered(s, t)) / measured if measured else 1.0,
            "entity_coverage": s.entity_coverage, "term_coverage": s.term_coverage,
            # subtle: the hop is pending when the evidence names bridges and no passage is about any of them
            "pending_bridge": float(bool(s.bridges) and s.unmet_bridges == s.bridges),
            "redundancy": redundancy(s, t), "saturation": s.saturation, "gain": s.gain, "round": float(round)}


class SufficiencyModel(BaseModel):
    """A fitted logistic regression over standardized features: P(sufficient) = sigmoid(w . (x - mean) / scale + b)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str = Field("logistic", pattern="^logistic$")
    features: list[str]
    center: list[float] = Field(description="each feature's mean on the fitting set")
    scale: list[float] = Field(description="each feature's standard deviation there (1 where it was constant)")
    weights: list[float] = Field(description="the coefficients over the standardized features")
    intercept: float
    fitted_on: str = Field("", description="which labelled states it was fitted on")

    @model_validator(mode="after")
    def _consistent(self) -> SufficiencyModel:
        if unknown := [name for name in self.features if name not in FEATURES]:
            raise ValueError(f"sufficiency features {unknown} are not among {', '.join(FEATURES)}")
        sizes = {len(self.features), len(self.center), len(self.scale), len(self.weights)}
        if len(sizes) > 1 or not self.features or 0 in self.scale:
            raise ValueError("a sufficiency model needs one feature, center, nonzero scale and weight each")
        return self

    def probability(self, found: dict[str, float]) -> float:
        """P(sufficient) for features as `features` reads them; a feature it does not find reads as its mean."""
        x = np.array([found.get(name, c) for name, c in zip(self.features, self.center)], dtype=float)
        z = (x - np.asarray(self.center)) / np.asarray(self.scale) @ np.asarray(self.weights) + self.intercept
        return float(1 / (1 + np.exp(-np.clip(z, -50, 50))))

    def effects(self) -> list[tuple[str, float, float]]:
        """(feature, coefficient per raw unit, coefficient per standard deviation), largest effect first."""
        rows = [(name, w / s, w) for name, w, s in zip(self.features, self.weights, self.scale)]
        return sorted(rows, key=lambda row: abs(row[2]), reverse=True)


@functools.cache
def default_model() -> SufficiencyModel:
    """The shipped model, fitted jointly on the labelled corpora."""
    return SufficiencyModel.model_validate(json.loads(DEFAULT.read_text(encoding="utf-8")))
