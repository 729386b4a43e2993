"""Whether a confidence means something: reliability bins, expected calibration error and AUROC.

A confidence (0 to 1) is calibrated when, of the answers given confidence about p, a share p is
right; it discriminates when right answers get higher confidence than wrong ones. "Right" is
`is_right`: short-answer F1 of at least 0.5 against the gold answers. On a question with no gold
answer (unanswerable: abstaining is correct) the scorecard's F1 is already 1 for an abstention
and 0 for an answer, so the same rule reads it. ECE is over 10 equal-width bins, weighted by
each bin's share of answers; AUROC is scikit-learn's, None when only one class occurs.
`confidence_calibration` measures the confidence an agent reads off each result. Plain
functions over lists; this module does not fit calibrators (`optimize.calibration.fit` does)
and is not about the citation-support judges (`metrics.calibrate` checks those on WiCE).
`measure_calibration(probabilities, labels)` is how any model that states a probability (the
answer's confidence today, a fitted model tomorrow) is scored on held-out questions.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel

from metrics.composite import Scorecard
from metrics.outcome import RIGHT_F1
from program.contract.agent_metadata import agent_confidence
from program.contract.result import Result

BINS = 10


class Bin(BaseModel):
    low: float
    high: float
    n: int
    confidence: float | None  # the mean confidence in the bin; None when it is empty
    accuracy: float | None  # the share right in the bin


class Calibration(BaseModel):
    n: int
    right: int
    ece: float | None
    auroc: float | None  # None: all right or all wrong, so nothing to tell apart
    bins: list[Bin]


def is_right(card: Scorecard) -> bool:
    return card.f1 >= RIGHT_F1


def reliability_bins(confidences: list[float], rights: list[bool], bins: int = BINS) -> list[Bin]:
    """Equal-width bins over [0, 1]; a confidence of exactly 1 falls in the last one."""
    conf, right = np.asarray(confidences, dtype=float), np.asarray(rights, dtype=float)
    where = np.minimum((conf * bins).astype(int), bins - 1)
    found = []
    for i in range(bins):
        inside = where == i
        n = int(inside.sum())
        found.append(Bin(low=i / bins, high=(i + 1) / bins, n=n, confidence=float(conf[inside].mean()) if n else None,
                         accuracy=float(right[inside].mean()) if n else None))
    return found


def expected_calibration_error(confidences: list[float], rights: list[bool], bins: int = BINS) -> float | None:
    """Sum over bins of (share of answers in the bin) x |mean confidence - accuracy|; None for no answers."""
    total = len(confidences)
    if not total:
        return None
    return sum(b.n / total * abs(b.confidence - b.accuracy) for b in reliability_bins(confidences, rights, bins) if b.n)


def auroc(confidences: list[float], rights: list[bool]) -> float | None:
    """The chance that a right answer has a higher confidence than a wrong one (ties count half)."""
    # deferred: scikit-learn takes a second to import, and only a calibration report needs it
    from sklearn.metrics import roc_auc_score

    if len(set(rights)) < 2:
        return None
    return float(roc_auc_score(rights, confidences))


def measure_calibration(confidences: list[float], rights: list[bool]) -> Calibration:
    """ECE, AUROC and the reliability bins of probabilities against the 0/1 outcomes they predict."""
    if len(confidences) != len(rights):
        raise ValueError(f"{len(confidences)} confidences for {len(rights)} outcomes")
    return Calibration(n=len(rights), right=sum(rights), ece=expected_calibration_error(confidences, rights),
                       auroc=auroc(confidences, rights), bins=reliability_bins(confidences, rights))


def confidence_calibration(results: list[Result], rights: list[bool]) -> Calibration:
    """How well the confidence an agent reads (`AnswerResponse.confidence`, 0-100) predicts the outcomes."""
    return measure_calibration([agent_confidence(r) / 100 for r in results], rights)
