"""Retrieval signals: what the scores, vectors and pool already say, computed every round with no LM.

- score cliff: the largest relative gap in a ranked list, a stop signal and the adaptive cut;
- spread: how far the question's k-th best similarity falls under its best (a flat top-k is small);
- coverage: each sub-query's best dense similarity, which sub-queries name nothing the collection
  has a page on, which named entities the evidence mentions,
  and which of the question's own terms it never uses (a bridge question's second hop: "where is
  the company X worked for *headquartered*?" when only X's page was found);
- echoes: how near each pool passage comes to an earlier one (the gate counts the near-duplicates);
- saturation: how full the evidence budget is;
- gain: the coverage the last round added (diminishing returns).

Pure functions over numbers and text. This module decides nothing: `program.gate` reads `Signals`.
"""

from __future__ import annotations

import difflib
import functools
import re
import threading
import unicodedata
from dataclasses import dataclass, fields, replace
from pathlib import PurePosixPath

import cachetools
import numpy as np
from py_rust_stemmers import SnowballStemmer

from program.answer.short_answer import (
    VERDICTS,
    asks_count,
    asks_yes_or_no,
    dates_a_duration,
    is_verdict,
    question_writes,
    says_number,
)
from program.decomposition import compared_names, describes_an_entity, named_entities
from program.evidence import approx_tokens, name_terms, split_sentences, terms
from program.retrieval.passage import Passage
from program.thresholds import Thresholds

_WORD = re.compile(r"[a-z0-9]+")
_LATIN = re.compile(r"[A-Za-z]")
_DISAMBIGUATION = re.compile(r"\s*\([^)]*\)\s*$")
# where a title's subject ends and its description starts: "json — JSON encoder", "S3: Buckets"
# (a separator's spaces start after a non-space: from every space of a long run, the search was quadratic)
_TITLE_TAIL = re.compile(r"(?<=\S)\s+[—–-]\s+|:\s+|(?<=\S)\s+\|\s+")
# question words that say how to ask, not what to find: no passage needs to use them
_ASKING = frozenset("any both but besides during many much same someone something other also older younger "
                    "higher lower more less most least first last whose well just only".split())
# a lowercase name as documentation writes one (`skip`, `wikilink`, `remark-math`, `db.t2.small`)
_NAME = re.compile(r"[a-z][a-z0-9_.-]*")
# questions whose answer is one of their own names
_CHOICE = re.compile(r"\b(or|both|either|neither|same|between|which (one|of))\b", re.IGNORECASE)
# an auxiliary's forms are one word when a short answer is checked for restating its question:
# "... had an effect on Texas" restates "why did ... have an effect on Texas"
_AUXILIARIES = {"had": "have", "has": "have", "having": "have", "did": "do", "does": "do", "done": "do",
                "doing": "do", "am": "be", "been": "be", "being": "be"}
