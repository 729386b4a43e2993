"""One logistic regression over standardized features, its strength picked by cross-validated log loss.

Both fitted judges (the confidence calibrator's Platt fit and the sufficiency model) store what this
returns as plain numbers in JSON. It fits; it does not store, load or apply a model.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import StratifiedKFold

FOLDS = 5
CS = 10  # inverse regularization strengths tried, log-spaced from 1e-4 to 1e4


class Linear(NamedTuple):
    center: list[float]
    scale: list[float]
    weights: list[float]
    intercept: float
    how: str  # how the strength was picked, for the model's `fitted_on`


def fit_standardized(x: np.ndarray, y: np.ndarray) -> Linear:
    """Needs both classes in `y`. subtle: a few dozen rows and many features overfit at a fixed C, so
    cross-validated log loss picks it, over shuffled folds (seeded), since rows come in dataset order."""
    center, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0  # subtle: a feature constant on the fitting set gets weight 0, not a division by 0
    folds = min(FOLDS, int(min(y.sum(), len(y) - y.sum())))
    split = StratifiedKFold(folds, shuffle=True, random_state=0)
    model = LogisticRegressionCV(Cs=CS, cv=split, scoring="neg_log_loss", l1_ratios=(0.0,), max_iter=2000,
                                 use_legacy_attributes=False)
    model.fit((x - center) / scale, y)
    return Linear(center.tolist(), scale.tolist(), model.coef_[0].tolist(), float(model.intercept_[0]),
                  f"C {model.C_:.3g} by {folds}-fold cross-validation")
