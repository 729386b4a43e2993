"""The fitted confidence: the probability that an answer is right, from what the loop measured.

`features(result)` reads a finished `Result` into named numbers: the heuristic confidence (the
judge's self-report capped by retrieval quality, `program.contract.agent_metadata`), the judge's own
confidence, the retrieval quality's covered share, the last retrieval signals the gate saw, how
the loop ended and the rule that ended it. `ConfidenceCalibrator` maps them to a probability
with parameters fitted on labelled questions (`python -m optimize calibrate`): Platt scaling (a
logistic regression over the standardized features) or isotonic regression over one feature.
Its parameters are plain numbers, saved with the program by `GatedRAG.dump_state`; applying
them needs numpy only. This module does not fit (`optimize.calibration.fit` does, with
scikit-learn) and does not score.
"""

from __future__ import annotations

import warnings
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from program.contract.agent_metadata import covered_share, heuristic_confidence
from program.contract.result import Result

# the retrieval signals read from the last step that recorded them (`Signals.as_trace`)
SIGNALS = ("best", "cliff", "min_coverage", "entity_coverage", "term_coverage", "spread")
# features a calibrator saved by an earlier version may weigh and this one no longer measures: they read 0
# ("plateau" was the gate's verdict on the spread; the spread itself is measured now)
RETIRED = ("plateau",)
FEATURES = ("heuristic", "judge_confidence", "judged", "covered_share", *SIGNALS, "answered", "abstained", "cited",
            "web", "iterations", "rule_covered", "rule_judged")


def features(result: Result) -> dict[str, float]:
    """Every feature in `FEATURES`, 0 where the trace has nothing to read (a loop that failed early)."""
    trace = result.trace
    signals = next((s.signals for s in reversed(trace.steps) if s.signals), {})
    judged = [s.confidence for s in trace.steps if s.action == "judge" and s.confidence is not None]
    rule = next((s.rule for s in reversed(trace.steps) if s.rule), "")
    return {"heuristic": heuristic_confidence(result) / 100, "judge_confidence": judged[-1] if judged else 0.0,
            "judged": float(trace.resources.judge_calls > 0), "covered_share": covered_share(result),
            **{name: float(signals.get(name, 0.0)) for name in SIGNALS},
            "answered": float(trace.ended == "answered"), "abstained": float(result.abstained),
            "cited": float(bool(result.citations)), "web": float(trace.resources.web_searches > 0),
            "iterations": float(trace.resources.iterations),
            "rule_covered": float(rule == "covered_with_cliff"), "rule_judged": float(rule == "judge_sufficient")}


class ConfidenceCalibrator(BaseModel):
    """A fitted map from `features` to the probability that the answer is right."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    method: Literal["platt", "isotonic"]
    features: list[str] = Field(description="platt: the features it weighs, in order; isotonic: the one it maps")
    center: list[float] = Field([], description="platt: each feature's mean on the fitting set")
    scale: list[float] = Field([], description="platt: each feature's standard deviation there (1 where it was constant)")
    weights: list[float] = Field([], description="platt: the coefficients over the standardized features")
    intercept: float = 0.0
    knots_x: list[float] = Field([], description="isotonic: the fitted function's breakpoints, increasing")
    knots_y: list[float] = Field([], description="isotonic: its value at each breakpoint")
    fitted_on: str = Field("", description="which records it was fitted on")

    @model_validator(mode="after")
    def _consistent(self) -> ConfidenceCalibrator:
        unknown = [name for name in self.features if name not in (*FEATURES, *RETIRED)]
        if unknown or not self.features:
            raise ValueError(f"calibrator features {unknown or '(none)'} are not among {', '.join(FEATURES)}")
        if retired := [name for name in self.features if name in RETIRED]:
            warnings.warn(f"the confidence calibrator weighs {', '.join(retired)}, which this version no longer "
                          "measures (read as 0); refit it: python -m optimize calibrate", stacklevel=2)
        sizes = {len(self.features), len(self.center), len(self.scale), len(self.weights)}
        if self.method == "platt" and (len(sizes) > 1 or 0 in self.scale):
            raise ValueError("a platt calibrator needs one nonzero center, scale and weight per feature")
        knots = np.asarray(self.knots_x)
        if self.method == "isotonic" and (len(self.features) != 1 or not len(knots) or len(knots) != len(self.knots_y)
                                          or np.any(np.diff(knots) < 0)):
            raise ValueError("an isotonic calibrator needs one feature and as many increasing knots_x as knots_y")
        return self

    def probability(self, result: Result) -> float:
        found = features(result)
        x = np.array([found.get(name, 0.0) for name in self.features])  # a RETIRED feature reads 0
        if self.method == "isotonic":
            return float(np.interp(x[0], self.knots_x, self.knots_y))  # clipped at both ends, as scikit-learn's
        z = (x - np.asarray(self.center)) / np.asarray(self.scale) @ np.asarray(self.weights) + self.intercept
        return float(1 / (1 + np.exp(-np.clip(z, -50, 50))))

    def calibrate(self, result: Result) -> Result:
        """The result with this calibrator's confidence; the judge's stays in the trace."""
        own = result.trace.uncalibrated_confidence
        trace = result.trace.model_copy(update={"uncalibrated_confidence": result.confidence if own is None else own})
        return result.model_copy(update={"confidence": round(100 * self.probability(result)), "trace": trace})
