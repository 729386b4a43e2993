"""Factuality: how well an answer agrees with the passages it cites, with no LM call.

Each claim (a sentence that states something, `program.answer.citations.claims`) is read against the
passages it cites, or every shown passage when it cites none:
- support: the share of its content words the passages use, all its numbers among them
  (`lexical_support`, also the metrics' cheap support judge), averaged with the best cosine of its
  embedding to a passage's when an embedder is given (on WiCE dev, supported against not
  supported claims, balanced accuracy: lexical 0.72, embedding 0.79, their mean 0.84);
- a clear contradiction: a number or a month the claim states where its passages state a
  different one of the same kind (a year for a year), and that nothing else the LM read (the
  question, the other shown passages) states either: a value from another passage is a wrong
  citation, not a contradiction of the evidence; or a negation that a passage clause saying
  nearly the same thing lacks (or the reverse). A contradicted claim's support is 0;
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

import functools
import re
import threading
from collections.abc import Callable, Mapping, Sequence

import cachetools
import numpy as np

from program.answer.citations import cited_numbers, claims, outside_code, strip_markers
from program.contract.result import Factuality
from program.decomposition import named_entities
from program.evidence import NUMERAL, is_year, split_sentences, terms
from program.signals import mentions

Embed = Callable[[list[str]], list[list[float]]]  # texts -> their dense vectors

_MONTH = re.compile(r"\b(january|february|march|april|may|june|july|august|september|october|november|december)\b")
_NEGATION = re.compile(r"\b(not|no|never|neither|nor|none|cannot)\b|n't\b", re.I)
# subtle: negations are compared clause by clause: "Although X is similar to Y's work, the builder has not been
# determined" denies nothing about the similarity a claim affirms
# subtle: no leading `\s*`: tried at every space of a long run of them, it was quadratic
_CLAUSE = re.compile(r"[,;:]\s+|\b(?:but|although|though|whereas|while|yet)\b", re.I)
_OVERCONFIDENT = re.compile(r"\b(definitely|certainly|undoubtedly|unquestionably|guaranteed|always|absolutely|"
                            r"without (a )?doubt|100%)", re.I)
# subtle: "may" only in lower case: "May 1945" is a month, not a hedge
_HEDGE = re.compile(r"\b(?i:might|possibly|perhaps|probably|likely|unclear|uncertain|seems?|appears?|"
                    r"not sure|I think|could be)\b|\bmay\b")
# all-MiniLM-L6-v2's cosine of a claim to a passage, mapped onto support 0..1: on WiCE dev, supported claims
# have a median cosine of 0.67 to their evidence, not supported ones 0.46
EMBED_FLOOR, EMBED_FULL = 0.4, 0.8
# Jaccard overlap of the words of two clauses (negations aside) at which they say the same thing; subtle: high
# on purpose, a contradiction buys a repair, and a long clause sharing a claim's words ("a film starring Shirley
# Temple, directed by Richard Wallace" against "Temple did not direct it") is about something else
CLOSE_SENTENCE = 0.5
WEAK, STRONG = 0.5, 0.8  # mean support under which confident wording, and over which heavy hedging, is miscalibrated
MISCALIBRATED = 0.2


# subtle: the text readers below are cached: every claim of every draft is read against the same
# passages, and a threshold replay reads the same drafts against them trial after trial
@functools.lru_cache(maxsize=8192)
def numbers(text: str) -> frozenset[str]:
    """The numbers in the text, thousands separators dropped ("1,000" is "1000")."""
    return frozenset(re.sub(r"(?<=\d),(?=\d{3}\b)", "", n) for n in NUMERAL.findall(text))


def lexical_support(claim: str, passages: Sequence[str]) -> float:
    """Share of the claim's content words found in the passages; 0 if one of its numbers is missing."""
    text = " ".join(passages)
    if not numbers(claim) <= numbers(text):
        return 0.0
    wanted = terms(claim)
    return len(wanted & terms(text)) / len(wanted) if wanted else 0.0


def _factuality_key(answer: str, question: str, passages: Mapping[int, str], shown: Sequence[int],
                    embed: Embed | None = None, stored: Mapping[int, Sequence[float]] | None = None) -> tuple:
    # the embedder itself is in the key (held, so its id is never reused): a fake one differs; the
    # stored vectors come from the same search as `embed`, so the passages' texts stand for them
    return answer, question, tuple(passages.items()), tuple(shown), embed, tuple(stored or ())


