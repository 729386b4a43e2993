"""Demos built from labels: a training question, its gold passages as the reader sees them, its gold answer.

The reader (`synthesize`) and the judge's draft learn the answer format best from a few worked
examples of the task itself. A demo's evidence is what the reader meets in a real run: the question's gold
passages, found in the program's own collections (the index, then the offline web when it has
one) by its `gold_sources`, among the index's best other hits for the question, rendered with
the loop's own evidence format and cut short, since every demo token is paid on every call it
rides on. An unanswerable training question becomes a demo whose short answer is "unknown". A question
whose gold passages cannot be found gives no demo. This module builds demos; it does not choose
among them (the job runs them on the select questions; `optimize.job.keep_rule` decides).
"""

from __future__ import annotations

import random

import dspy

from metrics.gold_sources import cites_gold
from program.evidence import EvidencePool, format_evidence, split_sentences
from program.loop import GatedRAG
from program.retrieval.passage import Passage

SEARCH_K = 20
DISTRACTORS = 2  # other hits shown beside the gold passages, as retrieval shows them
DEMO_TOKENS = 260  # the evidence of one demo: about two thirds of what the reader is shown
PASSAGE_TOKENS = 60
SHORT_ANSWER_CHARS = 80  # ShortAnswer's cap
UNKNOWN = "unknown"
NOT_STATED = "The passages do not state it."


def demo_pool(program: GatedRAG, train: list[dspy.Example]) -> list[dspy.Example]:
    """One demo for each training question whose gold evidence the program's collections hold."""
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
    short, answer = _answers(example, shown) if answerable else (UNKNOWN, NOT_STATED)
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
    """`count` candidate sets of `k` demos each, drawn without replacement within a set, seeded."""
    if not pool or k == 0:
        return []
    rng = random.Random(seed)
    return [rng.sample(pool, min(k, len(pool))) for _ in range(count)]


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


def _answers(example: dspy.Example, shown) -> tuple[str, str]:
    """The gold short answer, and a sentence of the shown evidence that states it, cited."""
    short = _capped(example.answer)
    for s in shown:
        for sentence in split_sentences(s.text):
            if short.lower() in sentence.lower():
                return short, f"{sentence.rstrip('.')} [{s.n}]."
    cited = next((s.n for s in shown if cites_gold(example.gold_sources, s.passage)), shown[0].n)
    return short, f"{example.answer.rstrip('.')} [{cited}]."


def _capped(answer: str) -> str:
    if len(answer) <= SHORT_ANSWER_CHARS:
        return answer
    return answer[:SHORT_ANSWER_CHARS].rsplit(" ", 1)[0]
