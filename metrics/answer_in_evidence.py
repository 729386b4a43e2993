"""Answer in evidence: does the evidence, as the reader was shown it, hold the answer? No reader involved.

"As shown" is after trimming: each passage of `Result.evidence` with its text in
`Result.evidence_shown` (the best sentences the LM read), titled as the LM saw it. Where the
dataset names gold passages, the evidence holds the answer when every one of them is shown. A
gold source names a passage when what is shown from it is its document's only chunk
(`Passage.doc_chunks` 1: a HotpotQA or MuSiQue paragraph, a ClapNQ passage). A page cut into
several chunks (an AWS guide page) names no passage, only where to look: there the evidence
must show the page and hold a gold answer string, as FlashRAG scores retrieval. A question
without gold sources is scored on the answer string alone. The string match is on
`normalize_answer`'s text, word for word; yes/no answers cannot be found in text and are not
searched for. Not applicable (None) on an unanswerable question, where no evidence holds an
answer, when there is nothing to search for, and on results recorded before the shown text was
kept. Page-level `evidence_recall` is its neighbour in every report. This module does not score the answer.
"""

from __future__ import annotations

from metrics.answer_quality import normalize_answer
from metrics.gold_sources import cites_gold

UNSEARCHABLE = ("", "yes", "no")  # answers no text spells out


def answer_in_evidence(example, pred, trace=None) -> float | bool | None:
    held = _holds(example, pred) if example.answerable else None
    if trace is not None:
        return bool(held)
    return None if held is None else float(held)


def shown_text(pred) -> list[tuple[object, str]] | None:
    """Each passage shown with its text as shown; a plain prediction's passages are shown whole.
    None when the result did not keep the shown text (recorded before it was)."""
    result = getattr(pred, "result", None)
    evidence = list(result.evidence if result is not None else getattr(pred, "evidence", None) or [])
    texts = result.evidence_shown if result is not None else [p.text for p in evidence]
    return list(zip(evidence, texts)) if len(texts) == len(evidence) else None


def _holds(example, pred) -> bool | None:
    shown = shown_text(pred)
    if shown is None:
        return None
    gold = list(dict.fromkeys(example.gold_sources))
    found = {g: [p for p, _ in shown if cites_gold([g], p)] for g in gold}
    if not all(found.values()):
        return False
    if gold and all(p.doc_chunks == 1 for passages in found.values() for p in passages):
        return True
    return _spells_answer(example.answers, [f"{p.title} {text}" for p, text in shown])


def _spells_answer(answers: list[str], texts: list[str]) -> bool | None:
    """Some gold answer, normalized, occurs word for word in a shown text; None with none to look for."""
    wanted = [a for a in map(normalize_answer, answers) if a not in UNSEARCHABLE]
    if not wanted:
        return None
    shown = [f" {normalize_answer(t)} " for t in texts]
    return any(f" {a} " in text for a in wanted for text in shown)