# subtle: remembered because the threshold replay scores the same draft on the same passages in
# trial after trial; an embedding call and the claim-by-claim reading are most of a score
@cachetools.cached(cachetools.LRUCache(maxsize=4096), key=_factuality_key, lock=threading.Lock())
def check_factuality(answer: str, question: str, passages: Mapping[int, str], shown: Sequence[int],
                     embed: Embed | None = None, stored: Mapping[int, Sequence[float]] | None = None) -> Factuality:
    """`passages`: each passage's number [n] to its text (title first); `shown`: the numbers the
    LM was shown, read for a claim that cites none; `embed`: the dense embedder, if any; `stored`:
    the passages' vectors as the index holds them (its title and text), so that only the claims
    and the other passages are embedded."""
    found = [(strip_markers(c).strip(), _refs(c, passages, shown)) for c in claims(outside_code(answer))]
    if not found:
        return Factuality(score=1.0, support=1.0, claims=0)
    indexed = {passages[n]: vector for n, vector in (stored or {}).items() if n in passages}
    # one embedding call for every claim and passage read whose vector the index does not hold, each text once
    read = [t for t, _ in found] + [passages[n] for _, refs in found for n in refs]
    vectors = _vectors(embed, read, indexed) if embed else {}
    known = " ".join([question, *(passages[n] for n in shown if n in passages)])
    supports, contradictions, unsupported = [], [], []
    for text, refs in found:
        texts = [passages[n] for n in refs]
        conflict = contradiction(text, texts, refs, known)
        names = [e for e in named_entities(text) if not any(mentions(e, t) for t in [*texts, question])]
        support = 0.0 if conflict or not texts else _support(text, texts, vectors)
        supports.append(support / 2 if names else support)
        contradictions += [conflict] if conflict else []
        unsupported += [f"{name!r} is in no passage it cites" for name in names]
    support = sum(supports) / len(supports)
    wording = miscalibration(answer, support)
    score = support * (1 - MISCALIBRATED if wording else 1.0)
    return Factuality(score=round(score, 3), support=round(support, 3), claims=len(found),
                      contradictions=contradictions, unsupported=unsupported, miscalibrated=wording)


def contradiction(claim: str, texts: Sequence[str], refs: Sequence[int], known: str = "") -> str:
    """What the claim states against its passages `texts` (a number, a month, a negation); empty
    when nothing. A number or month found in `known` (what else the LM read) is not held against it."""
    text = " ".join(texts)
    for stated, said in ((numbers(claim) - numbers(known), numbers(text)), (_months(claim) - _months(known), _months(text))):
        for value in sorted(stated - said):
            other = sorted(s for s in said if _same_kind(s, value))
            if other:
                return f"it says {value} where {_cited(refs)} says {', '.join(other[:2])}"
    said_clauses = [c for t in texts for c in _passage_clauses(t)]
    for clause in _clauses(claim):
        close = _closest(clause, said_clauses)
        if close and bool(_NEGATION.search(clause)) != bool(_NEGATION.search(close)):
            side = "denies" if _NEGATION.search(clause) else "affirms"
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
    return is_year(a) == is_year(b)


@functools.lru_cache(maxsize=8192)
def _months(text: str) -> frozenset[str]:
    return frozenset(_MONTH.findall(text.lower())) - ({"may"} if not re.search(r"\bMay\b", text) else set())


@functools.lru_cache(maxsize=8192)
def _passage_clauses(text: str) -> tuple[str, ...]:
    return tuple(c for sentence in split_sentences(text) for c in _clauses(sentence))


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSE.split(text) if c and c.strip()]


def _closest(clause: str, said: Sequence[str]) -> str:
    """The passage clause sharing most of its words with the clause (negations aside), if close enough."""
    wanted = _plain_terms(clause)
    if len(wanted) < 3:
        return ""
    scored = [(len(wanted & (words := _plain_terms(s))) / len(wanted | words), s) for s in said]
    share, closest = max(scored, default=(0.0, ""))
    return closest if share >= CLOSE_SENTENCE else ""


@functools.lru_cache(maxsize=16384)
def _plain_terms(text: str) -> frozenset[str]:
    return terms(_NEGATION.sub(" ", text))


def _refs(claim: str, passages: Mapping[int, str], shown: Sequence[int]) -> list[int]:
    """The passages a claim rests on: those it cites, or every shown one when it cites none."""
    return [n for n in cited_numbers(claim) if n in passages] or [n for n in shown if n in passages]


def _support(claim: str, texts: Sequence[str], vectors: Mapping[str, np.ndarray]) -> float:
    """The lexical share, averaged with the embedding's when there are vectors: the claim's best
    cosine to one of its passages, mapped from [EMBED_FLOOR, EMBED_FULL] onto [0, 1]."""
    lexical = lexical_support(claim, texts)
    if not vectors:
        return lexical
    best = max(float(vectors[t] @ vectors[claim]) for t in texts)
    return (lexical + min(1.0, max(0.0, (best - EMBED_FLOOR) / (EMBED_FULL - EMBED_FLOOR)))) / 2


def _vectors(embed: Embed, texts: list[str], known: Mapping[str, Sequence[float]]) -> dict[str, np.ndarray]:
    """Each distinct text's unit vector: its known one, or embedded."""
    unique = list(dict.fromkeys(texts))
    missing = [t for t in unique if t not in known]
    found = dict(zip(missing, embed(missing))) if missing else {}
    vectors = np.asarray([known[t] if t in known else found[t] for t in unique], dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    return dict(zip(unique, vectors))


def _cited(refs: Sequence[int]) -> str:
    return "".join(f"[{n}]" for n in refs) or "the evidence"
