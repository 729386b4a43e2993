"""The evidence pool: merges and deduplicates passages, numbers them, and renders the few
hundred tokens of the best sentences that the LM is shown, in MMR order across sub-queries.
Each passage is shown as quoted data: its source (the collection, or the web and its host) and
its text inside «», which nothing in the passage can close.

Numbers are stable for a question: passage [3] stays [3] after later retrievals, so citations
in a draft stay valid when the draft is refined. This module does not retrieve anything.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import numpy as np

from program.retrieval.passage import Passage
from program.retrieval.sections import markdown, rst
from program.retrieval.sections.blocks import RECORD_MARK

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
# a documentation page's blocks end sentences that no period ends: a blank line, or a line break
# before a heading, a table row, a list item, a code fence or a quote
_BLOCK_BREAK = re.compile(rf"\n\s*\n|\n(?=[ \t]*(?:#{{1,6}}\s|{RECORD_MARK}|```|>))")
# a table row or a list item: a record, whose parts only mean something together
_RECORD = re.compile(rf"\s*{RECORD_MARK}")
# a period after a title or an initial ("Dr. Robotnik", "A. A. Milne", "U.S. Army") ends no sentence
_NOT_AN_END = re.compile(r"(?:\b(?:Dr|Mr|Mrs|Ms|St|Jr|Sr|Prof|Gen|Col|Lt|Capt|Sgt|Rev|Mt|Ft|vs|No|Inc|Co|Corp|Ltd)|\b[A-Z])\.$")
_WORD = re.compile(r"[a-z0-9]+")
# a name written with underscores, kept whole: `SESSION_COOKIE_NAME`, `FLASK_`, `__init__`
_NAME_WORD = re.compile(r"_*[a-z0-9]+(?:_+[a-z0-9]+)*_*")
# a number as written ("9,984", "1.66.0", the 10 of "10MB"), not a digit inside a name (the 2 of "EC2", the 86 of "x86")
NUMERAL = re.compile(r"\b\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
# what could close a passage's «» or pass for one: guillemets and their look-alikes
_CLOSERS = str.maketrans(dict.fromkeys("«»‹›≪≫《》〈〉⟨⟩⟪⟫❮❯", '"'))
# DSPy's input headers ("[[ ## name ## ]]") and the chat template's special tokens ("<|im_end|>")
_PROMPT_MARKS = re.compile(r"\[{2,}|\]{2,}|<\|+|\|+>")
_HOST = re.compile(r"[^a-z0-9.:-]")
_STOP = frozenset("a an the of in on at to for and or is was were are be by with as from that this what which who whom when where how did does do its it his her their".split())


def is_year(numeral: str) -> bool:
    """The numeral reads as a year (1500 to 2099): a date, not an amount."""
    return bool(_YEAR.fullmatch(numeral))


def approx_tokens(text: str) -> int:
    """About four characters a token: close enough for English with the Qwen and GPT tokenizers."""
    return len(text) // 4 + 1


@functools.lru_cache(maxsize=16384)
def terms(text: str) -> frozenset[str]:
    # subtle: cached because the gate, the renderer and the factuality check ask it of the same sentences
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP)


def name_terms(text: str) -> frozenset[str]:
    """`terms`, with each name written with underscores one term: a code identifier is a name, not
    the words it is built of. The same as `terms` for a text with no underscore."""
    return frozenset(w for w in _NAME_WORD.findall(text.lower()) if w not in _STOP)


def split_blocks(text: str, record_tokens: int) -> list[str]:
    """The text's sentences, which a page's block breaks (`_BLOCK_BREAK`: a blank line, or a line
    opening a heading, table row, list item, code fence or quote) also end: in a function's
    reference the line "| Returns: | 0 if not allowed |" ends with no period, and as part of one
    long "sentence" it was cut away when the passage was trimmed. A table row or a list item of at
    most `record_tokens` is not split further: its first cell or words name what its sentences
    describe, and trimmed apart, "The default is 5 seconds" lost the
    "HealthCheckTimeoutSeconds" it was of. A longer one is split, so that a part of it can be shown."""
    return [sentence for block in _BLOCK_BREAK.split(text)
            for sentence in ([block.strip()] if _RECORD.match(block) and approx_tokens(block) <= record_tokens
                             else split_sentences(block))]


def split_sentences(text: str) -> list[str]:
    sentences: list[str] = []
    for piece in (p.strip() for p in _SENTENCE_END.split(text)):
        if sentences and _NOT_AN_END.search(sentences[-1]):
            sentences[-1] += " " + piece
        elif piece:
            sentences.append(piece)
    return sentences


def trim_to_sentences(text: str, focus: set[str] | frozenset[str], max_tokens: int) -> str:
    """Keep the first sentence (it names the subject) and the sentences sharing most terms
    with the focus, in their original order, within `max_tokens`."""
    return _trim(text, frozenset(focus), max_tokens)


# subtle: cached because every draft, refine and judge of a round, and every threshold trial
# replayed, trims the same passages to the same focus
@functools.lru_cache(maxsize=16384)
def _trim(text: str, focus: frozenset[str], max_tokens: int) -> str:
    sentences = split_blocks(text, max_tokens)
    ranked = [0] + sorted(range(1, len(sentences)), key=lambda i: -len(terms(sentences[i]) & focus))
    kept, used = set(), 0
    for i in ranked:
        cost = approx_tokens(sentences[i])
        if used + cost > max_tokens and kept:
            continue
        kept.add(i)
        used += cost
    trimmed = " ".join(sentences[i] for i in sorted(kept))
    return trimmed if approx_tokens(trimmed) <= max_tokens else trimmed[: max_tokens * 4].rsplit(" ", 1)[0] + " …"


@dataclass
class Shown:
    n: int
    passage: Passage
    text: str


@dataclass
class EvidencePool:
    passages: list[Passage] = field(default_factory=list)
    _keys: set[str] = field(default_factory=set)
    _fresh: list[int] = field(default_factory=list)

    def add(self, found: list[Passage]) -> int:
        """Add new passages (by chunk id and by text); returns how many were new."""
        before = len(self.passages)
        for p in found:
            keys = {p.chunk_id, p.text_key}
            if keys & self._keys:
                continue
            self._keys |= keys
            self._fresh.append(len(self.passages))
            self.passages.append(p)
        return len(self.passages) - before

    def render(self, focus: str, max_tokens: int, passage_tokens: int, cited: set[int] = frozenset(),
               earlier: int | None = None, relevance_weight: float = 1.0) -> list[Shown]:
        """Pick what the LM sees: passages new since the last render first, then the ones the
        draft cites, then the rest (at most `earlier` of them, when given), each group in MMR
        order (`mmr_order`); each passage shown as its built page shows it (`as_built`) and trimmed
        to its best sentences."""
        order = self._priority(cited, earlier, relevance_weight)
        self._fresh = []
        focus_terms = terms(focus)
        shown, used = [], 0
        for i in order:
            text = trim_to_sentences(as_built(self.passages[i]), focus_terms, passage_tokens)
            cost = approx_tokens(text) + 4
            if used + cost > max_tokens and shown:
                continue
            shown.append(Shown(n=i + 1, passage=self.passages[i], text=text))
            used += cost
        return shown

    def _priority(self, cited: set[int], earlier: int | None, relevance_weight: float) -> list[int]:
        def best_first(indices):
            return mmr_order(self.passages, list(indices), relevance_weight)

        cited_ids = [n - 1 for n in sorted(cited) if 0 < n <= len(self.passages)]
        first = list(dict.fromkeys(best_first(self._fresh) + cited_ids))
        rest = [i for i in best_first(range(len(self.passages))) if i not in first]
        return first + rest[:earlier]


def as_built(passage: Passage) -> str:
    """A passage's text as its built page shows it: its reStructuredText roles and directives (no other
    text holds them), and, from a markdown file, its escapes, empty anchors and link targets. Only a
    markdown file's: a source file's or an rst page's code keeps its backslashes (`r"\\d+\\."`)."""
    text = rst.shown_as_built(passage.text)
    return markdown.shown_as_built(text) if markdown.written_in_markdown(passage.origin) else text


