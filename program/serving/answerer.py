"""Answer one service request: the request model, LM slots, the time limit.

Shared by the HTTP service and the MCP server. Each request runs in its own `dspy.context`
(LM, adapter, usage tracking), and hints apply to a copy of the thresholds, so one request's
settings never reach another. The local LM has one llama.cpp slot, so by default one request
runs the loop at a time and the rest queue; the wait counts against `serve_timeout_s`, the
loop gets what is left, less `RESPONSE_S` to answer in, as its `time_limit_s` (its LM call in
flight is cancelled then, which frees the slot), and a request that gets no slot in time returns
retrieval-only results with the structured fallback: a warning, never an error. A request's
`session_id` continues a conversation kept in the served program's session store (in memory
unless `GATEDRAG_SESSION_STORE=file`), shared by every collection served.
The response is `program.contract.answer_response.AnswerResponse`, the contract every surface returns.
This module does not speak HTTP or MCP; see `program.serving.service` and `program.serving.mcp_server`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import dspy
from pydantic import Field, StringConstraints, field_validator

from program.assembly.factory import build_served
from program.base.redaction import redact
from program.base.settings import MAX_QUESTION_CHARS, Settings
from program.contract.answer_response import AnswerResponse, respond
from program.contract.result import Result, Step, Trace
from program.gate import adaptive_cut
from program.hints import Hints
from program.lm.lm_profiles import build_lm, json_adapter
from program.serving.admission import Admission
from program.loop import NO_ANSWER, GatedRAG
from program.retrieval.store import CollectionMissingError, check_name
from program.sessions.conversation import SESSION_ID

log = logging.getLogger(__name__)


RESPONSE_S = 0.5  # of each request's time, kept to build and send its answer (on 2 starved cores, up to ~1 s)


class AnswerRequest(Hints):
    question: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_QUESTION_CHARS)] = \
        Field(description="the question, in plain words")
    include_trace: bool = Field(False, description="return the decision trace (one step per decision)")
    collection: str | None = Field(None, max_length=200, description="the collection to answer from (default: the "
                                   "served one); it searches only its own offline web corpus")
    session_id: str | None = Field(None, pattern=SESSION_ID, description="continue this conversation: a follow-up "
                                   "(\"What about its pricing?\") is rewritten with its recent turns' topics")
    url: str | None = Field(None, max_length=2000, pattern=r"^https?://\S+$", description="a seed page: ingested into "
                            "the collection first (if new), then the gate may follow its links (expand_breadth); over "
                            "HTTP only where ingest is allowed (GATEDRAG_SERVE_INGEST)")

    @field_validator("collection")
    @classmethod
    def _collection_name(cls, name: str | None) -> str | None:
        # checked here, as a 422: deeper down the store refuses a bad name with a ValueError, which was a 500
        return check_name(name) if name else name

    def hints(self) -> Hints:
        return Hints(**self.model_dump(include=set(Hints.model_fields)))


class UnknownCollection(ValueError):
    """A request named a collection the store does not hold."""


@dataclass
class Engine:
    """A program and the LM it runs on; `close` stops whatever loading it started."""

    rag: GatedRAG
    lm: dspy.BaseLM
    adapter: dspy.Adapter = field(default_factory=json_adapter)
    description: str = ""
    close: Callable[[], None] = lambda: None


def load_program(settings: Settings, program_path: Path | None = None) -> GatedRAG:
    """The system the settings name (the gated loop by default) over their index and web backend;
    a compiled one from `program_path`. Fast (no LM), so a caller can check the index and the program before serving."""
    return build_served(settings, program_path=program_path)


def start_lm(rag: GatedRAG, settings: Settings, cache: bool = True) -> Engine:
    """`cache`: DSPy's response cache (off to measure real LM time)."""
    handle = build_lm(settings, cache=cache)
    return Engine(rag, handle.lm, description=handle.description, close=handle.close)


