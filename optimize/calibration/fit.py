"""Fit a `ConfidenceCalibrator` on an eval run's records, and measure a confidence before and after.

It takes results and outcomes as `optimize.eval.records.outcomes` reads them from records; the
features are `program.answer.calibrator.features` of each result. Platt scaling is scikit-learn's L2
logistic regression over the features standardized on the fitting set, its strength chosen by
cross-validated log loss (`LogisticRegressionCV`); isotonic is its `IsotonicRegression` over
the heuristic confidence alone (one input: it learns a monotone curve, not weights). Both
become the calibrator's plain numbers. This module reads and writes no files.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from sklearn.isotonic import IsotonicRegression

from metrics.calibration import Calibration, confidence_calibration
from optimize.standardized_logistic import fit_standardized
from program.answer.calibrator import FEATURES, ConfidenceCalibrator, features
from program.contract.result import Result

Method = Literal["platt", "isotonic"]
MIN_RECORDS = 20
MIN_EACH = 3  # right and wrong answers each, or there is no boundary to learn


class FitError(ValueError):
    """Records a calibrator cannot be fitted on; the message says why, in one line."""


def fit_calibrator(results: list[Result], rights: list[bool], method: Method = "platt",
                   fitted_on: str = "") -> ConfidenceCalibrator:
    right = sum(rights)
    if len(rights) < MIN_RECORDS or min(right, len(rights) - right) < MIN_EACH:
        raise FitError(f"too few records to fit a calibrator: {len(rights)} ({right} right); it needs at least "
                       f"{MIN_RECORDS}, with {MIN_EACH} right and {MIN_EACH} wrong")
    x = np.array([[found[name] for name in FEATURES] for found in map(features, results)])
    y = np.asarray(rights, dtype=int)
    return _platt(x, y, fitted_on) if method == "platt" else _isotonic(x, y, fitted_on)


def before_and_after(results: list[Result], rights: list[bool], calibrator: ConfidenceCalibrator
                     ) -> tuple[Calibration, Calibration]:
    """The confidence the results reported, then the one the calibrator gives them, each as an agent reads it."""
    calibrated = [calibrator.calibrate(r) for r in results]
    return confidence_calibration(results, rights), confidence_calibration(calibrated, rights)


def _platt(x: np.ndarray, y: np.ndarray, fitted_on: str) -> ConfidenceCalibrator:
    line = fit_standardized(x, y)
    return ConfidenceCalibrator(method="platt", features=list(FEATURES), center=line.center, scale=line.scale,
                                weights=line.weights, intercept=line.intercept, fitted_on=f"{fitted_on}; {line.how}")


def _isotonic(x: np.ndarray, y: np.ndarray, fitted_on: str) -> ConfidenceCalibrator:
    model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x[:, FEATURES.index("heuristic")], y)
    return ConfidenceCalibrator(method="isotonic", features=["heuristic"], knots_x=model.X_thresholds_.tolist(),
                                knots_y=model.y_thresholds_.tolist(), fitted_on=fitted_on)
