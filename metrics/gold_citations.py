"""Citation precision against gold: the share of citations that point at a gold source.

Unlike ALCE precision it needs no judge, only labelled gold sources (titles, paths or URLs,
matched by `metrics.gold_sources`). An answer with no citation scores 0: it points at nothing.
Not applicable (None) when the question has no gold source or is unanswerable. This module
does not judge support.
"""

from __future__ import annotations

from metrics.gold_sources import cites_gold


def gold_citation_precision(example, pred, trace=None) -> float | bool | None:
    if not example.gold_sources or not example.answerable:
        return True if trace is not None else None
    result = getattr(pred, "result", None)
    citations = result.citations if result is not None else []
    precision = sum(cites_gold(example.gold_sources, c) for c in citations) / len(citations) if citations else 0.0
    return precision == 1.0 if trace is not None else precision
