"""The answer's score, as the evaluation-gated design defines it: w_judge x judge + w_fact x factuality.

The judge part is what the loop already knows of the answer's fitness: the share of the caller's
criteria it meets (`program.answer.criteria`) times the LM judge's confidence when the loop called the
judge (no LM call is made to score). With only one of the two, that one; with neither, the score is
factuality alone (`program.answer.factuality`). The weights and the threshold are `Thresholds` fields
(`judge_weight`, `factuality_weight`, `accept_score`); the weights are normalised to sum to 1.
This module scores; whether a score buys a repair is `program.gate.decide_acceptance`'s call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from program.answer.criteria import CriteriaReport
from program.contract.result import Acceptance, Factuality
from program.thresholds import Thresholds


@dataclass(frozen=True)
class AnswerScore:
    total: float
    judge: float | None  # None: neither criteria nor a judge verdict
    factuality: Factuality
    criteria: CriteriaReport

    @property
    def failed(self) -> tuple[str, ...]:
        """What a repair is asked to fix: the criteria failed, then the contradictions."""
        return (*self.criteria.failed, *self.factuality.contradictions)


def score_answer(criteria: CriteriaReport, verdict: float | None, factuality: Factuality, t: Thresholds) -> AnswerScore:
    """`verdict`: the LM judge's confidence in the answer, when the loop called the judge."""
    parts = [part for part in (criteria.share_met, verdict) if part is not None]
    judge = math.prod(parts) if parts else None
    if judge is None:
        total = factuality.score
    else:
        total = (t.judge_weight * judge + t.factuality_weight * factuality.score) / (t.judge_weight + t.factuality_weight)
    return AnswerScore(total=round(total, 3), judge=None if judge is None else round(judge, 3),
                       factuality=factuality, criteria=criteria)


def acceptance(before: AnswerScore, after: AnswerScore | None, kept: bool, accepted: bool, t: Thresholds) -> Acceptance:
    """The record of the scoring: `after` is the repair's score, if one ran; `kept`: its answer was
    kept; `accepted`: the gate's verdict on the final score (`program.gate.accepts`)."""
    final = after if after is not None and kept else before
    return Acceptance(score_before=before.total, score_after=None if after is None else after.total,
                      threshold=t.accept_score, accepted=accepted, repaired=kept,
                      judge=final.judge, criteria_given=before.criteria.given, failed=list(before.failed),
                      failed_after=list(final.failed), factuality=final.factuality)
