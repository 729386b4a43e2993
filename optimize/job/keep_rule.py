"""Whether a compiled component ships: it must beat the uncompiled one on the select questions.

A candidate (a demo set, a prompt optimizer's output, a threshold point) ships only if, on the
same select questions, both its mean composite and its mean short-answer F1 are higher than the
uncompiled component's: the test the final report applies to the compiled program. A tie keeps
the uncompiled one (a cheaper prompt, or thresholds the user already knows), and the job says
so in one line with both numbers. This module decides; it runs nothing.
"""

from __future__ import annotations

import statistics

from pydantic import BaseModel

from optimize.eval.records import Record


class Verdict(BaseModel):
    component: str  # "prompts" or "thresholds"
    candidate: str  # the candidate's name
    ships: bool
    line: str  # the one line the job prints


def judge_candidate(component: str, candidate: str, ran: list[Record], uncompiled: list[Record]) -> Verdict:
    questions = {r.qid for r in uncompiled} & {r.qid for r in ran}
    c, u = _means([r for r in ran if r.qid in questions]), _means([r for r in uncompiled if r.qid in questions])
    ships = bool(questions) and c["composite"] > u["composite"] and c["f1"] > u["f1"]
    numbers = (f"composite {c['composite']:.3f} against {u['composite']:.3f}, F1 {c['f1']:.3f} against {u['f1']:.3f} "
               f"on {len(questions)} select questions")
    line = (f"{component}: shipping {candidate} ({numbers})" if ships else
            f"{component}: keeping the uncompiled {component}; {candidate} did not beat them ({numbers})")
    return Verdict(component=component, candidate=candidate, ships=ships, line=line)


def best(candidates: dict[str, list[Record]]) -> str:
    """The candidate with the highest mean composite; the first listed wins a tie."""
    return max(candidates, key=lambda name: _means(candidates[name])["composite"])


def _means(records: list[Record]) -> dict[str, float]:
    if not records:
        return {"composite": 0.0, "f1": 0.0}
    return {"composite": statistics.fmean(r.scores.composite for r in records),
            "f1": statistics.fmean(r.scores.f1 for r in records)}
