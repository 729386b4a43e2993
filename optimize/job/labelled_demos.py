"""Demos built from labels: a training question, its gold passages as the reader sees them, its gold answer.

The reader (`synthesize`) and the judge's draft learn the answer format best from a few worked
examples of the task itself. A demo's evidence is what the reader meets in a real run: the question's gold
passages, found in the program's own collections (the index, then the offline web when it has
one) by its `gold_sources`, among the index's best other hits for the question, rendered with
the loop's own evidence format and cut short, since every demo token is paid on every call it
rides on. An unanswerable training question becomes a demo whose short answer is "unknown". A question
whose gold passages cannot be found, or whose shown passages state no answer, gives no demo. This
module builds demos; it does not choose among them (the job runs them on the select questions;
`optimize.job.keep_rule` decides).
"""

from __future__ import annotations

import random
import re

import dspy

from metrics.gold_sources import cites_gold
from program.answer.short_answer import LIMIT, is_verdict, says_unknown
from program.evidence import EvidencePool, format_evidence, split_sentences
from program.loop import GatedRAG
from program.retrieval.passage import Passage

SEARCH_K = 20
DISTRACTORS = 2  # other hits shown beside the gold passages, as retrieval shows them
DEMO_TOKENS = 260  # the evidence of one demo: about two thirds of what the reader is shown
PASSAGE_TOKENS = 60
UNKNOWN = "unknown"
NOT_STATED = "The passages do not state it."


def demo_pool(program: GatedRAG, train: list[dspy.Example]) -> list[dspy.Example]:
    """One demo for each training question whose gold passages, found in the collections, state its answer."""
    return [demo for example in train if (demo := labelled_demo(program, example)) is not None]


def labelled_demo(program: GatedRAG, example: dspy.Example) -> dspy.Example | None:
    hits = program.search(example.question, SEARCH_K)
    gold = gold_passages(program, example, hits)
    if not gold:
        return None
    others = [p for p in hits if not cites_gold(example.gold_sources, p)]
    pool = EvidencePool()
    pool.add(sorted(gold + others[:DISTRACTORS], key=lambda p: -p.score))
    shown = pool.render(example.question, DEMO_TOKENS, PASSAGE_TOKENS)
    answerable = getattr(example, "answerable", True) and bool(example.answer)
    answers = _answers(example, shown) if answerable else (UNKNOWN, NOT_STATED)
    if answers is None:
        return None
    short, answer = answers
    return dspy.Example(question=example.question, evidence=format_evidence(shown), short_answer=short,
                        answer=answer, sufficient=answerable, confidence=0.9 if answerable else 0.2,
                        gaps=[] if answerable else [example.question[:100]]).with_inputs("question", "evidence")


def gold_passages(program: GatedRAG, example: dspy.Example, hits: list[Passage]) -> list[Passage]:
    """The passages of the example's gold sources: among `hits` (the index's for the question), and
    searched by each source's name, and on the offline web by the question too."""
    found: dict[str, Passage] = {}
    searched = [p for search, query in _lookups(program, example) for p in search(query, SEARCH_K)]
    for p in hits + searched:
        if cites_gold(example.gold_sources, p):
            found.setdefault(p.doc_id, p)
    return list(found.values())


def demo_sets(pool: list[dspy.Example], k: int, count: int, seed: int) -> list[list[dspy.Example]]:
    """`count` candidate sets of `k` demos each, seeded, each covering the answer shapes of the pool.

    A set holds one demo of each shape the pool's short answers take (`answer_shape`), the most
    common first, as far as `k` allows; the rest are drawn at random. Why: the 0.5B reader copies
    its demos' answer shape. In the standard preset, sets of three named entities made it answer
    HotpotQA's yes/no select questions with a name (F1 0.125 and 0.250 on them, uncompiled 0.375),
    while the set holding two yes/no demos scored 0.500 on them."""
    if not pool or k == 0:
        return []
    rng = random.Random(seed)
    by_shape: dict[str, list[dspy.Example]] = {}
    for demo in pool:
        by_shape.setdefault(answer_shape(demo.short_answer), []).append(demo)
    common_first = sorted(by_shape.values(), key=len, reverse=True)
    return [_covering(pool, common_first, min(k, len(pool)), rng) for _ in range(count)]


def answer_shape(short_answer: str) -> str:
    """What kind of short answer it is: unknown, yes/no, a number or date, or a name or phrase."""
    if says_unknown(short_answer):
        return "unknown"
    if is_verdict(short_answer):
        return "yes/no"
    return "number" if any(c.isdigit() for c in short_answer) else "name"


def _covering(pool: list[dspy.Example], common_first: list[list[dspy.Example]], k: int,
              rng: random.Random) -> list[dspy.Example]:
    chosen = [rng.choice(demos) for demos in common_first[:k]]
    rest = [demo for demo in pool if not any(demo is c for c in chosen)]
    chosen += rng.sample(rest, k - len(chosen))
    rng.shuffle(chosen)
    return chosen


def _lookups(program: GatedRAG, example: dspy.Example) -> list[tuple]:
    """(search, query) pairs beyond the index's hits for the question: the index by each gold source's
    name, and the offline web (it holds HotpotQA's training pages) by the question and each name.
    Tavily is not searched for demos."""
    lookups = [(program.search, source) for source in example.gold_sources]
    if hasattr(program.web, "titles_where"):
        def web(query, k):
            return [r.to_passage() for r in program.web.search(query, max_results=k)]
        lookups += [(web, query) for query in [example.question, *example.gold_sources]]
    return lookups


def _answers(example: dspy.Example, shown) -> tuple[str, str] | None:
    """The gold short answer, and a sentence of the shown evidence that states it, cited; a yes or no,
    which no sentence states, cites the first sentence of each gold passage shown (two at most).
    None when no shown sentence states the answer. Why: a demo whose answer is bare ("2011 [1].")
    teaches the reader answers its evidence does not hold, which the gate then refuses: in the
    standard preset the set of three bare answers made the loop abstain on 23 of 60 select
    questions, against 10 uncompiled."""
    short = _capped(example.answer)
    if answer_shape(short) == "yes/no":
        gold = [s for s in shown if cites_gold(example.gold_sources, s.passage) and s.text.strip()][:2]
        return (short, " ".join(_cited(split_sentences(s.text)[0], s.n) for s in gold)) if gold else None
    # as a whole word: "Hay" inside "Hayes" does not state it
    stated = re.compile(rf"(?<!\w){re.escape(short)}(?!\w)", re.IGNORECASE)
    for s in shown:
        for sentence in split_sentences(s.text):
            if stated.search(sentence):
                return short, _cited(sentence, s.n)
    return None


def _cited(sentence: str, n: int) -> str:
    return f"{sentence.rstrip('.')} [{n}]."


def _capped(answer: str) -> str:
    if len(answer) <= LIMIT:
        return answer
    return answer[:LIMIT].rsplit(" ", 1)[0]
