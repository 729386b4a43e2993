"""The state of one question while the loop runs: evidence, compressed memory, trace, clocks.

A fresh `RunState` is made per call, so a program shared between threads keeps no per-question
state. Between steps only the compressed memory (facts, gaps, queries tried, a one-line
summary) and the evidence pool travel; raw LM history never does.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

import dspy

from program.citations import attach_missing, cited_numbers
from program.evidence import EvidencePool, Shown, terms
from program.result import Action, Citation, Ending, Resources, Result, Source, Step, Timing, Tokens, Trace
from program.thresholds import Thresholds

@dataclass
class Memory:
    facts: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)
    summary: str = ""


@dataclass
class RunState:
    question: str
    thresholds: Thresholds
    pool: EvidencePool = field(default_factory=EvidencePool)
    memory: Memory = field(default_factory=Memory)
    steps: list[Step] = field(default_factory=list)
    timing: Timing = field(default_factory=Timing)
    resources: Resources = field(default_factory=Resources)
    warnings: list[str] = field(default_factory=list)
    shown: list[Shown] = field(default_factory=list)
    query_type: str = "factual"
    sub_queries: list[str] = field(default_factory=list)
    key_concepts: list[str] = field(default_factory=list)
    confidence: float = 0.0
    best_similarity: dict[str, float | None] = field(default_factory=dict)  # query -> best dense similarity
    searched_web: set[str] = field(default_factory=set)
    ended: Ending = "answered"
    time_limit_s: float | None = None
    constraints: str = ""
    _started: float = field(default_factory=time.perf_counter)
    _current: Step | None = None

    @contextmanager
    def step(self, action: Action, reason: str = "", confidence: float | None = None) -> Iterator[Step]:
        """Record one decision: its duration and the LM tokens spent inside it."""
        step = Step(action=action, reason=reason, confidence=confidence)
        self._current, started = step, time.perf_counter()
        with dspy.track_usage() as usage:
            try:
                yield step
            finally:
                step.duration_s = round(time.perf_counter() - started, 3)
                step.lm = step.lm + _tokens(usage)
                self.resources.lm = self.resources.lm + step.lm
                self.steps.append(step)
                self._current = None

    @contextmanager
    def timed(self, bucket: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            name = f"{bucket}_s"
            setattr(self.timing, name, getattr(self.timing, name) + time.perf_counter() - started)

    def uncovered(self) -> tuple[str, ...]:
        """Doc queries (sub-queries and rewrites) the collection has no close passage for, newest
        first, not yet searched on the web: a second hop's entity is often found only this way."""
        floor = self.thresholds.coverage_similarity
        # subtle: a one-word query ("Government") is never close to a whole passage; it says
        # nothing about coverage, and searching the web for it wastes a round
        return tuple(q for q, best in reversed(self.best_similarity.items())
                     if q not in self.searched_web and best is not None and best < floor and len(terms(q)) > 1)

    def out_of_time(self) -> bool:
        """True once the time limit has passed; it ends the run as budget_exhausted, with a warning."""
        elapsed = time.perf_counter() - self._started
        if self.time_limit_s is None or elapsed < self.time_limit_s:
            return False
        self.ended = "budget_exhausted"
        self.warn(f"time limit of {self.time_limit_s:g} s reached after {elapsed:.1f} s: returned the current draft")
        return True

    def count_lm_call(self) -> None:
        if self._current is not None:
            self._current.lm.calls += 1

    def warn(self, message: str) -> None:
        self.warnings.append(message)
        if self._current is not None:
            self._current.warnings.append(message)

    def result(self, answer: str) -> Result:
        answer, added = attach_missing(answer, self.question, self.shown)
        if added:
            self.warnings.append(f"{added} uncited sentence(s): attached the best-matching passage's [n] post hoc")
        self.timing.total_s = time.perf_counter() - self._started
        self.timing = Timing(**{k: round(v, 3) for k, v in self.timing.model_dump().items()})
        citations = self._citations(answer)
        trace = Trace(steps=self.steps, ended=self.ended, resources=self.resources, query_type=self.query_type,
                      sub_queries=self.sub_queries, key_concepts=self.key_concepts, known_facts=self.memory.facts,
                      gaps=self.memory.gaps, summary=self.memory.summary, query_similarity=self.best_similarity,
                      coverage_similarity=self.thresholds.coverage_similarity)
        return Result(question=self.question, answer=answer, citations=citations, confidence=round(self.confidence * 100),
                      sources=_sources(citations), warnings=self.warnings, timing=self.timing, trace=trace,
                      evidence=[s.passage for s in self.shown])

    def _citations(self, answer: str) -> list[Citation]:
        by_n = {s.n: s for s in self.shown}
        citations = []
        for n in cited_numbers(answer):
            if n not in by_n:
                self.warnings.append(f"the answer cites [{n}], which is not in the evidence it was shown")
                continue
            p = by_n[n].passage
            citations.append(Citation(n=n, chunk_id=p.chunk_id, source=p.source, title=p.title, url=p.url, quote=by_n[n].text))
        return citations


def _tokens(usage) -> Tokens:
    totals = usage.get_total_tokens().values()
    return Tokens(prompt=sum(t.get("prompt_tokens") or 0 for t in totals),
                  completion=sum(t.get("completion_tokens") or 0 for t in totals))


def _sources(citations: list[Citation]) -> list[Source]:
    unique = {(c.title, c.url, c.source): None for c in citations}
    return [Source(title=t, url=u, source=s) for t, u, s in unique]
