"""The risk-coverage curve and its area (AURC): would abstaining on the least confident answers cut the wrong ones?

Rank the answers a system gave by their reported confidence, most confident first. Answering
only those at or above a confidence covers a share of all the questions (coverage) and is wrong
on a share of the answers given (risk). The curve has one point per distinct confidence: a
threshold cannot split answers of equal confidence. AURC is the mean risk over the coverages
the system reached, answer by answer, with tied answers taken in every order alike (the
expected value, so it does not depend on how ties happen to be sorted): 0 when no answer given
was wrong, and the plain wrong rate when the confidence orders nothing. Questions the system
abstained on or gave up are not answers: they count in the coverage's denominator only.
Lower is better; compare systems at their coverage too. This module does not read records.
"""

from __future__ import annotations

from itertools import groupby

from pydantic import BaseModel


class RiskCoverage(BaseModel):
    questions: int
    answered: int
    points: list[tuple[float, float]]  # (coverage, risk), most confident threshold first
    aurc: float | None  # None: no answer given

    @property
    def coverage(self) -> float:
        return self.answered / self.questions if self.questions else 0.0


def risk_coverage(answers: list[tuple[float, bool]], questions: int) -> RiskCoverage:
    """`answers`: (confidence, right) of each answer given; `questions`: all asked, abstentions included."""
    if len(answers) > questions:
        raise ValueError(f"{len(answers)} answers to {questions} questions")
    ranked = sorted(answers, key=lambda a: -a[0])
    points, risks, given, wrong = [], [], 0, 0
    for _, tied in groupby(ranked, key=lambda a: a[0]):
        group = [right for _, right in tied]
        missed = group.count(False)
        # subtle: the j-th of a tie group is wrong with the group's rate, whatever order it came in
        risks += [(wrong + j * missed / len(group)) / (given + j) for j in range(1, len(group) + 1)]
        given, wrong = given + len(group), wrong + missed
        points.append((given / questions, wrong / given))
    return RiskCoverage(questions=questions, answered=given, points=points,
                        aurc=sum(risks) / len(risks) if risks else None)
