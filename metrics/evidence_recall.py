"""Evidence recall: the share of gold sources among the passages the program used.

"Used" is the evidence shown to the LM for the final answer (`Result.evidence`), matched by
`metrics.gold_sources.source_matches` (a title, or a path/URL suffix). Web results carry their
page title, so a held-out paragraph found on the web counts. Not applicable (None, left out of
means) when the question has no gold source or is unanswerable: there is no evidence to find.
This module does not look at the answer.
"""

from __future__ import annotations

from metrics.gold_sources import matched


def evidence_recall(example, pred, trace=None) -> float | bool | None:
    if not example.gold_sources or not example.answerable:
        return True if trace is not None else None
    gold = list(dict.fromkeys(example.gold_sources))
    recall = len(matched(gold, getattr(pred, "evidence", None) or [])) / len(gold)
    return recall == 1.0 if trace is not None else recall
