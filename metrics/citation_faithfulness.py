"""Citation faithfulness per claim, as ALCE computes it (Gao et al. 2023, `compute_autoais`).

The answer is split into sentences; each sentence that states something is a claim.
- Recall: a claim is supported when its cited passages, joined, support it (no citation: not).
- Precision: a sentence with one citation earns it a point when supported. A supported sentence
  with several citations earns a point per citation, except a citation that does not support
  the sentence alone *and* whose removal leaves the sentence supported (it is over-citing).
  An unsupported sentence's citations earn nothing. Precision = points / citations.
The judge decides support (`metrics.support_judge`). This module does not judge answers.
"""

from __future__ import annotations

from pydantic import BaseModel

from metrics.support_judge import LexicalSupportJudge
from program.answer.citations import cited_numbers, claims, strip_markers
from program.contract.result import Citation


class CitationScores(BaseModel):
    recall: float = 0.0
    precision: float = 0.0
    claims: int = 0
    supported_claims: int = 0
    citations: int = 0
    precise_citations: int = 0
    unsupported: list[str] = []


def score_citations(answer: str, citations: list[Citation], judge) -> CitationScores:
    quotes = {c.n: c.quote for c in citations}
    scores = CitationScores()
    for sentence in claims(answer):
        refs = [n for n in cited_numbers(sentence) if n in quotes]
        text = strip_markers(sentence).strip()
        supported = bool(refs) and judge(text, [quotes[n] for n in refs])
        scores.claims += 1
        scores.supported_claims += supported
        scores.citations += len(refs)
        scores.precise_citations += _precise(text, refs, quotes, judge) if supported else 0
        if not supported:
            scores.unsupported.append(text)
    scores.recall = scores.supported_claims / scores.claims if scores.claims else 0.0
    scores.precision = scores.precise_citations / scores.citations if scores.citations else 0.0
    return scores


def _precise(text: str, refs: list[int], quotes: dict[int, str], judge) -> int:
    """How many of a supported sentence's citations are not over-citations."""
    if len(refs) == 1:
        return 1
    over = sum(not judge(text, [quotes[n]]) and judge(text, [quotes[m] for m in refs if m != n]) for n in refs)
    return len(refs) - over


def citation_recall(example, pred, trace=None, judge=None) -> float | bool:
    scores = _scores(pred, judge)
    return scores.recall == 1.0 if trace is not None else scores.recall


def citation_precision(example, pred, trace=None, judge=None) -> float | bool:
    scores = _scores(pred, judge)
    return scores.precision == 1.0 if trace is not None else scores.precision


def _scores(pred, judge) -> CitationScores:
    result = getattr(pred, "result", None)
    if result is None:
        return CitationScores()
    return score_citations(result.answer, result.citations, judge or LexicalSupportJudge())
