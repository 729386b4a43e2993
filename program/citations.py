"""Citations: read the [n] markers of an answer, and attach one where a small LM left it out.

A sentence with no marker gets the shown passage sharing most terms with it and the question,
and the result says so in a warning: a post-hoc citation is a guess, visible as one.
This module does not judge whether a citation supports its sentence; metrics do.
"""

from __future__ import annotations

import re

from program.evidence import Shown, terms

_CITE = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def cited_numbers(answer: str) -> list[int]:
    """Every n cited as [n], [n, m] or [n][m], in order of first use."""
    found = [int(n) for group in _CITE.findall(answer) for n in group.split(",")]
    return list(dict.fromkeys(found))


def attach_missing(answer: str, question: str, shown: list[Shown]) -> tuple[str, int]:
    """The answer with a best-match [n] after each uncited sentence, and how many were added."""
    if not shown:
        return answer, 0
    sentences, added = [], 0
    for sentence in _SENTENCE.split(answer.strip()):
        best = None if _CITE.search(sentence) else _best_match(sentence, question, shown)
        if best is not None:
            sentence = _cite(sentence, best)
            added += 1
        sentences.append(sentence)
    return " ".join(sentences), added


def _best_match(sentence: str, question: str, shown: list[Shown]) -> int | None:
    wanted = terms(sentence) | terms(question)
    overlap, n = max((len(wanted & terms(f"{s.passage.title} {s.text}")), -s.n) for s in shown)
    return -n if overlap else None


def _cite(sentence: str, n: int) -> str:
    body = sentence.rstrip()
    end = body[-1] if body and body[-1] in ".!?" else ""
    return f"{body[:len(body) - len(end)]} [{n}]{end}"
