"""Whether a compiled component ships: it must beat the uncompiled one on the select questions.

A candidate (a demo set, a prompt optimizer's output, a threshold point) ships only if, on the
same select questions, its mean short-answer F1 is higher than the uncompiled component's and the
paired 95% bootstrap interval of its composite gain lies above 0. A tie, or a gain the interval
does not hold, keeps the uncompiled one (a cheaper prompt, or thresholds the user already knows),
and the job says so in one line with the numbers. This module decides; it runs nothing.

subtle: the threshold point is the best of hundreds of replayed trials on these same questions,
so a small mean gain there is partly the luck of the pick. In the standard preset a gain of
+0.021 F1 on 60 select questions became -0.011 on the 100 report questions.
"""

from __future__ import annotations

import statistics

from pydantic import BaseModel

from optimize.eval.records import Record
from optimize.eval.stats import paired_delta_ci


class Verdict(BaseModel):
    component: str  # "prompts" or "thresholds"
    candidate: str  # the candidate's name
    ships: bool
    line: str  # the one line the job prints


def judge_candidate(component: str, candidate: str, ran: list[Record], uncompiled: list[Record]) -> Verdict:
    questions = sorted({r.qid for r in uncompiled} & {r.qid for r in ran})
    mine, theirs = _by_qid(ran), _by_qid(uncompiled)
    c, u = _means([mine[q] for q in questions]), _means([theirs[q] for q in questions])
    gain = paired_delta_ci([theirs[q].scores.composite for q in questions], [mine[q].scores.composite for q in questions])
    ships = bool(questions) and gain.direction == 1 and c["f1"] > u["f1"]
    numbers = (f"composite {c['composite']:.3f} against {u['composite']:.3f}, paired gain {gain.mean:+.3f} "
               f"[{gain.low:+.3f}, {gain.high:+.3f}], F1 {c['f1']:.3f} against {u['f1']:.3f} "
               f"on {len(questions)} select questions")
    line = (f"{component}: shipping {candidate} ({numbers})" if ships else
            f"{component}: keeping the uncompiled {component}; {candidate} did not beat them ({numbers})")
    return Verdict(component=component, candidate=candidate, ships=ships, line=line)


def best(candidates: dict[str, list[Record]]) -> str:
    """The candidate with the highest mean composite; the first listed wins a tie."""
    return max(candidates, key=lambda name: _means(candidates[name])["composite"])


def _by_qid(records: list[Record]) -> dict[str, Record]:
    return {r.qid: r for r in records}


def _means(records: list[Record]) -> dict[str, float]:
    if not records:
        return {"composite": 0.0, "f1": 0.0}
    return {"composite": statistics.fmean(r.scores.composite for r in records),
            "f1": statistics.fmean(r.scores.f1 for r in records)}
