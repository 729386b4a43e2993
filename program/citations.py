"""Citations: read the [n] markers of an answer, and attach one where a small LM left it out.

A sentence with no marker gets the shown passage sharing most terms with it and the question,
and the result says so in a warning: a post-hoc citation is a guess, visible as one. Fenced
code blocks are not prose: nothing is attached inside them.
This module does not judge whether a citation supports its sentence; metrics do.
"""

from __future__ import annotations

import re

from program.code_check import find_blocks
from program.evidence import Shown, terms

_CITE = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def cited_numbers(answer: str) -> list[int]:
    """Every n cited as [n], [n, m] or [n][m], in order of first use, outside code blocks
    (where `rows[1]` indexes a list and cites nothing)."""
    found = [int(n) for group in _CITE.findall(_prose(answer)) for n in group.split(",")]
    return list(dict.fromkeys(found))


def attach_missing(answer: str, question: str, shown: list[Shown]) -> tuple[str, int]:
    """The answer with a best-match [n] after each uncited sentence, and how many were added.
    Fenced code blocks are kept as written: a [n] or a joined line inside code breaks it."""
    if not shown:
        return answer, 0
    pieces, added, prose_from = [], 0, 0
    for block in find_blocks(answer):
        prose, n = _attach_to_prose(answer[prose_from:block.start], question, shown)
        pieces += [prose, answer[block.start:block.end]]
        added, prose_from = added + n, block.end
    prose, n = _attach_to_prose(answer[prose_from:], question, shown)
    return ("".join(pieces) + prose).strip(), added + n


def _attach_to_prose(prose: str, question: str, shown: list[Shown]) -> tuple[str, int]:
    if not prose.strip():
        return prose, 0
    sentences, added = [], 0
    for sentence in _SENTENCE.split(prose.strip()):
        best = None if _CITE.search(sentence) else _best_match(sentence, question, shown)
        if best is not None:
            sentence = _cite(sentence, best)
            added += 1
        sentences.append(sentence)
    # the whitespace around the prose keeps the code fences on their own lines
    lead, trail = prose[:len(prose) - len(prose.lstrip())], prose[len(prose.rstrip()):]
    return lead + " ".join(sentences) + trail, added


def _prose(answer: str) -> str:
    kept, prose_from = [], 0
    for block in find_blocks(answer):
        kept.append(answer[prose_from:block.start])
        prose_from = block.end
    return "".join(kept) + answer[prose_from:]


def _best_match(sentence: str, question: str, shown: list[Shown]) -> int | None:
    wanted = terms(sentence) | terms(question)
    overlap, n = max((len(wanted & terms(f"{s.passage.title} {s.text}")), -s.n) for s in shown)
    return -n if overlap else None


def _cite(sentence: str, n: int) -> str:
    body = sentence.rstrip()
    end = body[-1] if body and body[-1] in ".!?" else ""
    return f"{body[:len(body) - len(end)]} [{n}]{end}"
