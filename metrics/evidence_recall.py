"""Evidence recall: the share of gold supporting paragraphs among the passages the program used.

"Used" is the evidence shown to the LM for the final answer (`Result.evidence`), matched on
title, case- and space-insensitively. Web results carry their page title, so a held-out
paragraph found on the web counts. This module does not look at the answer.
"""

from __future__ import annotations


def evidence_recall(example, pred, trace=None) -> float | bool:
    gold = {title_key(t) for t in example.gold_titles}
    used = {title_key(p.title) for p in getattr(pred, "evidence", None) or []}
    recall = len(gold & used) / len(gold) if gold else 0.0
    return recall == 1.0 if trace is not None else recall


def title_key(title: str) -> str:
    """Titles compare case- and space-insensitively."""
    return " ".join(title.lower().split())
