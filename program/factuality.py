"""Factuality: how well an answer agrees with the passages it cites, with no LM call.

Each claim (a sentence that states something, `program.citations.claims`) is read against the
passages it cites, or every shown passage when it cites none:
- support: the share of its content words the passages use, all its numbers among them
  (`lexical_support`, also the metrics' cheap support judge), averaged with the best cosine of its
  embedding to a passage's when an embedder is given (on WiCE dev, supported against not
  supported claims, balanced accuracy: lexical 0.72, embedding 0.79, their mean 0.84);
- a clear contradiction: a number or a month the claim states where its passages state a
  different one of the same kind (a year for a year), or a negation that a passage sentence
  saying nearly the same thing lacks (or the reverse). A contradicted claim's support is 0;
- an unsupported name: a name (`named_entities`) that neither the passages nor the question
  mention. It halves the claim's support; it is not a contradiction (a small LM's paraphrase
  or a web title can name what the passage spells otherwise);
- calibration: overconfident wording ("definitely", "guaranteed") over weak support, or heavy
  hedging over strong support, costs `MISCALIBRATED` of the score.
The score is the mean claim support times the calibration factor, in [0, 1]; an answer with no
claim (an admission) scores 1: nothing in it can disagree with the evidence.
This module only measures; whether an answer is repaired is `program.gate`'s decision.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from program.citations import cited_numbers, claims, outside_code, strip_markers
from program.decomposition import named_entities
from program.evidence import split_sentences, terms
from program.result import Factuality
from program.signals import mentions

Embed = Callable[[list[str]], list[list[float]]]  # texts -> their dense vectors

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"^1[5-9]\d\d$|^20\d\d$")
_MONTH = re.compile(r"\b(january|february|march|april|may|june|july|august|september|october|november|december)\b")
_NEGATION = re.compile(r"\b(not|no|never|neither|nor|none|cannot)\b|n't\b", re.I)
_OVERCONFIDENT = re.compile(r"\b(definitely|certainly|undoubtedly|unquestionably|guaranteed|always|absolutely|"
                            r"without (a )?doubt|100%)", re.I)
# subtle: "may" only in lower case: "May 1945" is a month, not a hedge
_HEDGE = re.compile(r"\b(?i:might|possibly|perhaps|probably|likely|unclear|uncertain|seems?|appears?|"
                    r"not sure|I think|could be)\b|\bmay\b")
# all-MiniLM-L6-v2's cosine of a claim to a passage, mapped onto support 0..1: on WiCE dev, supported claims
# have a median cosine of 0.67 to their evidence, not supported ones 0.46
EMBED_FLOOR, EMBED_FULL = 0.4, 0.8
# Jaccard overlap of the words of a claim and a passage sentence (negations aside) at which the two say the same
# thing; subtle: high on purpose, a contradiction buys a repair, and a long sentence sharing a claim's words
# ("directed by Richard Wallace" against "Temple did not direct it") is about something else
CLOSE_SENTENCE = 0.5
WEAK, STRONG = 0.5, 0.8  # mean support under which confident wording, and over which heavy hedging, is miscalibrated
MISCALIBRATED = 0.2


def numbers(text: str) -> set[str]:
    """The numbers in the text, thousands separators dropped ("1,000" is "1000")."""
    return {re.sub(r"(?<=\d),(?=\d{3}\b)", "", n) for n in _NUMBER.findall(text)}


def lexical_support(claim: str, passages: Sequence[str]) -> float:
    """Share of the claim's content words found in the passages; 0 if one of its numbers is missing."""
    text = " ".join(passages)
    if not numbers(claim) <= numbers(text):
        return 0.0
    wanted = terms(claim)
    return len(wanted & terms(text)) / len(wanted) if wanted else 0.0


