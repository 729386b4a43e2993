"""Refit a learned judge to a user's labels, starting from a fitted model as the prior, and measure it held out.

The refit is a maximum a posteriori logistic regression in the prior's own standardized space: it
minimizes the mean log loss plus (strength / n) / 2 times the squared distance of the weights and
intercept from the prior's. With a few dozen labels it stays near the prior (the default fitted
jointly on the labelled corpora); with many it follows them. The strength is picked by log loss on
held-out questions (`held_out`). Folds are over questions, never over rows: a question's states or
drafts are alike, and splitting them would let a question grade itself. scipy's L-BFGS does the fit.
This module reads and writes no files.
"""

from __future__ import annotations

from typing import NamedTuple, TypeVar

import numpy as np
from scipy.optimize import minimize
from sklearn.model_selection import GroupKFold

from program.judges.logistic import LogisticModel

M = TypeVar("M", bound=LogisticModel)
STRENGTHS = (1.0, 10.0, 100.0)  # tried by held-out log loss; larger stays nearer the prior
FOLDS = 5
EPS = 1e-6


class HeldOut(NamedTuple):
    """Each row's P from a model that never saw its question: the refit's and the prior's."""
    refit: np.ndarray
    prior: np.ndarray


def features(model: LogisticModel, found: list[dict[str, float]]) -> np.ndarray:
    """The rows as the model's feature matrix; a feature a row lacks reads as the model's mean, as applying does."""
    return np.array([[row.get(name, c) for name, c in zip(model.features, model.center)] for row in found],
                    dtype=float).reshape(len(found), len(model.features))


def probabilities(model: LogisticModel, x: np.ndarray) -> np.ndarray:
    """The model's P for each row of its feature matrix."""
    return _apply(np.array([*model.weights, model.intercept]), model, x)


def refit(prior: M, x: np.ndarray, y: np.ndarray, groups: list[str], fitted_on: str) -> M:
    """The prior refitted on (x, y), at the strength that scores best on held-out questions."""
    strength = min(STRENGTHS, key=lambda s: log_loss(held_out(prior, x, y, groups, s).refit, y))
    theta = _map_fit(prior, x, y, strength)
    return prior.model_copy(update={"weights": theta[:-1].tolist(), "intercept": float(theta[-1]),
                                    "fitted_on": f"{fitted_on}; refitted from {prior.fitted_on or 'the default'} "
                                                 f"at prior strength {strength:g}"})


def held_out(prior: LogisticModel, x: np.ndarray, y: np.ndarray, groups: list[str],
             strength: float | None = None) -> HeldOut:
    """Cross-fitted over question folds: each row scored by a refit that did not see its question (at
    `strength`, or the strength the other folds pick), and by the prior."""
    prior_p = probabilities(prior, x)
    refitted = prior_p.copy()  # subtle: with one question there is no fold to hold out, and the prior stands
    for train, test in _folds(groups):
        fitting = strength if strength is not None else min(
            STRENGTHS, key=lambda s: log_loss(held_out(prior, x[train], y[train], [groups[i] for i in train], s).refit,
                                              y[train]))
        refitted[test] = _apply(_map_fit(prior, x[train], y[train], fitting), prior, x[test])
    return HeldOut(refitted, prior_p)


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean(row_losses(p, y))) if len(y) else 0.0


def row_losses(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    p = np.clip(p, EPS, 1 - EPS)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p))


def _folds(groups: list[str]):
    folds = min(FOLDS, len(set(groups)))
    if folds < 2:
        return []
    return GroupKFold(folds, shuffle=True, random_state=0).split(np.zeros(len(groups)), groups=groups)


def _standardized(prior: LogisticModel, x: np.ndarray) -> np.ndarray:
    return np.hstack([(x - np.asarray(prior.center)) / np.asarray(prior.scale), np.ones((len(x), 1))])


def _apply(theta: np.ndarray, prior: LogisticModel, x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-np.clip(_standardized(prior, x) @ theta, -50, 50)))


def _map_fit(prior: LogisticModel, x: np.ndarray, y: np.ndarray, strength: float) -> np.ndarray:
    z, start = _standardized(prior, x), np.array([*prior.weights, prior.intercept])
    penalty = strength / max(len(y), 1)

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        p = np.clip(1 / (1 + np.exp(-np.clip(z @ theta, -50, 50))), EPS, 1 - EPS)
        gap = theta - start
        value = np.mean(row_losses(p, y)) + penalty / 2 * gap @ gap
        return float(value), z.T @ (p - y) / len(y) + penalty * gap

    return minimize(loss, start, jac=True, method="L-BFGS-B").x
