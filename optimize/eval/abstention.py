"""One system's answers as a user meets them: right, wrong and abstained counts, and the risk-coverage curve.

The outcome of each record is the net right it was scored with (`metrics.net_right`: +1 right,
-1 wrong, 0 abstained; on an unanswerable question abstaining is right). The curve ranks the
answers given by the confidence an agent reads (`agent_confidence`, as the calibration does).
An answer given is a result that did not abstain and was not left with nothing to say; an
abstention that was right (on an unanswerable question) is still no answer. Records scored
before net right was kept give no counts and no curve (None). Reads records; writes nothing.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from metrics import Outcome, RiskCoverage, risk_coverage
from metrics.net_right import outcome_of
from optimize.eval.records import Record
from program.contract.agent_metadata import agent_confidence


class Outcomes(BaseModel):
    right: int
    wrong: int
    abstained: int

    def __str__(self) -> str:
        return f"{self.right} / {self.wrong} / {self.abstained}"


def count_outcomes(records: list[Record]) -> Outcomes | None:
    scored = [outcome_of(r.scores.net_right) for r in records if r.scores.net_right is not None]
    if not scored:
        return None
    counts = Counter(scored)
    return Outcomes(right=counts[Outcome.RIGHT], wrong=counts[Outcome.WRONG], abstained=counts[Outcome.ABSTAINED])


def answered(record: Record) -> bool:
    """The program gave an answer, right or wrong."""
    if record.result is None or record.scores.abstained or record.scores.net_right is None:
        return False
    return outcome_of(record.scores.net_right) is not Outcome.ABSTAINED


def records_risk_coverage(records: list[Record]) -> RiskCoverage | None:
    if not any(r.scores.net_right is not None for r in records):
        return None
    answers = [(agent_confidence(r.result) / 100, r.right) for r in records if answered(r)]
    return risk_coverage(answers, len(records))
