"""Citation precision against gold: the share of citations that point at a gold paragraph.

Unlike ALCE precision it needs no judge, only labelled supporting titles (HotpotQA has them).
An answer with no citation scores 0: it points at nothing. This module does not judge support.
"""

from __future__ import annotations

from metrics.evidence_recall import title_key


def gold_citation_precision(example, pred, trace=None) -> float | bool:
    result = getattr(pred, "result", None)
    citations = result.citations if result is not None else []
    gold = {title_key(t) for t in example.gold_titles}
    precision = sum(title_key(c.title) in gold for c in citations) / len(citations) if citations else 0.0
    return precision == 1.0 if trace is not None else precision
