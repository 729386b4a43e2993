"""Means with 95% bootstrap confidence intervals, for one run and for the paired difference of two.

Percentile bootstrap (scipy.stats.bootstrap), 1000 resamples, a fixed seed: the same records
always give the same interval. Paired means resampling examples, not runs: the difference B-A
is taken per question first, which is what makes a small eval set able to show a change.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from pydantic import BaseModel, field_validator
from scipy.stats import bootstrap

RESAMPLES = 1000
SEED = 0


class Estimate(BaseModel):
    mean: float
    low: float
    high: float
    n: int

    @field_validator("mean", "low", "high", mode="before")
    @classmethod
    def _read_missing(cls, value):
        # subtle: JSON writes the NaN of a mean over no values as null; summary.json must read back
        return float("nan") if value is None else value

    def __str__(self) -> str:
        return self.shown(3)

    def shown(self, digits: int) -> str:
        """The mean and its interval to `digits` decimals."""
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    @property
    def direction(self) -> int:
        """A difference's sign beyond the noise: 1 when its interval is above 0, -1 below, 0 when it holds 0."""
        return 1 if self.low > 0 else -1 if self.high < 0 else 0


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> Estimate:
    """The mean and its bootstrap interval; with fewer than 2 values the interval is the mean itself."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return Estimate(mean=float("nan"), low=float("nan"), high=float("nan"), n=0)
    mean = float(data.mean())
    if data.size < 2 or np.all(data == data[0]):
        return Estimate(mean=mean, low=mean, high=mean, n=int(data.size))
    ci = bootstrap((data,), np.mean, n_resamples=RESAMPLES, confidence_level=confidence, method="percentile",
                   rng=np.random.default_rng(SEED)).confidence_interval
    return Estimate(mean=mean, low=float(ci.low), high=float(ci.high), n=int(data.size))


def paired_delta_ci(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> Estimate:
    """Mean of b - a over paired examples, with its bootstrap interval."""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
    return mean_ci(np.asarray(b, dtype=float) - np.asarray(a, dtype=float), confidence)


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else float("nan")