# the English Snowball stemmer (the one fastembed's BM25 uses): "located"/"location", "seated"/"seats"
_STEM = SnowballStemmer("english").stem_word
# small counts as words and as digits are one term when a short answer is matched to its passage:
# "1" overtime period is what "only one overtime period is played" says
_CARDINALS = {w: str(n) for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve "
                                                 "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}


@dataclass(frozen=True)
class Signals:
    best: float  # the question's best dense similarity
    cliff: float  # the largest relative gap in the question's ranked list, 0 when flat
    spread: float  # the question's best similarity minus its k-th best; 1.0 with fewer than two
    min_coverage: float  # the lowest best similarity over the sub-queries
    entity_coverage: float  # share of the named entities the evidence mentions
    echoes: tuple[float, ...]  # each pool passage's highest cosine with an earlier one; -1.0 for the first
    saturation: float
    gain: float  # coverage added by the last round; 1.0 after the first retrieval
    term_coverage: float = 1.0  # share of the question's own terms the evidence uses
    sub_queries: tuple[tuple[str, float], ...] = ()  # each measured sub-query and its best similarity
    missing_entities: tuple[str, ...] = ()
    unnamed: tuple[str, ...] = ()  # of those, the ones no word of the evidence is even close to (see `loosely_mentions`)
    missing_terms: tuple[str, ...] = ()  # the question's terms no passage uses
    bridges: tuple[str, ...] = ()  # names a bridge question goes through (see `bridge_entities`)
    unmet_bridges: tuple[str, ...] = ()  # of those, the ones no passage is about
    strong_neighbours: int = 0  # strong hits whose neighbouring chunks are not in the pool yet
    pageless: tuple[str, ...] = ()  # the question's names that no passage is titled after (see `titled_after`)
    named: int = 0  # how many names the question has
    compared_pageless: tuple[str, ...] = ()  # of the two names a comparison compares, those with no page
    compared: int = 0  # how many names a comparison compares; 0 for any other question
    unsourced: tuple[str, ...] = ()  # measured sub-queries naming a name with no page, or no name at all

    @property
    def coverage(self) -> float:
        """One number for "how much of the question the evidence reaches", for the gain."""
        return (min(max(self.min_coverage, 0.0), 1.0) + self.entity_coverage + self.term_coverage) / 3

    def as_trace(self) -> dict[str, float]:
        """The numeric signals, rounded, for a trace step."""
        numbers = {f.name: getattr(self, f.name) for f in fields(self)}
        return {k: round(float(v), 3) for k, v in numbers.items() if isinstance(v, (int, float))}


def measured_queries(best_by_query: dict[str, float | None]) -> dict[str, float]:
    """The queries whose best similarity says something about coverage: those with a similarity, of
    more than one word (a one-word query is never close to a whole passage)."""
    return {q: best for q, best in best_by_query.items() if best is not None and len(_WORD.findall(q)) > 1}


def score_cliff(scores: list[float]) -> tuple[float, int]:
    """(the largest gap between neighbours in the ranked scores, relative to the best score;
    how many scores stand before it). A flat list has a gap near 0."""
    ranked = sorted(scores, reverse=True)
    if len(ranked) < 2 or ranked[0] <= 0:
        return 0.0, len(ranked)
    gaps = [(ranked[i] - ranked[i + 1]) / ranked[0] for i in range(len(ranked) - 1)]
    at = int(np.argmax(gaps))
    return float(gaps[at]), at + 1


def top_spread(scores: list[float], k: int) -> float:
    """The best score minus the k-th best: near 0 when no passage stands out; 1.0 with fewer than two."""
    top = sorted(scores, reverse=True)[:k]
    return top[0] - top[-1] if len(top) > 1 else 1.0


def mentions(entity: str, text: str) -> bool:
    """The entity's name, or every word of it, in the text (case and punctuation aside)."""
    words = _words(entity)
    return bool(words) and (entity.lower() in text.lower() or words <= _words(text))


def loosely_mentions(entity: str, text: str) -> bool:
    """`mentions`, forgiving a question's typo: each word of the name of four letters or more is in
    the text or close to one of its words (the same first two letters, difflib's ratio 0.8 or more),
    and shorter words may be missing: "Livesey Hal War Memorial" is met by "Livesey Hall War
    Memorial"; "PutObject" is not met by "GetObject"."""
    words = _words(entity)
    wanted = [w for w in words if len(w) >= 4] or list(words)
    seen = _words(text)
    return bool(wanted) and all(w in seen or _close(w, seen) for w in wanted)


def _close(word: str, seen: frozenset[str]) -> bool:
    alike = [w for w in seen if w[:2] == word[:2]]
    return bool(difflib.get_close_matches(word, alike, n=1, cutoff=0.8))


@functools.lru_cache(maxsize=16384)
def _words(text: str) -> frozenset[str]:
    # subtle: cached because the gate compares the same names and titles many times a round
    return frozenset(_WORD.findall(text.lower()))


def question_terms(question: str, entities: list[str]) -> list[str]:
    """The question's content terms outside its named entities: what a passage must say about them."""
    named = {w for e in entities for w in terms(e)}
    return sorted(w for w in terms(question) - named if len(w) > 2 and not w.isdigit() and w not in _ASKING)


def link_terms(question: str, key_concepts: list[str]) -> list[str]:
    """The words a link's URL path is matched against (`program.retrieval.breadth`): the question's
    terms and every word of its key concepts."""
    return question_terms(question, key_concepts) + [w for e in key_concepts for w in e.split()]


def unused_terms(wanted: list[str], text: str) -> tuple[str, ...]:
    """The wanted terms the text never uses, compared by stem."""
    stems = {_STEM(w) for w in terms(text)}
    return tuple(w for w in wanted if _STEM(w) not in stems)


def bridge_entities(question: str, entities: list[str], pool: list[Passage], limit: int = 2) -> tuple[str, ...]:
    """The names a bridge question goes through: those in the sentence, of a page on one of the
    question's names (its title names it), that shares most terms with the question ("He worked
    as a software engineer in Tata Consultancy Services"), other than the question's names and the
    page's own subject. When no sentence shares a term, the page's first: it says what the
    subject is and where it belongs ("Ceelmakoile is a town in the central Hiran region of
    Somalia", for who was in charge of its country). Empty when no such sentence names anything,
    and for a question that names all it asks about (see `describes_an_entity`): a documentation
    page's sentences name headings, link targets and options ("Note",
    "Concepts.Storage.GeneralSSD"), and a hop through them only adds passages the answer is not in.
    subtle: a page that merely mentions a name is often the second hop itself (Alex Ferguson's
    page mentions Manchester United); the names in its sentences lead nowhere. The first-sentence
    fallback found 12 more gold paragraphs of 40 MuSiQue questions, whose relations are paraphrased
    ("located in" for "a town in"), and 1 more of HotpotQA's 30 smoke questions."""
    if not describes_an_entity(question):
        return ()
    wanted = set(question_terms(question, entities))
    about = [p for p in pool if any(has_page(e, [p]) for e in entities)]
    scored = [(len(terms(s) & wanted), i == 0 and not p.chunk_index, _new_names(s, [*entities, p.title]))
              for p in about for i, s in enumerate(split_sentences(p.text))]
    hits, first, names = max((x for x in scored if x[2]), key=lambda x: x[:2], default=(0, False, ()))
    return names[:limit] if hits or first else ()


def _new_names(sentence: str, known: list[str]) -> tuple[str, ...]:
    """The names in the sentence a page could be titled after, other than the known ones."""
    return tuple(e for e in named_entities(sentence) if _can_bridge(e, sentence)
                 and not any(mentions(e, k) or mentions(k, e) for k in known))


def _can_bridge(name: str, sentence: str) -> bool:
    """A name a page could be titled after: not a capitalised first word ("However", "Founded"),
    not a short acronym ("TV"), and in Latin letters (a Cyrillic original name has no page here)."""
    first_word = " " not in name and sentence.lstrip().startswith(name)
    return not first_word and not (name.isupper() and len(name) <= 3) and bool(_LATIN.search(name))


def has_page(name: str, pool: list[Passage]) -> bool:
    """Some passage is about the name: one of its subjects (see `subjects`) names it, or the name holds one."""
    return any(mentions(name, subject) or mentions(subject, name) for p in pool for subject in subjects(p))


def subjects(p: Passage) -> list[str]:
    """What a passage says it is about, from what any corpus has: its title, the title's lead before a
    separator ("json — JSON encoder and decoder", "Amazon S3: Buckets"), its heading path and its file's
    name. Wikipedia's "Hayden (musician)" is one case of a title with a tail."""
    title = _DISAMBIGUATION.sub("", p.title)
    lead = _TITLE_TAIL.split(title, maxsplit=1)[0]
    stem = PurePosixPath(p.origin.split("!/")[-1].split("?")[0]).stem if p.origin else ""
    return [t for t in dict.fromkeys((p.title, title, lead, *p.heading_path, stem)) if t.strip()]


def titled_after(name: str, p: Passage) -> bool:
    """The passage is the name's own: one of its subjects is the name, case, accents and
    punctuation aside. Stricter than `has_page`: a page that merely holds the name ("David
    Beckham Academy") is about something else."""
    return any(_folded(name) == _folded(subject) for subject in subjects(p))


def _has_own_page(name: str, pool: list[Passage], question: str) -> bool:
    """A passage is titled after the name, or after a longer name holding it that the question
    spells out in full: the extractor split "Letters to Cleo" and "Mahbub ul Haq" at their small
    words, but the question still names the page."""
    spelled = f" {_folded(question)} "
    return any(titled_after(name, p) or (mentions(name, p.title) and f" {_folded(p.title)} " in spelled)
               for p in pool)


def _unsourced(query: str, pool: list[Passage], question: str) -> bool:
    """A sub-query the collection has no page to answer: it names nothing, or a name with no page.
    subtle: a rule-based fragment about a name whose page is in the pool ("Buck-Tick hail") is
    far from every passage by its phrasing alone; that page is where its answer is."""
    names = named_entities(query)
    return not names or any(not _has_own_page(n, pool, question) for n in names)


def _term_scope(entities: list[str], pool: list[Passage], text: str) -> str:
    """The text a bridge question's terms must be used in when no bridge name has a page: the
    passages about the question's own names. subtle: another arena's page "can seat 10,000"; that
    does not say how many the Maineiacs' arena seats, so a stranger's words never close the hop."""
    about = [f"{p.title} {p.text}" for p in pool if any(mentions(e, f"{p.title} {p.text}") for e in entities)]
    return " ".join(about) if about else text


def _folded(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(_WORD.findall(ascii_text.lower()))


def answer_support(short_answer: str, cited: list[str], question: str = "") -> float:
    """The largest share of the short answer's words, by stem, that one cited passage uses; 1.0
    for an answer that is not a span (yes or no) and for none at all; 0.0 for one that does not
    fit the question (see `fits_question`). A small LM's guess from its own knowledge, or a name
    echoed from the question, is no reading of the passages."""
    if is_verdict(short_answer):
        return 0.0 if question and not fits_question(short_answer, question) else 1.0
    wanted = _span_stems(short_answer)
    if not wanted:
        return 1.0
    if question and not fits_question(short_answer, question):
        return 0.0
    return max((_share(wanted, text) for text in cited), default=0.0)


def source_similarity(short_answer: str, cited: list[tuple[str, float | None]]) -> float | None:
    """The similarity of the cited passage that uses most of the short answer's words (of ties,
    the most similar one) to the query that found it. A span read from a passage about something
    else answers nothing: "Mauna Kea", for where life is found around hydrothermal vents, from a
    passage on the volcano 0.27 similar to the question. None for an answer that is not a span, one no cited
    passage uses, or a passage whose similarity is unknown (a web page's)."""
    found = _sources(_span_stems(short_answer), [text for text, _ in cited])
    if not found:
        return None
    tied = [cited[i][1] for i in found]
    return None if None in tied else max(tied)


def answer_reached(short_answer: str, cited: list[Passage], pool: list[Passage], names: list[str]) -> bool:
    """The cited passage the short answer comes from is reached from the question: it mentions one
    of the question's names, or it and a passage so reached name each other's subjects (see
    `subjects`), hop after hop ("He worked at Tata Consultancy Services" reaches the company's page).
    True where there is nothing to check: a question that names nothing, an answer that is not a
    span, or one no cited passage uses (`answer_support` speaks for that).
    subtle: a span from a passage nothing on the question leads to is a guess, however well it
    fits: "Phil Mitchell", an EastEnders character, for who wrote a song on Phil Spector's box set.
    Over the loop's answers on HotpotQA (gold shown and hidden), MuSiQue, ClapNQ, AWS and five
    documentation sets, 19 were unreached and none was right."""
    wanted = _span_stems(short_answer)
    if not names or not wanted or is_verdict(short_answer):
        return True
    found = _sources(wanted, [f"{p.title} {p.text}" for p in cited])
    if not found:
        return True
    reached = _reached(tuple(names), tuple(pool))
    return any(cited[i].chunk_id in reached for i in found)


def _sources(wanted: set[str], texts: list[str]) -> list[int]:
    """Which of the texts use the largest share of the answer's words; none when none uses any."""
    shares = [_share(wanted, text) for text in texts] if wanted else []
    best = max(shares, default=0.0)
    return [i for i, share in enumerate(shares) if share == best] if best > 0.0 else []


def _reach_key(names: tuple[str, ...], pool: tuple[Passage, ...]) -> tuple:
    return names, _passages_key(pool)


# subtle: cached because the gate asks it at every decision, and the threshold replay of the same
# pools in every trial; the hops pair every passage with every other
@cachetools.cached(cachetools.LRUCache(maxsize=8192), key=_reach_key, lock=threading.Lock())
def _reached(names: tuple[str, ...], pool: tuple[Passage, ...]) -> frozenset[str]:
    """The chunk ids of the pool's passages reached from the names: those mentioning one, then,
    round by round, those linked to a reached passage (either one names the other's subject)."""
    reached = {p.chunk_id for p in pool if any(loosely_mentions(n, " ".join((*subjects(p), p.text))) for n in names)}
    called = {p.chunk_id: _link_names(p) for p in pool}  # each passage's names, read once for all pairs
    frontier = [p for p in pool if p.chunk_id in reached]
    while frontier:
        frontier = [p for p in pool if p.chunk_id not in reached and any(_linked(p, q, called) for q in frontier)]
        reached |= {p.chunk_id for p in frontier}
    return frozenset(reached)


def _linked(p: Passage, q: Passage, called: dict[str, list[str]]) -> bool:
    """Either passage names the other by one of its names (`called`, by chunk id)."""
    return any(mentions(n, q.text) for n in called[p.chunk_id]) or any(mentions(n, p.text) for n in called[q.chunk_id])


def _link_names(p: Passage) -> list[str]:
    """A passage's subjects, each also without a qualifier after a comma: a text names the
    place "West Chicago, Illinois" as "West Chicago"."""
    return list(dict.fromkeys(part for subject in subjects(p) for part in (subject, subject.split(", ")[0])))


def _span_stems(short_answer: str) -> frozenset[str]:
    return _text_stems(short_answer) - VERDICTS


def _share(wanted: set[str], text: str) -> float:
    return len(wanted & _text_stems(text)) / len(wanted)


@functools.lru_cache(maxsize=16384)
def _text_stems(text: str) -> frozenset[str]:
    # subtle: cached because each draft's support and source checks stem the same passages again
    return frozenset(_span_term(w) for w in terms(text))


def _span_term(word: str) -> str:
    return _CARDINALS.get(word) or _STEM(word)


def fits_question(short_answer: str, question: str) -> bool:
    """The short answer adds something to the question: not only the question's own words
    (unless the question offers a choice: "A or B?", "both"), a number where it asks how
    many, how much or which year (and more than one year where it asks how long or how old:
    see `dates_a_duration`), a yes or no only where it asks yes or no ("where do sperm gain the
    ability to swim?" is not answered "yes"), and one of the options where it offers some
    ("Annie Richardson" is neither Annie Morton nor Terry Richardson)."""
    if is_verdict(short_answer):
        return asks_yes_or_no(question)
    if (options := offered(question)) and not any(mentions(o, short_answer) or mentions(short_answer, o) for o in options):
        return False
    if echoes_question(short_answer, question) and not _CHOICE.search(question):
        return False
    return not asks_count(question) or (says_number(short_answer) and not dates_a_duration(short_answer, question))


def echoes_question(short_answer: str, question: str) -> bool:
    """Whether the short answer is only the question's own words, by stem; not a lowercase name the
    question does not write (nor writes plus -s). Documentation names a marker, a command or a plugin
    for what it does: `skip` answers "Which pytest marker skips a test function?", `remark-math`
    "Which remark plugin adds support for math syntax?". An echo copies the question as written."""
    stems = _echo_stems(short_answer)
    if not stems <= _echo_stems(question):
        return False
    return not (stems and _NAME.fullmatch(short_answer) and not question_writes(question, short_answer))


def _echo_stems(text: str) -> set[str]:
    """subtle: an identifier stays whole. `FLASK_` adds to a question on "Flask's from_prefixed_env",
    and `session` to one on `SESSION_COOKIE_NAME`: the value of a setting is not its name's words."""
    return {_STEM(_AUXILIARIES.get(w, w)) for w in name_terms(text)}


def offered(question: str) -> tuple[str, ...]:
    """The two names a question asks to choose between ("Who is older, Annie Morton or Terry
    Richardson?"); empty for a comparison that asks something else of both ("Are A and B both ...?",
    "What nationality were both A and B?")."""
    names = compared_names(question)
    between = len(names) == 2 and re.search(rf"{re.escape(names[0])}\W+or\W+{re.escape(names[1])}", question, re.I)
    return names if between else ()


def echoes(vectors: list[list[float]]) -> tuple[float, ...]:
    """Each vector's highest cosine with an earlier one in the list; -1.0 for the first, which has none."""
    if not vectors:
        return ()
    unit = np.asarray(vectors, dtype=np.float32)
    unit /= np.maximum(np.linalg.norm(unit, axis=1, keepdims=True), 1e-9)
    cosines = unit @ unit.T
    return (-1.0, *(float(cosines[i, :i].max()) for i in range(1, len(unit))))


def measure(ranked: dict[str, list[float]], question: str, entities: list[str], pool: list[Passage],
            t: Thresholds, strong_neighbours: int = 0, searched_web: set[str] = frozenset(),
            before: Signals | None = None) -> Signals:
    """Signals from each query's ranked similarities (`ranked`, the question's among them),
    the named entities and the evidence pool; `before` is the last round's, for the gain.
    A query already searched on the web is not measured: the web has had its say.
    subtle: nor is a one-word query ("Government"): it is never close to a whole passage, so
    its low similarity says nothing about coverage."""
    own = ranked.get(question, [])
    best_by_query = {q: max(s, default=-1.0) for q, s in ranked.items()}
    sub_queries = tuple((q, best) for q, best in measured_queries(best_by_query).items()
                        if q != question and q not in searched_web)
    read = read_pool(question, tuple(entities), tuple(pool), frozenset(searched_web), tuple(q for q, _ in sub_queries))
    signals = Signals(
        best=max(own, default=-1.0), cliff=score_cliff(own[: t.candidates_k])[0], spread=top_spread(own, t.top_k),
        min_coverage=min(best_by_query.values(), default=-1.0),
        entity_coverage=1.0 - len(read.missing) / len(entities) if entities else 1.0,
        term_coverage=1.0 - len(read.unused) / read.wanted if read.wanted else 1.0, missing_terms=read.unused,
        bridges=read.bridges, unmet_bridges=read.unmet, echoes=echoes([p.unit for p in pool if p.unit is not None]),
        saturation=read.tokens / t.evidence_tokens, gain=1.0,
        sub_queries=sub_queries, unsourced=read.unsourced,
        missing_entities=read.missing, unnamed=read.unnamed, strong_neighbours=strong_neighbours, named=len(entities),
        pageless=read.pageless, compared=read.compared, compared_pageless=read.compared_pageless)
    if before is None:
        return signals
    return replace(signals, gain=signals.coverage - before.coverage)


@dataclass(frozen=True)
class Reading:
    """What the pool's text says about the question, thresholds aside."""
    missing: tuple[str, ...]
    unnamed: tuple[str, ...]
    wanted: int
    unused: tuple[str, ...]
    bridges: tuple[str, ...]
    unmet: tuple[str, ...]
    tokens: int
    unsourced: tuple[str, ...]
    pageless: tuple[str, ...]
    compared: int
    compared_pageless: tuple[str, ...]


def _pool_key(question: str, entities: tuple[str, ...], pool: tuple[Passage, ...], searched_web: frozenset[str],
              queries: tuple[str, ...]) -> tuple:
    return question, entities, _passages_key(pool), searched_web, queries


def _passages_key(pool: tuple[Passage, ...]) -> tuple:
    # every field of a passage the readings read (its vector they do not); a string's hash is cached
    return tuple((p.chunk_id, p.title, p.text, p.origin, tuple(p.heading_path)) for p in pool)


# subtle: the threshold replay re-reads the same pools under hundreds of thresholds; reading
# them is most of a round's work without the LM, and none of it depends on a threshold
@cachetools.cached(cachetools.LRUCache(maxsize=8192), key=_pool_key, lock=threading.Lock())
def read_pool(question: str, entities: tuple[str, ...], pool: tuple[Passage, ...], searched_web: frozenset[str],
              queries: tuple[str, ...]) -> Reading:
    """The pool read for the question's names and terms; `queries`: the sub-queries measured."""
    passages = list(pool)
    text = " ".join(f"{p.title} {p.text}" for p in passages)
    wanted = question_terms(question, list(entities))
    bridges = bridge_entities(question, list(entities), passages)
    unmet = tuple(b for b in bridges if not has_page(b, passages))
    # once the web has had its say on the hop, its pages count like any other
    hop_open = bridges and unmet == bridges and not searched_web
    compared = compared_names(question)
    missing = tuple(e for e in entities if not mentions(e, text))
    return Reading(
        missing=missing, unnamed=tuple(e for e in missing if not loosely_mentions(e, text)), wanted=len(wanted),
        unused=unused_terms(wanted, _term_scope(list(entities), passages, text) if hop_open else text),
        bridges=bridges, unmet=unmet,
        tokens=sum(approx_tokens(p.text) for p in passages),
        unsourced=tuple(q for q in queries if _unsourced(q, passages, question)),
        pageless=tuple(e for e in entities if not _has_own_page(e, passages, question)),
        compared=len(compared),
        compared_pageless=tuple(e for e in compared if not _has_own_page(e, passages, question)))