def check_factuality(answer: str, question: str, passages: Mapping[int, str], shown: Sequence[int],
                     embed: Embed | None = None) -> Factuality:
    """`passages`: each passage's number [n] to its text (title first); `shown`: the numbers the
    LM was shown, read for a claim that cites none; `embed`: the dense embedder, if any."""
    found = claims(outside_code(answer))
    if not found:
        return Factuality(score=1.0, support=1.0, claims=0)
    supports, contradictions, unsupported = [], [], []
    for claim in found:
        refs = [n for n in cited_numbers(claim) if n in passages] or [n for n in shown if n in passages]
        texts, text = [passages[n] for n in refs], strip_markers(claim).strip()
        conflict = contradiction(text, texts, refs, question)
        names = [e for e in named_entities(text) if not any(mentions(e, t) for t in [*texts, question])]
        support = 0.0 if conflict or not texts else _support(text, texts, embed)
        supports.append(support / 2 if names else support)
        contradictions += [conflict] if conflict else []
        unsupported += [f"{name!r} is in no passage it cites" for name in names]
    support = sum(supports) / len(supports)
    wording = miscalibration(answer, support)
    score = support * (1 - MISCALIBRATED if wording else 1.0)
    return Factuality(score=round(score, 3), support=round(support, 3), claims=len(found),
                      contradictions=contradictions, unsupported=unsupported, miscalibrated=wording)


def contradiction(claim: str, texts: Sequence[str], refs: Sequence[int], question: str = "") -> str:
    """What the claim states against its passages (a number, a month, a negation); empty when nothing."""
    text = " ".join(texts)
    for stated, said in ((numbers(claim) - numbers(question), numbers(text)), (_months(claim) - _months(question), _months(text))):
        for value in sorted(stated - said):
            other = sorted(s for s in said if _same_kind(s, value))
            if other:
                return f"it says {value} where {_cited(refs)} says {', '.join(other[:2])}"
    close = _closest_sentence(claim, texts)
    if close and bool(_NEGATION.search(claim)) != bool(_NEGATION.search(close)):
        side = "denies" if _NEGATION.search(claim) else "affirms"
        return f"it {side} what {_cited(refs)} states the other way: {close[:80]!r}"
    return ""


def miscalibration(answer: str, support: float) -> str:
    """Overconfident wording over weak support, or heavy hedging over strong support; empty when neither."""
    prose = strip_markers(outside_code(answer))
    if support < WEAK and (sure := _OVERCONFIDENT.search(prose)):
        return f"{sure.group(0)!r} over weak support ({support:.2f})"
    if support >= STRONG and len(_HEDGE.findall(prose)) >= 2:
        return f"heavy hedging over strong support ({support:.2f})"
    return ""


def _same_kind(a: str, b: str) -> bool:
    """Two values a reader would compare: two years, two months, or two other numbers."""
    if a.isalpha() or b.isalpha():
        return a.isalpha() and b.isalpha()
    return bool(_YEAR.match(a)) == bool(_YEAR.match(b))


def _months(text: str) -> set[str]:
    return set(_MONTH.findall(text.lower())) - ({"may"} if not re.search(r"\bMay\b", text) else set())


def _closest_sentence(claim: str, texts: Sequence[str]) -> str:
    """The passage sentence sharing most of its words with the claim (negations aside), if close enough."""
    wanted = _plain_terms(claim)
    if len(wanted) < 3:
        return ""
    scored = [(len(wanted & (said := _plain_terms(s))) / len(wanted | said), s) for t in texts for s in split_sentences(t)]
    share, sentence = max(scored, default=(0.0, ""))
    return sentence if share >= CLOSE_SENTENCE else ""


def _plain_terms(text: str) -> set[str]:
    return terms(_NEGATION.sub(" ", text))


def _support(claim: str, texts: Sequence[str], embed: Embed | None) -> float:
    lexical = lexical_support(claim, texts)
    return lexical if embed is None else (lexical + _embedded(claim, texts, embed)) / 2


def _embedded(claim: str, texts: Sequence[str], embed: Embed) -> float:
    """The claim's best cosine to one of its passages, mapped from [EMBED_FLOOR, EMBED_FULL] onto [0, 1]."""
    vectors = np.asarray(embed([claim, *texts]), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    best = float(np.max(vectors[1:] @ vectors[0]))
    return min(1.0, max(0.0, (best - EMBED_FLOOR) / (EMBED_FULL - EMBED_FLOOR)))


def _cited(refs: Sequence[int]) -> str:
    return "".join(f"[{n}]" for n in refs) or "the evidence"
