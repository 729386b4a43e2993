"""A fitted logistic regression stored as plain numbers: the shape of both learned judges.

Feature names, their means and scales on the fitting set, one coefficient each and an intercept:
P = sigmoid(w . (x - mean) / scale + b). Applying it needs numpy only; JSON holds it (no pickle).
A subclass names the features it may weigh (`FEATURES`) and the file its shipped default is in
(`ASSET`, under `program/assets/judges`, fitted jointly on the labelled corpora); a saved program may
carry its own. `optimize.standardized_logistic` fits it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

ASSETS = Path(__file__).resolve().parent.parent / "assets" / "judges"


class LogisticModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    FEATURES: ClassVar[tuple[str, ...]] = ()
    ASSET: ClassVar[str] = ""

    kind: str = Field("logistic", pattern="^logistic$")
    features: list[str]
    center: list[float] = Field(description="each feature's mean on the fitting set")
    scale: list[float] = Field(description="each feature's standard deviation there (1 where it was constant)")
    weights: list[float] = Field(description="the coefficients over the standardized features")
    intercept: float
    fitted_on: str = Field("", description="which labelled rows it was fitted on")

    @model_validator(mode="after")
    def _consistent(self):
        what = type(self).__name__
        if unknown := [name for name in self.features if name not in self.FEATURES]:
            raise ValueError(f"{what} features {unknown} are not among {', '.join(self.FEATURES)}")
        sizes = {len(self.features), len(self.center), len(self.scale), len(self.weights)}
        if len(sizes) > 1 or not self.features or 0 in self.scale:
            raise ValueError(f"a {what} needs one feature, center, nonzero scale and weight each")
        return self

    @classmethod
    def shipped(cls):
        """The shipped default, fitted jointly on the labelled corpora."""
        return _shipped(cls)

    def probability(self, found: dict[str, float]) -> float:
        """P for features by name; a feature it does not find reads as its mean (it then moves nothing)."""
        x = np.array([found.get(name, c) for name, c in zip(self.features, self.center)], dtype=float)
        z = (x - np.asarray(self.center)) / np.asarray(self.scale) @ np.asarray(self.weights) + self.intercept
        return float(1 / (1 + np.exp(-np.clip(z, -50, 50))))

    def effects(self) -> list[tuple[str, float, float]]:
        """(feature, coefficient per raw unit, coefficient per standard deviation), largest effect first."""
        rows = [(name, w / s, w) for name, w, s in zip(self.features, self.weights, self.scale)]
        return sorted(rows, key=lambda row: abs(row[2]), reverse=True)


@functools.cache
def _shipped(cls: type[LogisticModel]) -> LogisticModel:
    return cls.model_validate(json.loads((ASSETS / cls.ASSET).read_text(encoding="utf-8")))
