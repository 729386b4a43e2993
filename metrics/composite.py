"""One score per answer for the optimizers, with feedback that names what went wrong.

`score_example` computes every metric into a `Scorecard` (what eval records per question).
The composite is a weighted mean of answer F1 (of the short answer), evidence recall, citation
recall and precision, and a latency score: 1 within `latency_budget_s`, then budget / seconds
(half at twice the budget), 0 for no answer or an abstention (except on an unanswerable question,
where abstaining is the answer). A metric that does not apply to a question is None and is
left out of the composite's weighted mean: evidence recall and gold-citation precision without
gold sources, and every evidence and citation metric on an unanswerable question. The card also
holds what the composite does not weigh: net right (`metrics.net_right`) and whether the evidence
shown held the answer (`metrics.answer_in_evidence`), and whether the final draft was right,
given or withheld (`metrics.draft_right`).
`CompositeMetric` is the metric DSPy optimizers call: a float for Evaluate, a strict
bool for bootstrapping (composite at or above `pass_mark`), and `dspy.Prediction(score,
feedback)` for GEPA. This module does not run programs.
"""

from __future__ import annotations

import dspy
from pydantic import BaseModel, Field

from metrics.answer_in_evidence import answer_in_evidence
from metrics.answer_quality import (
    abstained,
    answer_coverage,
    exact_match,
    short_answer_text,
    token_f1,
)
from metrics.citation_faithfulness import CitationScores, score_citations
from metrics.cost import Cost, latency_and_cost
from metrics.draft_right import draft_right
from metrics.evidence_recall import evidence_recall
from metrics.gold_citations import gold_citation_precision
from metrics.gold_sources import matched
from metrics.net_right import net_right
from metrics.support_judge import LexicalSupportJudge, SupportJudge


class CompositeWeights(BaseModel):
    answer_f1: float = Field(0.35, ge=0)
    evidence_recall: float = Field(0.25, ge=0)
    citation_recall: float = Field(0.2, ge=0)
    citation_precision: float = Field(0.1, ge=0)
    latency: float = Field(0.1, ge=0)
    latency_budget_s: float = Field(60.0, gt=0)
    pass_mark: float = Field(0.6, ge=0, le=1, description="composite at which a bootstrapped trace counts as a demo")


class Scorecard(Cost):
    """Every metric of one answer, its cost (wall time, LM calls, tokens, searches) included."""

    exact_match: float = 0.0
    f1: float = 0.0
    answer_coverage: float = 0.0
    abstained: bool = False
    # None: not applicable to this question (see the module docstring), left out of means
    evidence_recall: float | None = 0.0
    citation_recall: float | None = 0.0
    citation_precision: float | None = 0.0
    gold_citation_precision: float | None = 0.0
    # None also in records scored before these were: they are left out, not counted as 0
    answer_in_evidence: float | None = None
    net_right: float | None = None  # +1 right, -1 wrong, 0 abstained (metrics.net_right)
    draft_right: bool | None = None  # the final draft, given or withheld by the release (metrics.draft_right)
    latency_score: float = 0.0
    # a number, so that dollars have a mean; `priced` says whether the price was known
    dollars: float = 0.0
    priced: bool = True
    composite: float = 0.0
    feedback: str = ""


def score_example(example, pred, judge: SupportJudge | None = None, weights: CompositeWeights | None = None,
                  model: str | None = None) -> Scorecard:
    weights = weights or CompositeWeights()
    result = getattr(pred, "result", None)
    cites = score_citations(result.answer, result.citations, judge or LexicalSupportJudge()) if result else CitationScores()
    cost = latency_and_cost(pred, model)
    # no answer (an abstention included) is not fast, it is missing: it earns no latency credit,
    # unless the question is unanswerable and abstaining is the answer
    answered = short_answer_text(pred).strip() if example.answerable else abstained(pred)
    card = Scorecard(exact_match=exact_match(example, pred), f1=token_f1(example, pred),
                     answer_coverage=answer_coverage(example, pred), abstained=abstained(pred),
                     evidence_recall=evidence_recall(example, pred),
                     answer_in_evidence=answer_in_evidence(example, pred), net_right=net_right(example, pred),
                     draft_right=draft_right(example, pred),
                     citation_recall=cites.recall if example.answerable else None,
                     citation_precision=cites.precision if example.answerable else None,
                     gold_citation_precision=gold_citation_precision(example, pred),
                     latency_score=latency_score(cost.wall_s, weights.latency_budget_s) if answered else 0.0,
                     **cost.model_dump(exclude={"dollars"}), dollars=cost.dollars or 0.0, priced=cost.dollars is not None)
    card.composite = composite(card, weights)
    card.feedback = feedback(example, pred, card, cites, weights)
    return card


def latency_score(seconds: float, budget_s: float) -> float:
    return 1.0 if seconds <= budget_s else budget_s / seconds


def composite(card: Scorecard, w: CompositeWeights) -> float:
    parts = [(w.answer_f1, card.f1), (w.evidence_recall, card.evidence_recall), (w.citation_recall, card.citation_recall),
             (w.citation_precision, card.citation_precision), (w.latency, card.latency_score)]
    parts = [(weight, value) for weight, value in parts if value is not None]
    total = sum(weight for weight, _ in parts)
    return sum(weight * value for weight, value in parts) / total if total else 0.0


def feedback(example, pred, card: Scorecard, cites: CitationScores, w: CompositeWeights) -> str:
    """What went wrong, in a few short sentences an optimizer's reflection LM can act on."""
    notes = []
    if not example.answerable:
        if not card.abstained:
            notes.append("The documents do not answer this question, but the program answered instead of abstaining.")
    elif card.abstained:
        notes.append(f"The program abstained, but the gold answer is {example.answer!r}.")
    elif card.f1 < 1.0:
        notes.append(f"The answer {short_answer_text(pred).strip()[:120]!r} does not match the gold answer {example.answer!r}.")
    found = matched(example.gold_sources, getattr(pred, "evidence", None) or []) if example.answerable else []
    missed = [g for g in example.gold_sources if g not in found] if example.answerable else []
    if missed:
        notes.append(f"Missed gold evidence: {', '.join(missed)}.")
    for sentence in cites.unsupported[:2]:
        notes.append(f"Unsupported by its citations: {sentence[:160]!r}.")
    if card.wall_s > w.latency_budget_s:
        notes.append(f"Too slow: {card.wall_s:.0f} s against a {w.latency_budget_s:.0f} s budget.")
    return " ".join(notes) or "Correct, fully supported and within the latency budget."


class CompositeMetric:
    """The optimizers' metric: `(example, pred, trace=None, pred_name=None, pred_trace=None)`."""

    def __init__(self, weights: CompositeWeights | None = None, judge: SupportJudge | None = None,
                 model: str | None = None, with_feedback: bool = False):
        self.weights, self.judge, self.model = weights or CompositeWeights(), judge or LexicalSupportJudge(), model
        self.with_feedback = with_feedback

    def __call__(self, example, pred, trace=None, pred_name=None, pred_trace=None):
        card = score_example(example, pred, self.judge, self.weights, self.model)
        if self.with_feedback or pred_name is not None:
            return dspy.Prediction(score=card.composite, feedback=card.feedback)
        return card.composite >= self.weights.pass_mark if trace is not None else card.composite
