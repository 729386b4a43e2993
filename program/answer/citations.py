"""Citations: read the [n] markers of an answer, and attach one where a small LM left it out.

A sentence with no marker gets the shown passage sharing most terms with it and the question,
and the result says so in a warning: a post-hoc citation is a guess, visible as one. Fenced
code blocks are not prose: nothing is attached inside them.
`claims` splits an answer into the sentences that state something, for the metrics and the
factuality check. This module does not judge whether a citation supports its sentence
(`program.answer.factuality` and `metrics` do).
"""

from __future__ import annotations

import re

from program.answer.code_check import find_blocks
from program.evidence import Shown, terms

_CITE = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# a claim ends at a sentence end, or at a [n] marker followed by a capital
_CLAIM_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=\])\s+(?=[A-Z])")
_MARKERS = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
# the loop's own "I could not find the answer" is an admission, not a claim
_NO_CLAIM = re.compile(r"\b(could not find|cannot find|does not (contain|say|mention)|no (information|evidence))\b", re.I)


def cited_numbers(answer: str) -> list[int]:
    """Every n cited as [n], [n, m] or [n][m], in order of first use, outside code blocks
    (where `rows[1]` indexes a list and cites nothing)."""
    found = [int(n) for group in _CITE.findall(outside_code(answer)) for n in group.split(",")]
    return list(dict.fromkeys(found))


def claims(answer: str) -> list[str]:
    """The answer's sentences that state something, with their [n] markers kept."""
    sentences = [s.strip() for s in _CLAIM_END.split(answer or "") if s.strip()]
    return [s for s in sentences if re.search(r"\w", strip_markers(s)) and not _NO_CLAIM.search(s)]


def strip_markers(text: str) -> str:
    """The text without its [n] markers."""
    return _MARKERS.sub("", text)


def first_sentence(prose: str) -> str:
    """The prose up to its first sentence end, the way `attach_missing` splits sentences."""
    return _SENTENCE.split(prose.strip(), maxsplit=1)[0]


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


def outside_code(answer: str) -> str:
    """The answer outside its fenced code blocks."""
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
