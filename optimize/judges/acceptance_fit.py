"""Fit a `program.judges.acceptance.AcceptanceModel` on eval records, and pick its release threshold.

A row is a record whose final draft was measured, with the draft's checks its trace carries
(`Trace.draft_checks`); its label is that the draft was right (`metrics.draft_right`: F1 >= 0.5, and
never on an unanswerable question), whether the release gave it or withheld it. Records of the
`learned` system are the ones to fit on: there the rules refuse no draft, so the drafts they would
have refused are labelled too. The fit is the standardized,
cross-validated logistic regression of `optimize.standardized_logistic`. With a target wrong rate, the
threshold is chosen by conformal risk control (`optimize.judges.risk_control`) on out-of-fold
probabilities: each row scored by a model that did not see it. This module reads and writes no files.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import StratifiedKFold

from optimize.eval.records import Record
from optimize.judges.risk_control import acceptance_threshold
from optimize.standardized_logistic import fit_standardized
from program.judges.acceptance import FEATURES, AcceptanceModel

MIN_EACH = 3  # right and wrong answers each, or there is no boundary to learn
FOLDS = 5


class FitError(ValueError):
    """Records a model cannot be fitted on; the message says why, in one line."""


def rows(records: list[Record]) -> list[tuple[dict[str, float], bool]]:
    """(draft checks, right) of each record whose final draft was measured and labelled."""
    return [(r.result.trace.draft_checks, label) for r, label in labelled(records)]


def labelled(records: list[Record]) -> list[tuple[Record, bool]]:
    """Each record whose final draft was measured and labelled, with its label."""
    return [(r, label) for r in records if (label := draft_label(r)) is not None]


def draft_label(record: Record) -> bool | None:
    """Whether the record's final draft was right, given or withheld by the release in force
    (`metrics.draft_right`); a record scored before that metric counts only an answer it gave."""
    if record.result is None or not record.result.trace.draft_checks:
        return None
    if record.scores.draft_right is not None:
        return record.scores.draft_right
    given = not record.result.abstained and record.scores.net_right in (1.0, -1.0)
    return record.scores.net_right == 1.0 if given else None


def fit_acceptance(found: list[tuple[dict[str, float], bool]], fitted_on: str,
                   max_wrong_rate: float | None = None) -> AcceptanceModel:
    x, y = _matrix(found)
    if min(y.sum(), len(y) - y.sum()) < MIN_EACH:
        raise FitError(f"too few answers to fit on: {len(y)} ({int(y.sum())} right); it needs at least {MIN_EACH} "
                       f"right and {MIN_EACH} wrong")
    line = fit_standardized(x, y)
    model = AcceptanceModel(features=list(FEATURES), center=line.center, scale=line.scale, weights=line.weights,
                            intercept=line.intercept, fitted_on=f"{fitted_on}; {line.how}")
    if max_wrong_rate is None:
        return model
    threshold = acceptance_threshold(out_of_fold(found), [bool(v) for v in y], max_wrong_rate)
    # subtle: no threshold meets the target on these rows: answer nothing rather than break the bound
    return model.model_copy(update={"threshold": 1.0 if threshold is None else threshold,
                                    "max_wrong_rate": max_wrong_rate})


def out_of_fold(found: list[tuple[dict[str, float], bool]]) -> list[float]:
    """Each row's P(right) from a model fitted on the other folds."""
    x, y = _matrix(found)
    folds = min(FOLDS, int(min(y.sum(), len(y) - y.sum())))
    scored = np.zeros(len(y))
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=0).split(x, y):
        if min(y[train].sum(), len(train) - y[train].sum()) < 2:
            scored[test] = y[train].mean()
            continue
        line = fit_standardized(x[train], y[train])
        z = (x[test] - line.center) / line.scale @ np.asarray(line.weights) + line.intercept
        scored[test] = 1 / (1 + np.exp(-np.clip(z, -50, 50)))
    return scored.tolist()


def _matrix(found: list[tuple[dict[str, float], bool]]) -> tuple[np.ndarray, np.ndarray]:
    # subtle: a row without a logprob (an LM that returns none) reads as the rows' mean, as applying does
    columns = [[checks.get(name) for checks, _ in found] for name in FEATURES]
    means = [float(np.mean([v for v in column if v is not None] or [0.0])) for column in columns]
    x = np.array([[means[j] if v is None else v for j, v in enumerate(row)] for row in zip(*columns)], dtype=float)
    return x.reshape(len(found), len(FEATURES)), np.array([int(right) for _, right in found])
