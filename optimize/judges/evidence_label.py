"""The `sufficiency` label: answer-in-evidence, on the evidence as shown to the reader (after trimming).

A state is sufficient when the passages shown hold every gold source the question names (a title or a
path, matched as evidence recall matches them: `metrics.gold_sources`), or, for a question that names
none, when the shown text holds a gold answer string (both normalized as EM normalizes them). An
unanswerable question is never sufficient. Reader-free: no LM reads anything here.
"""

from __future__ import annotations

import dspy

from metrics.answer_quality import normalize_answer
from metrics.gold_sources import cites_gold
from program.evidence import Shown


def answer_in_evidence(example: dspy.Example, shown: list[Shown]) -> bool:
    if not example.answerable:
        return False
    if example.gold_sources:
        return all(any(cites_gold([gold], s.passage) for s in shown) for gold in example.gold_sources)
    text = f" {normalize_answer(' '.join(s.text for s in shown))} "
    return any(f" {answer} " in text for answer in map(normalize_answer, example.answers) if answer)