class Answerer:
    """Loads the engine once (in the background with `start`, or on first use) and answers requests."""

    def __init__(self, load: Callable[[], Engine], settings: Settings):
        self._load, self.settings = load, settings
        self._engine: Engine | None = None
        self.error: str | None = None
        self._loading = threading.Lock()
        slots = settings.serve_lm_slots or (1 if settings.resolved_profile == "local" else 4)
        self._slots = threading.BoundedSemaphore(slots)
        self._admission = Admission(settings.serve_max_pending, "requests")
        self._others: dict[str, GatedRAG] = {}  # collection -> the served program over it

    @property
    def ready(self) -> bool:
        return self._engine is not None

    @property
    def description(self) -> str:
        return self._engine.description if self._engine else ""

    def start(self) -> None:
        threading.Thread(target=self._load_quietly, name="gatedrag-load", daemon=True).start()

    def _load_quietly(self) -> None:
        try:
            self.engine()
        except Exception:  # noqa: BLE001 - kept in self.error, which /readyz and every request report
            log.error("loading the program and its LM failed: %s", self.error)

    def engine(self) -> Engine:
        with self._loading:
            if self._engine is None:
                try:
                    self._engine = self._load()
                except Exception as error:  # reported by /readyz and each request; the process stays up
                    self.error = redact(f"{type(error).__name__}: {error}")  # shown by /readyz and in 503s
                    raise
                self.error = None
            return self._engine

    def close(self) -> None:
        if self._engine is not None:
            self._engine.close()

    def answer(self, request: AnswerRequest) -> AnswerResponse:
        started = time.perf_counter()
        engine = self.engine()
        rag = self.program_for(engine, request.collection)
        with self._admission.admitted():
            # subtle: the loop stops RESPONSE_S early, so the answer is built and sent by the limit
            result = self._run(engine, rag, request, deadline=started + self.settings.serve_timeout_s - RESPONSE_S)
        return respond(result, include_trace=request.include_trace,
                       elapsed_ms=round((time.perf_counter() - started) * 1000))

    def program_for(self, engine: Engine, collection: str | None) -> GatedRAG:
        """The served program over `collection`: the same prompts, demos and thresholds, built
        once per collection, with that collection's own web (never another domain's)."""
        if not collection or collection == self.settings.collection:
            return engine.rag
        with self._loading:
            if collection not in self._others:
                settings = self.settings.model_copy(update={"collection": collection, "web_collection": None})
                try:
                    rag = build_served(settings)
                except CollectionMissingError as error:
                    raise UnknownCollection(str(error)) from None
                rag.sessions = engine.rag.sessions  # a conversation may move between collections
                self._others[collection] = rag.load_state(engine.rag.dump_state())
            return self._others[collection]

    def _run(self, engine: Engine, rag: GatedRAG, request: AnswerRequest, deadline: float) -> Result:
        if not self._slots.acquire(timeout=max(0.0, deadline - time.perf_counter())):
            return retrieval_only(rag, request.question, request.hints(),
                                  f"the LM was busy: no slot within {self.settings.serve_timeout_s:g} s, so this is "
                                  "retrieval only")
        try:
            with dspy.context(lm=engine.lm, adapter=engine.adapter, track_usage=True):
                # subtle: a request that got the slot with no time left makes no LM call at all
                return rag(question=request.question, hints=request.hints(), session_id=request.session_id,
                           time_limit_s=max(0.0, deadline - time.perf_counter()), url=request.url).result
        finally:
            self._slots.release()


def retrieval_only(rag: GatedRAG, question: str, hints: Hints, warning: str) -> Result:
    """A result without the LM: the question's own search, for the fallback to describe."""
    t = hints.apply(rag.thresholds)
    step = Step(action="retrieve", reason="retrieval only: no LM", queries=[question])
    try:
        found = rag.search(question, t.top_k)
    except Exception as error:  # noqa: BLE001 - a failed search still gets a structured answer
        found, warning = [], f"{warning}; the search failed: {type(error).__name__}: {error}"
    kept = adaptive_cut(found, t)  # what the loop would have kept of the same search
    best = max((p.similarity for p in found if p.similarity is not None), default=None)
    step.new_passages, step.top_scores = len(kept), sorted((round(p.similarity or p.score, 3) for p in kept), reverse=True)[:3]
    # the web label, as the loop records it: the fallback's reason says whether a web was there to search
    trace = Trace(steps=[step], ended="budget_exhausted", incidents=["lm_busy"], query_type=hints.intent or "factual", sub_queries=[question],
                  query_similarity={question: best}, coverage_similarity=t.coverage_similarity,
                  web=rag.web.label if rag.web else "none")
    return Result(question=question, answer=NO_ANSWER, warnings=[warning], trace=trace, evidence=kept)
