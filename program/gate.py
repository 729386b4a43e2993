"""The gate: turns the judge's verdict and the budgets left into the loop's next action.

The judge proposes; this policy disposes. It never answers below the confidence threshold
while budget remains, it moves to the other kind of retrieval when one is used up or has
stopped finding anything new, and it reports when it had to stop for lack of budget.
Pure functions only: no LM, no retrieval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from signatures import NextAction

from program.thresholds import Thresholds


@dataclass(frozen=True)
class Verdict:
    sufficient: bool = False
    confidence: float = 0.0
    missing: str = ""
    next_action: NextAction = "query_docs"
    queries: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    gaps: tuple[str, ...] = ()


@dataclass(frozen=True)
class Budget:
    doc_queries_left: int
    web_searches_left: int
    docs_stale: bool = False  # the last doc query found nothing new


@dataclass(frozen=True)
class Decision:
    action: NextAction
    reason: str
    ended: Literal["answered", "budget_exhausted"] = "answered"
    queries: tuple[str, ...] = ()  # when set, the gate's own queries replace the judge's


def decide(verdict: Verdict, budget: Budget, thresholds: Thresholds, uncovered: tuple[str, ...] = ()) -> Decision:
    """`uncovered`: sub-queries whose best indexed passage is under `coverage_similarity`.
    Retrieval scores are measured, the judge's verdict is an opinion: a small LM calls almost
    any evidence sufficient, so an uncovered sub-query goes to the web whatever it says."""
    if uncovered and budget.web_searches_left > 0:
        return Decision("search_web", f"the collection has no passage close to {', '.join(map(repr, uncovered))} "
                        f"(similarity under {thresholds.coverage_similarity:.2f})", queries=uncovered)
    if verdict.sufficient and verdict.next_action == "refine":
        return Decision("refine", f"evidence suffices (confidence {verdict.confidence:.2f}); the draft needs fixing")
    if verdict.sufficient and verdict.confidence >= thresholds.answer_confidence:
        return Decision("answer", f"evidence suffices (confidence {verdict.confidence:.2f})")
    why = _why_not(verdict, thresholds)
    docs = budget.doc_queries_left > 0 and not budget.docs_stale
    web = budget.web_searches_left > 0
    if verdict.next_action == "search_web" and web:
        return Decision("search_web", f"{why}; the judge asks for the web")
    if docs:
        return Decision("query_docs", f"{why}; re-querying the collection")
    if web:
        stale = "the last doc query found nothing new" if budget.docs_stale else "no doc queries left"
        return Decision("search_web", f"{why}; {stale}, so searching the web")
    if budget.doc_queries_left > 0:
        return Decision("query_docs", f"{why}; the web budget is spent, so re-querying the collection anyway")
    return Decision("answer", f"{why}, but the retrieval budgets are spent", ended="budget_exhausted")


def _why_not(verdict: Verdict, thresholds: Thresholds) -> str:
    if not verdict.sufficient:
        return f"insufficient: {verdict.missing or 'the judge names no missing fact'}"
    return f"confidence {verdict.confidence:.2f} is below {thresholds.answer_confidence:.2f}"