def mmr_order(passages: list[Passage], indices: list[int], relevance_weight: float) -> list[int]:
    """Maximal marginal relevance: each next passage maximises
    `w * relevance - (1 - w) * its highest cosine to a passage already picked`, so a near-copy
    of a picked passage waits behind a passage that adds something. Relevance is the fused
    score over the best one. subtle: fused (RRF) scores are rank-based, so they interleave the
    top hits of every sub-query instead of letting the first query fill the budget. `w` = 1
    (or no vectors) is plain score order."""
    ranked = sorted(indices, key=lambda i: -passages[i].score)
    if relevance_weight >= 1.0 or len(ranked) < 3:
        return ranked
    top = max(passages[ranked[0]].score, 1e-9)
    relevance = np.array([passages[i].score / top for i in ranked])
    unit = _unit_vectors([passages[i] for i in ranked])
    closest = np.zeros(len(ranked))  # each passage's highest cosine to one already picked
    left, picked = list(range(len(ranked))), []
    while left:
        gains = relevance_weight * relevance[left] - (1 - relevance_weight) * closest[left]
        best = left[int(np.argmax(gains))]  # argmax takes the first of ties: score order breaks them
        picked.append(ranked[best])
        left.remove(best)
        if unit is not None:
            closest = np.maximum(closest, unit @ unit[best])
    return picked


def _unit_vectors(passages: list[Passage]) -> np.ndarray | None:
    """The passages' vectors scaled to length 1 (a passage without one: zeros, similar to nothing)."""
    units = [p.unit for p in passages]
    size = next((len(u) for u in units if u is not None), 0)
    if not size:
        return None
    return np.stack([u if u is not None else np.zeros(size, dtype=np.float32) for u in units])


def format_evidence(shown: list[Shown]) -> str:
    """One line a passage: `[n] index «title: text»` or `[n] web host «title: text»`."""
    return "\n".join(f"[{s.n}] {source_tag(s.passage)} «{quoted(f'{s.passage.title}: {s.text}')}»" for s in shown)


def quoted(text: str) -> str:
    """The text made safe inside «»: one line (no newline can start a fake passage), no
    guillemet or look-alike to close the quote, no `[[`/`]]` to fake a prompt field and no
    `<|`/`|>` to fake a chat turn."""
    flat = " ".join(text.translate(_CLOSERS).split())
    return _PROMPT_MARKS.sub(lambda mark: mark.group().strip("|")[:1], flat)


def source_tag(p: Passage) -> str:
    """Where a passage came from, as the LM reads it: `index`, or `web` and the page's host."""
    if p.source != "web":
        return p.source
    try:
        host = _HOST.sub("", urlsplit(p.url).hostname or "")
    except ValueError:  # a malformed URL (an unclosed "[" of an IPv6 host) has no host to show
        host = ""
    return f"web {host}" if host else "web"
