"""The state of one question while the loop runs: evidence, compressed memory, draft, trace, clocks.

A fresh `RunState` is made per call, so a program shared between threads keeps no per-question
state. Between steps only the compressed memory (gaps, queries tried) and the evidence pool
travel; raw LM history never does. This module records; it decides nothing (`program.gate` does).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

import dspy

from program.answer.citations import attach_missing, cited_numbers
from program.answer.criteria import Criteria
from program.answer.short_answer import recorded_short_answer, says_unknown
from program.base.redaction import redact
from program.contract.result import (
    Acceptance,
    Action,
    Citation,
    CodeCheck,
    Ending,
    ExpansionStep,
    Incident,
    Resources,
    Result,
    Source,
    Step,
    Timing,
    Tokens,
    Trace,
)
from program.evidence import EvidencePool, Shown
from program.gate import Progress, Verdict, gives_no_answer, strong_hits
from program.provenance import web_sourced
from program.retrieval.passage import Passage
from program.signals import Signals, answer_reached, answer_support, source_similarity
from program.thresholds import Thresholds

FETCH_SHARE = 0.5  # of a question's time left, the most one fetch may take (an LM call still needs the rest)


@dataclass
class Memory:
    gaps: list[str] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)
    summary: str = ""


@dataclass
class RunState:
    question: str  # as the loop answers it: a follow-up's standalone rewrite, else as asked
    thresholds: Thresholds
    original_question: str = ""  # a follow-up as asked, once `question` is its rewrite
    pool: EvidencePool = field(default_factory=EvidencePool)
    memory: Memory = field(default_factory=Memory)
    steps: list[Step] = field(default_factory=list)
    timing: Timing = field(default_factory=Timing)
    resources: Resources = field(default_factory=Resources)
    warnings: list[str] = field(default_factory=list)
    incidents: list[Incident] = field(default_factory=list)
    shown: list[Shown] = field(default_factory=list)
    query_type: str = "factual"
    sub_queries: list[str] = field(default_factory=list)
    key_concepts: list[str] = field(default_factory=list)
    ranked: dict[str, list[float]] = field(default_factory=dict)  # query -> its ranked dense similarities
    searched_web: set[str] = field(default_factory=set)
    expanded: set[str] = field(default_factory=set)  # chunk ids whose neighbours were read
    draft: str = ""
    short_answer: str = ""
    abstained: bool = False
    confidence: float = 0.0
    code_blocks: list[CodeCheck] = field(default_factory=list)  # the draft's fenced blocks, checked
    _signals: dict[int, Signals] = field(default_factory=dict)  # evidence version -> its signals
    ended: Ending = "answered"
    time_limit_s: float | None = None
    constraints: str = ""  # what every LM call reads with the question: the caller's constraints and criteria
    criteria: Criteria = field(default_factory=Criteria)
    acceptance: Acceptance | None = None  # the answer's score, once scored
    draft_checks: dict[str, float] = field(default_factory=dict)  # the released draft's, for the acceptance model
    draft_logprob: float | None = None  # the LM's mean token log-probability over the draft's short answer
    web: str = "none"  # the web backend's label, for the trace
    seed_url: str = ""  # the page breadth expansion starts from; "" without one
    expansion: list[ExpansionStep] = field(default_factory=list)  # the traversal so far
    depths: dict[str, int] = field(default_factory=dict)  # url -> hops from the seed, of the pages it fetched
    _evidence_version: int = 0
    _draft_version: int = -1
    _verdict: Verdict | None = None
    _verdict_version: int = -1
    _started: float = field(default_factory=time.perf_counter)
    _current: Step | None = None

    @property
    def asked(self) -> str:
        """The question as every LM call reads it: with the caller's requirements, if any."""
        return f"{self.question}\nRequirements: {self.constraints}" if self.constraints else self.question

    @contextmanager
    def step(self, action: Action, reason: str = "") -> Iterator[Step]:
        """Record one decision: its duration and the LM tokens spent inside it."""
        step = Step(action=action, reason=reason)
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

    # --- what the gate reads -------------------------------------------------------------

    def progress(self) -> Progress:
        current = self._verdict if self._verdict_version == self._evidence_version else None
        shown = self._cited()
        # each cited passage as shown, with its similarity to the query that found it
        cited = [(f"{s.passage.title} {s.text}", s.passage.similarity) for s in shown]
        return Progress(question=self.question, has_draft=bool(self.draft),
                        draft_current=self._draft_version == self._evidence_version,
                        draft_unknown=says_unknown(self.short_answer), verdict=current,
                        answer_support=answer_support(self.short_answer, [t for t, _ in cited], self.question),
                        answer_similarity=source_similarity(self.short_answer, cited),
                        answer_reached=answer_reached(self.short_answer, [s.passage for s in shown],
                                                      self.pool.passages, self.key_concepts),
                        expansions=self.resources.doc_queries + self.resources.web_searches + self.resources.breadth_rounds,
                        breadth_rounds=self.resources.breadth_rounds,
                        doc_rounds=self.resources.doc_queries,
                        last_found_nothing=self._last_expansion_found_nothing(),
                        tried_docs=frozenset(self.memory.tried) - self.searched_web,
                        searched_web=frozenset(self.searched_web),
                        web_sourced_gaps=web_sourced(current.gaps, self.asked, self.pool.passages) if current else frozenset())

    def _cited(self) -> list[Shown]:
        """The passages the draft cites, as shown; all shown ones when it cites none."""
        cited = set(cited_numbers(self.draft))
        return [s for s in self.shown if s.n in cited or not cited]

    def _last_expansion_found_nothing(self) -> bool:
        expansions = [s for s in self.steps if s.action in ("expand_locality", "query_docs", "search_web",
                                                              "expand_breadth")]
        return bool(expansions) and expansions[-1].new_passages == 0

    @property
    def gives_no_answer(self) -> bool:
        """Whether the loop gives no answer, by the gate's rule (`program.gate.gives_no_answer`)."""
        return gives_no_answer(self.abstained, self.short_answer)

    def verdict_score(self) -> float | None:
        """The LM judge's confidence in the answer (capped when it found the evidence insufficient);
        None when no judge call gave a readable verdict."""
        return self.confidence if self._verdict is not None and self._verdict.readable else None

    def seconds_left(self) -> float | None:
        if self.time_limit_s is None:
            return None
        return self.time_limit_s - (time.perf_counter() - self._started)

    def fetch_seconds(self) -> float | None:
        """How long one fetch (the seed page, a breadth round) may take: `FETCH_SHARE` of the time left,
        so a page that trickles in still leaves the rest for reading and answering; None with no limit."""
        left = self.seconds_left()
        return None if left is None else max(0.0, left) * FETCH_SHARE

    def remember(self, signals: Signals) -> None:
        self._signals[self._evidence_version] = signals

    def current_signals(self) -> Signals | None:
        """The signals the gate measured on the evidence as it is now, if it has."""
        return self._signals.get(self._evidence_version)

    def signals_before(self) -> Signals | None:
        """The signals of the evidence before the last round that added any, for the gain."""
        older = [v for v in self._signals if v < self._evidence_version]
        return self._signals[max(older)] if older else None

    def strong_with_neighbours(self) -> list[Passage]:
        """The gate's strong hits (`program.gate.strong_hits`) from a document of several chunks
        whose neighbours were not read yet."""
        unread = [p for p in self.pool.passages if p.doc_chunks > 1 and p.chunk_id not in self.expanded]
        return strong_hits(unread, self.thresholds)

    # --- what the steps record -------------------------------------------------------------

    def add_evidence(self, passages: list[Passage]) -> int:
        new = self.pool.add(passages)
        if new:
            self._evidence_version += 1
        return new

    def stand_alone(self, standalone: str) -> None:
        """From here on the loop answers the follow-up's standalone form."""
        self.original_question, self.question = self.original_question or self.question, standalone

    def set_draft(self, answer: str | None, short_answer: str | None, logprob: float | None = None) -> None:
        """`logprob`: the LM's mean token log-probability over the short answer it wrote, when it gave them."""
        self.draft = (answer or "").strip() or self.draft
        self.draft_logprob = logprob
        self.short_answer = recorded_short_answer(self.question, short_answer or "", answer or "",
                                                  [p.title for p in self.pool.passages])
        self._draft_version = self._evidence_version
        if self._current is not None:
            self._current.short_answer = self.short_answer  # the step's own draft, in the trace
            if (short_answer or "").strip() != self.short_answer:
                self._current.lm_short_answer = short_answer  # what the recording rules replaced

    def set_verdict(self, verdict: Verdict) -> None:
        self._verdict, self._verdict_version = verdict, self._evidence_version
        self.memory.gaps = list(verdict.gaps)
        self.memory.summary = "; ".join(verdict.gaps)
        if self._current is not None:
            self._current.confidence = verdict.confidence  # the judge step's own reading, in the trace

    def abstain(self, reason: str) -> None:
        self.abstained = True
        self.draft = self.draft or f"The evidence does not answer this: {reason}."

    def count_lm_call(self) -> None:
        if self._current is not None:
            self._current.lm.calls += 1

    def warn(self, message: str, incident: Incident | None = None) -> None:
        """A warning for the reader; `incident` is what a program reads instead of its words."""
        message = redact(message)  # warnings quote raw error text, which can hold a key
        self.warnings.append(message)
        if incident and incident not in self.incidents:
            self.incidents.append(incident)
        if self._current is not None:
            self._current.warnings.append(message)

    def result(self, no_answer: str) -> Result:
        answer, added = attach_missing(self.draft or no_answer, self.question, self.shown)
        if added:
            self.warnings.append(f"{added} uncited sentence(s): attached the best-matching passage's [n] post hoc")
        self.timing.total_s = time.perf_counter() - self._started
        self.timing = Timing(**{k: round(v, 3) for k, v in self.timing.model_dump().items()})
        citations = self._citations(answer)
        abstained = self.gives_no_answer
        trace = Trace(steps=self.steps, ended=self.ended, incidents=self.incidents, resources=self.resources, query_type=self.query_type, web=self.web,
                      sub_queries=self.sub_queries, key_concepts=self.key_concepts, known_facts=[],
                      gaps=self.memory.gaps, summary=self.memory.summary,
                      query_similarity={q: (s[0] if s else None) for q, s in self.ranked.items()},
                      coverage_similarity=self.thresholds.coverage_similarity, draft_checks=self.draft_checks)
        return Result(question=self.original_question or self.question,
                      standalone_question=self.question if self.original_question else "", answer=answer,
                      short_answer="" if abstained else self.short_answer,
                      abstained=abstained, citations=citations, confidence=round(self.confidence * 100),
                      sources=_sources(citations), warnings=self.warnings, code_blocks=self.code_blocks,
                      acceptance=self.acceptance, timing=self.timing, trace=trace, evidence=[s.passage for s in self.shown],
                      evidence_shown=[s.text for s in self.shown], expansion_steps=self.expansion)

    def _citations(self, answer: str) -> list[Citation]:
        by_n = {s.n: s for s in self.shown}
        citations = []
        for n in cited_numbers(answer):
            if n not in by_n:
                self.warnings.append(f"the answer cites [{n}], which is not in the evidence it was shown")
                continue
            p = by_n[n].passage
            citations.append(Citation(n=n, chunk_id=p.chunk_id, source=p.source, title=p.title, url=p.url, quote=by_n[n].text,
                                      origin=p.origin, heading_path=p.heading_path, start=p.start, end=p.end))
        return citations


def _tokens(usage) -> Tokens:
    totals = usage.get_total_tokens().values()
    return Tokens(prompt=sum(t.get("prompt_tokens") or 0 for t in totals),
                  completion=sum(t.get("completion_tokens") or 0 for t in totals))


def _sources(citations: list[Citation]) -> list[Source]:
    unique = {(c.title, c.url, c.source): None for c in citations}
    return [Source(title=t, url=u, source=s) for t, u, s in unique]
