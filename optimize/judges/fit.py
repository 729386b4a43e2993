"""Fit a `program.judges.sufficiency.SufficiencyModel` on recorded states (`optimize.judges.record`'s tables).

scikit-learn's L2 logistic regression over the features standardized on the fitting set, its strength
chosen by cross-validated log loss (`LogisticRegressionCV`), as the confidence calibrator is fitted
(`optimize.calibration.fit`). The model becomes plain numbers. `monotone_boosting` fits the
comparison model of `bench/loco.py`: gradient-boosted trees whose output can only rise with each
coverage signal; it is measured, not stored. This module reads tables; it writes no files.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

from optimize.standardized_logistic import fit_standardized
from program.judges.sufficiency import FEATURES, SufficiencyModel

MIN_EACH = 3  # sufficient and insufficient states each, or there is no boundary to learn
# +1: P(sufficient) may only rise with the feature; -1: only fall; 0: free
MONOTONE = {"best": 1, "min_coverage": 1, "covered_share": 1, "entity_coverage": 1, "term_coverage": 1,
            "pending_bridge": -1}


class FitError(ValueError):
    """States a model cannot be fitted on; the message says why, in one line."""


def read_table(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def matrix(rows: list[dict], names: tuple[str, ...] = FEATURES) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[row["features"][name] for name in names] for row in rows], dtype=float)
    return x, np.array([int(row["sufficient"]) for row in rows])


def fit_sufficiency(rows: list[dict], fitted_on: str, names: tuple[str, ...] = FEATURES) -> SufficiencyModel:
    x, y = matrix(rows, names)
    if min(y.sum(), len(y) - y.sum()) < MIN_EACH:
        raise FitError(f"too few states to fit on: {len(y)} ({int(y.sum())} sufficient); it needs at least "
                       f"{MIN_EACH} sufficient and {MIN_EACH} not")
    line = fit_standardized(x, y)
    return SufficiencyModel(features=list(names), center=line.center, scale=line.scale, weights=line.weights,
                            intercept=line.intercept, fitted_on=f"{fitted_on}; {line.how}")


def monotone_boosting(rows: list[dict], names: tuple[str, ...] = FEATURES) -> HistGradientBoostingClassifier:
    x, y = matrix(rows, names)
    model = HistGradientBoostingClassifier(monotonic_cst=[MONOTONE.get(n, 0) for n in names], max_depth=3,
                                           learning_rate=0.05, max_iter=200, random_state=0)
    return model.fit(x, y)
