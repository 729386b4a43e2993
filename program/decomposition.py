"""Rule-based retrieval planning: sub-queries, query type and key concepts for a question, with no LM.

The loop's "rule_based" decomposition mode. Named entities come from quotes, runs of capitalised
words, acronyms and technical tokens (`DynamoDB`, `boto3`); the type and the sub-queries from a few
surface patterns (comparison, bridge clause, conjunction). Pure functions over one string: no LM, no
I/O, no retrieval, and no decision about what the loop does with the plan. The plan never holds the
question itself: the loop always searches it too.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from signatures.decompose import QueryType

_TOKEN = re.compile(r"(?:[A-Z]\.)+|\w+(?:[-–'’/.&:]\w+)*")
_QUOTED = re.compile(r"\"([^\"]{2,80})\"|“([^”]{2,80})”|(?<!\w)'([A-Z][^']{1,80}?)'(?!\w)")
_SENTENCE_END = re.compile(r"[.?!:;\"“(]\s*$")
# lowercase words that may sit inside a name, between two capitalised words ("Chief of Protocol")
_CONNECTORS = set("of the for and de da di du del della des la le von van der den y".split())
_QUESTION = set("what which who whom whose where when why how is are was were do does did can could should would "
                "will has have had may might must shall".split())
_FUNCTION = set("the a an this that these those it its i my me we our you your he his she her they their them in on "
                "at of for from by with to into as and or but if not no be been being there than then so also about "
                "any some both same other much many all between besides during since until before after while "
                "currently one".split())
_STOP = _QUESTION | _FUNCTION | {"explain", "describe", "tell", "please", "use", "using"}
# sentence-initial words that start no name ("Which", "Explain", "In")
_LEADING = _STOP | {"name", "list", "give", "compare", "show", "find"}
# too common alone to count as an entity
_ALONE = _LEADING | set("january february march april may june july august september october november "
                        "december".split())
_WORKS = set("film movie song album novel book series show play game single episode poem painting opera".split())
_DATING = set("in on since from until during before after by circa".split())
_DEMONYM = re.compile(r"^(?:(?:North|South|East|West)(?:ern)?\s+)?[A-Z][a-z]+(?:ian|ean|ese|ish|can)$")
# words that only say "this is a comparison"; the attribute compared is what the query needs
_COMPARATIVE = set("older younger first earlier later more less fewer higher lower larger smaller bigger longer "
                   "shorter taller either neither versus vs difference differences compare compared common".split())

_HOW_TO = re.compile(r"^\s*(how\s+(do|does|can|could|should|would|to)\b|what\s+(are\s+the\s+)?steps\b|steps\s+to\b)",
                     re.I)
_EXPLORATORY = re.compile(r"^\s*(what\s+are\s+the\s+\w+(\s+\w+)?\s+of\b|explain\b|overview\b|describe\b|"
                          r"give\s+(me\s+)?an\s+overview\b|tell\s+me\s+about\b|summari[sz]e\b)", re.I)
_COMPARE_CUE = re.compile(r"\b(both|same|than|compare[sd]?|versus|vs\.?|difference\s+between|either|neither|"
                          r"in\s+common)\b", re.I)
_OPTIONS = re.compile(r",\s*([^,?]+?)\s+or\s+([^,?]+?)\s*[?.]*\s*$")
_BRIDGE = re.compile(r"\b(?i:the|a|an|this)\s+((?:[a-z-]+\s+){0,2}?[a-z-]+)\s+(?:that|which|who|whom|whose|where|"
                     r"(?:in|at|on|for|from|by|with|of)\s+(?:which|whom)|\w+ed\s+by|written\s+by|known\s+by)\s")
# a question that describes what it asks about instead of naming it: a relative word after its
# opening word ("the company that X worked for", "the arena where ..."), an indefinite subject
# ("A medieval fortress in Dirleton borders ..."), or a possessive ("Damerjog's country").
# subtle: looser than `_BRIDGE`, which must find the clause's head noun to build a query from it
# ("a South Korean boy group that ..." has capitalised words before "that")
_RELATIVE = re.compile(r"^\W*(an?\s|\w+\W.*?\b(that|which|who|whom|whose|where|when)\b)", re.I | re.S)
_POSSESSIVE = re.compile(r"(\w+)['’]s\b|s['’]\s")
_POSSESSIVE_END = re.compile(r"['’]s$")  # a name's last token, owning what follows
# what only code names have: an underscore, a dot between lowercase letters (`app.config`) or a
# lowercase opening before a capital (`sendFile`); subtle: not a capital inside ("McFarland")
_IDENTIFIER = re.compile(r"_|[a-z]\.[a-z]|^[a-z]+[A-Z]")
_CONTRACTED = frozenset("it that what who where there here let he she how when why".split())  # "what's" is no possessive
# subtle: only a question word starts a second question; "and was the first track" continues the first
# (the spaces start after a comma or a non-space: from every space of a long run, the search was quadratic)
_CLAUSE_SPLIT = re.compile(r"(?:,|(?<=\S))\s+and\s+(?=(?:what|which|who|whom|where|when|why|how)\b)", re.I)


@dataclass(frozen=True)
class Plan:
    sub_queries: tuple[str, ...]  # the question itself is NOT included; the loop always searches it too
    query_type: QueryType
    key_concepts: tuple[str, ...]  # named entities and quoted titles, in order of appearance


@dataclass(frozen=True)
class _Entity:
    name: str
    start: int
    end: int


# subtle: cached because the threshold replay plans the same questions in every trial
@functools.lru_cache(maxsize=4096)
def rule_based_plan(question: str, max_queries: int = 3) -> Plan:
    """Sub-queries, type and key concepts for the question, from surface patterns alone."""
    entities = _entities(question)
    pair = _compared_pair(question, entities)
    query_type = _query_type(question, pair)
    if query_type == "comparison":
        queries = [_query(e.name, _attribute_words(question, pair)) for e in pair]
    else:
        # subtle: drop a clause that is the whole question now, so its name still gets a query of its own
        queries = [q for q in _clauses(question, entities) or _bridge_queries(question, entities)
                   if _key(q) != _key(question)]
        queries += [_query(e.name, _nearby_words(question, e, entities)) for e in entities
                    if not any(e.name in q for q in queries)]
    return Plan(_finish(queries, question, max_queries), query_type, tuple(e.name for e in entities))


# subtle: cached because the gate asks it of the question at every decision
@functools.lru_cache(maxsize=4096)
def compared_names(question: str) -> tuple[str, ...]:
    """The two names a comparison question compares ("Who is older, Annie Morton or Terry
    Richardson?"); empty for any other question."""
    entities = _entities(question)
    pair = _compared_pair(question, entities)
    return tuple(e.name for e in pair) if _query_type(question, pair) == "comparison" else ()


def describes_an_entity(question: str) -> bool:
    """The question reaches what it asks about through a description ("Where is the company that
    Sachin Warrier worked for headquartered?", "A medieval fortress in Dirleton borders on what
    coastal area?", "Who was the first president of Damerjog's country?"), so its answer may lie
    a hop away. One that names all it asks about ("What is the maximum unzipped deployment
    package size in AWS Lambda?") has no hop to make."""
    return bool(_RELATIVE.match(question)) or any(
        m.group(1) is None or m.group(1).lower() not in _CONTRACTED for m in _POSSESSIVE.finditer(question))


def named_entities(text: str) -> list[str]:
    """Quoted titles, capitalised names, acronyms and technical tokens, in order of appearance, deduplicated."""
    return list(_names_in(text))


@functools.lru_cache(maxsize=8192)
def _names_in(text: str) -> tuple[str, ...]:
    # subtle: cached because the gate asks it of the same passages' sentences every round
    return tuple(e.name for e in _entities(text))


# --- entities -----------------------------------------------------------------------

def _entities(text: str) -> list[_Entity]:
    quoted = [_Entity(next(g for g in m.groups() if g).strip(), m.start(), m.end()) for m in _QUOTED.finditer(text)]
    # subtle: blank the quotes out (same length) so their words form no second entity and offsets hold
    blanked = _QUOTED.sub(lambda m: "." + " " * (len(m.group()) - 1), text)
    tokens = list(_TOKEN.finditer(blanked))
    found = quoted + [e for run in _runs(tokens, blanked) if (e := _trim(run, tokens, blanked))]
    unique: dict[str, _Entity] = {}
    for e in sorted(found, key=lambda e: e.start):
        unique.setdefault(e.name.lower(), e)
    return list(unique.values())


def _is_name(word: str) -> bool:
    """Capitalised, a number (joins a name), or technical: an inner capital or letters with digits."""
    return word[0].isupper() or word[0].isdigit() or bool(re.search(r"[a-z][A-Z]|[a-zA-Z]\d", word))


def _runs(tokens: list[re.Match], text: str) -> list[list[int]]:
    """Index runs of name tokens, joined by connectors and broken by punctuation or a blank line (a
    heading's last word and the capital opening the paragraph under it are no name)."""
    runs, current, pending = [], [], []
    for i, tok in enumerate(tokens):
        gap = text[tokens[i - 1].end():tok.start()] if i else ""
        if current and (gap.strip() not in ("", "&") or gap.count("\n") > 1 or _owns_identifier(tokens, i)):
            runs, current, pending = runs + [current], [], []
        if _is_name(tok.group()):
            joins = pending and ("and" not in _words(pending, tokens) or _and_joins(current, tokens))
            if pending and not joins:
                runs, current = runs + [current], []
            current, pending = current + (pending if joins else []) + [i], []
        elif current and tok.group().lower() in _CONNECTORS:
            pending.append(i)
        elif current:
            runs, current, pending = runs + [current], [], []
    return runs + [current] if current else runs


def _owns_identifier(tokens: list[re.Match], i: int) -> bool:
    """Token i is a code identifier its possessive owner names ("Flask's SESSION_COOKIE_NAME"): two
    names, where "Schindler's List" is one."""
    return bool(_POSSESSIVE_END.search(tokens[i - 1].group()) and _IDENTIFIER.search(tokens[i].group()))


def _words(indices: list[int], tokens: list[re.Match]) -> list[str]:
    return [tokens[i].group().lower() for i in indices]


def _and_joins(run: list[int], tokens: list[re.Match]) -> bool:
    """Whether "and" continues this name: it already has "of"/"for" ("Secretary for Health and Human
    Services") or it is a named work ("the film Kiss and Tell"). Else "and" separates two names."""
    before = tokens[run[0] - 1].group().lower() if run[0] > 0 else ""
    return before in _WORKS or any(w in ("of", "for") for w in _words(run, tokens))


def _trim(run: list[int], tokens: list[re.Match], text: str) -> _Entity | None:
    """The run without a sentence-initial question word or stopword, or a date's year; None if nothing is left."""
    first = run[0]
    if first == 0 or _SENTENCE_END.search(text[tokens[first - 1].end():tokens[first].start()]):
        while run and tokens[run[0]].group().lower() in _LEADING:
            run = run[1:]
    # "in 1991 Euromarché": the year dates the sentence, it is not part of the name
    while run and tokens[run[0]].group()[0].isdigit() and run[0] > 0 and \
            tokens[run[0] - 1].group().lower() in _DATING:
        run = run[1:]
    words = _words(run, tokens)
    if not any(tokens[i].group()[0].isalpha() for i in run) or all(w in _ALONE or w[0].isdigit() for w in words):
        return None
    start, end = tokens[run[0]].start(), tokens[run[-1]].end()
    after = tokens[run[-1] + 1].group() if run[-1] + 1 < len(tokens) else ""
    # "an American industrialist": an adjective of origin, not a thing to look up
    if _DEMONYM.match(text[start:end]) and after.islower() and after not in _STOP:
        return None
    return _Entity(_POSSESSIVE_END.sub("", text[start:end]), start, end)


# --- type and sub-queries -----------------------------------------------------------

def _compared_pair(question: str, entities: list[_Entity]) -> list[_Entity]:
    """The two entities a comparison would set side by side: "..., X or Y?", "X and Y", "X ... than Y"."""
    options = _OPTIONS.search(question)
    if options:
        sides = [[e for e in entities if options.start(k) <= e.start < options.end(k)] for k in (1, 2)]
        if all(sides):
            return [sides[0][0], sides[1][0]]
    for a, b in zip(entities, entities[1:]):
        if question[a.end:b.start].strip(" ,").lower() in ("and", "or", "vs", "vs.", "versus", "and the", "or the"):
            return [a, b]
    than = question.lower().find(" than ")
    before, after = [e for e in entities if e.end <= than], [e for e in entities if e.start > than]
    return [before[-1], after[0]] if than > 0 and before and after else []


def _query_type(question: str, pair: list[_Entity]) -> QueryType:
    if _HOW_TO.search(question):
        return "how_to"
    # "X or Y" offers a choice even without a comma ("Did Valli sing with Hellogoodbye or The Four Seasons?")
    choice = pair and " or " in question[pair[0].end:pair[1].start]
    if pair and (choice or _COMPARE_CUE.search(question) or _OPTIONS.search(question)):
        return "comparison"
    return "exploratory" if _EXPLORATORY.search(question) else "factual"


def _content(text: str) -> list[str]:
    return [w for w in _TOKEN.findall(text) if w.lower() not in _STOP and len(w) > 1 or w.isdigit()]


def _attribute_words(question: str, pair: list[_Entity]) -> list[str]:
    """What the comparison is about: the question's content words minus the compared names."""
    left = question[:pair[0].start] + " " + question[pair[0].end:pair[1].start] + " " + question[pair[1].end:]
    words = [w for w in _content(left) if w.lower() not in _COMPARATIVE]
    # "Who is older, X or Y?" compares birth dates, which pages state as "born"
    age = question.lower().startswith("who") and re.search(r"\b(older|younger)\b", left) and "born" not in left
    return words + ["born"] * bool(age)


def _clauses(question: str, entities: list[_Entity]) -> list[str]:
    """A conjunction of questions ("Who founded X and where is its headquarters?") split into its clauses."""
    parts = [p.strip(" ?.!") for p in _CLAUSE_SPLIT.split(question)]
    if len(parts) < 2 or any(len(_TOKEN.findall(p)) < 3 for p in parts):  # "Which year and which ..." is one
        return []
    names = [e.name for e in entities]
    # subtle: a clause that names nothing ("where is its headquarters") is about the first clause's entity
    return [p if not names or any(n in p for n in names) else _query(names[0], _content(p)) for p in parts]


def _bridge_queries(question: str, entities: list[_Entity]) -> list[str]:
    """For "the company that X worked for", the inner clause naming its entity: "X worked ... company"."""
    queries = []
    for m in _BRIDGE.finditer(question):
        stop = re.search(r"[,?;]|\b(what|which|how|when|where|who)\b", question[m.end():], re.I)
        end = m.end() + (stop.start() if stop else len(question) - m.end())
        inner = next((e for e in entities if m.end() <= e.start < end), None)
        before = _content(question[m.end():inner.start]) if inner else []
        if inner is None or len(before) > 3:  # no name in the clause, or too far from its head to be about it
            continue
        # the entity is the object ("who recruited X") or the subject ("that X worked for as a software engineer")
        words = before or [w for w in _content(question[inner.end:end]) if not w[0].isupper()][:3]
        queries.append(_query(inner.name, words + _content(m.group(1))))
    return queries


def _nearby_words(question: str, entity: _Entity, entities: list[_Entity], k: int = 4) -> list[str]:
    """Up to k content words closest to the entity in its clause, outside every name, in question order."""
    spans = [(e.start, e.end) for e in entities]
    words = [m for m in _TOKEN.finditer(question) if not any(s <= m.start() < t for s, t in spans)
             and _content(m.group())]
    # subtle: with one entity, one word fewer than all, so the query is not the question again
    k = min(k, len(words) - 1) if len(entities) == 1 else k

    def gap(m: re.Match) -> str:
        return question[min(m.end(), entity.end):max(m.start(), entity.start)]

    # stay in the entity's clause ("X is from Canada, but where does Y hail from?") when it has words
    words = [m for m in words if not re.search(r"[,;]", gap(m))] or words
    nearest = sorted(words, key=lambda m: len(gap(m)))[:k]
    return [m.group() for m in sorted(nearest, key=lambda m: m.start())]


def _query(name: str, words: list[str]) -> str:
    name_words = {w.lower() for w in _TOKEN.findall(name)}
    return " ".join([name] + [w for w in words if w.lower() not in name_words])


def _key(text: str) -> frozenset[str]:
    """A query's content words, case aside: two queries with the same words retrieve the same."""
    return frozenset(w.lower() for w in _content(text)) or frozenset({text.lower()})


def _finish(queries: list[str], question: str, max_queries: int) -> tuple[str, ...]:
    """Short, distinct queries that are not the question again, at most max_queries."""
    kept, seen = [], {_key(question)}
    for q in (q if len(q) < 100 else q[:99].rsplit(" ", 1)[0] for q in queries):
        if _key(q) not in seen:
            seen.add(_key(q))
            kept.append(q)
    return tuple(kept[:max_queries])
