"""`sufficiency`: P(the evidence as it stands holds the answer), from the retrieval signals alone.

A logistic regression (`program.judges.logistic`) over `FEATURES`, read from
`program.signals.Signals` by `features`. The label it was fitted
to is reader-free: the evidence shown to the reader holds every gold passage (or, where a dataset
names none, the gold answer string); see `optimize.judges.evidence_label`.
The default model ships as `program/assets/judges/sufficiency.json`, fitted jointly on the
labelled corpora (`python -m optimize fit-sufficiency`); a saved program may carry its own.
Its probability is one of the acceptance model's features (`program.judges.acceptance`); it decides nothing itself.
"""

from __future__ import annotations

from typing import ClassVar

from program.gate import redundancy, uncovered
from program.judges.logistic import LogisticModel
from program.signals import Signals
from program.thresholds import Thresholds

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


class SufficiencyModel(LogisticModel):
    """P(the evidence holds the answer) = sigmoid(w . (x - mean) / scale + b) over `FEATURES`."""

    FEATURES: ClassVar[tuple[str, ...]] = FEATURES
    ASSET: ClassVar[str] = "sufficiency.json"
