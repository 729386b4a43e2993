"""The result contract: what every answer returns, with its citations and decision trace.

These pydantic models are the boundary between the loop and its users (CLI, services,
metrics, MLflow). They hold no secrets and no raw LM history.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from program.retrieval.passage import Passage

Action = Literal["contextualize", "seed", "decompose", "retrieve", "draft", "refine", "judge", "answer", "abstain",
                 "expand_locality", "query_docs", "search_web", "expand_breadth", "repair_code", "score", "repair",
                 "release"]
Ending = Literal["answered", "abstained", "budget_exhausted", "max_iterations", "error"]
# what went wrong on the way, whatever the ending: what an agent's next step depends on (retry later,
# search the web itself), read from here and never from the wording of a warning
Incident = Literal["timeout", "lm_busy", "lm_unreadable", "web_failed", "web_empty", "seed_failed", "loop_error",
                   "rewrite_unusable"]


class Citation(BaseModel):
    n: int = Field(description="the [n] marker in the answer")
    chunk_id: str
    source: Literal["index", "web"]
    title: str
    url: str = ""
    quote: str = Field(description="the passage text the LM was shown")
    origin: str = Field("", description="the ingested file path, archive member or URL; empty when unknown")
    heading_path: list[str] = Field([], description="the headings above the passage in its document")
    start: int = Field(0, description="where the passage starts in its document's text (characters)")
    end: int = Field(0, description="where it ends; 0 when unknown")


class Tokens(BaseModel):
    calls: int = 0
    prompt: int = 0
    completion: int = 0

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(calls=self.calls + other.calls, prompt=self.prompt + other.prompt, completion=self.completion + other.completion)


class Step(BaseModel):
    """One decision of the loop and the work it caused."""

    action: Action
    reason: str = ""
    queries: list[str] = []
    top_scores: list[float] = []
    new_passages: int = 0
    confidence: float | None = Field(None, description="the judge's confidence, on a judge step")
    short_answer: str | None = Field(None, description="on a step that drafted (draft, judge, refine): the short "
                                     "answer it recorded, kept when the gate then refuses it; on a release step: "
                                     "the draft it weighed, kept when withheld")
    lm_short_answer: str | None = Field(None, description="on a step that drafted: the short answer the LM wrote, where "
                                        "the one recorded is another (program/answer/short_answer.py)")
    rule: str = Field("", description="the gate rule that chose this step (program/gate.py)")
    signals: dict[str, float] = Field({}, description="the retrieval signals the gate saw before this step")
    score_before: float | None = Field(None, description="on a score or repair step: the answer's score (0-1)")
    score_after: float | None = Field(None, description="on a repair step: the repaired answer's score")
    failed: list[str] = Field([], description="on a score or repair step: the criteria failed and the contradictions")
    duration_s: float = 0.0
    lm: Tokens = Tokens()
    warnings: list[str] = []


class Resources(BaseModel):
    lm: Tokens = Tokens()
    judge_calls: int = 0
    doc_queries: int = 0
    web_searches: int = 0
    breadth_rounds: int = 0
    pages_fetched: int = 0  # by breadth expansion, the seed page not counted
    iterations: int = 0


class ExpansionStep(BaseModel):
    """One page breadth expansion considered: the seed, or a link it scored and fetched, skipped or failed."""

    round: int = Field(description="0 for the seed, then the expansion round")
    url: str
    parent: str = Field("", description="the page whose link led here; empty for the seed and its parent paths")
    status: Literal["seed", "fetched", "skipped", "failed"]
    score: float | None = Field(None, description="the link's score in this round (program/retrieval/breadth.py)")
    anchor: str = ""
    reason: str = Field("", description="why a fetch failed")


class Timing(BaseModel):
    decompose_s: float = 0.0
    retrieval_s: float = 0.0
    lm_s: float = 0.0
    web_s: float = 0.0
    total_s: float = 0.0


class Trace(BaseModel):
    steps: list[Step] = []
    ended: Ending = "answered"
    incidents: list[Incident] = Field([], description="what went wrong on the way, once each, in order: the time "
                                      "limit, no LM slot, unreadable LM output, a failed or empty web search, a seed "
                                      "page not ingested, an error that stopped the loop, a follow-up's rewrite "
                                      "replaced by substitution")
    resources: Resources = Resources()
    query_type: str = "factual"
    web: str = Field("none", description="the web this answer could search, and why when a key chose it")
    sub_queries: list[str] = []
    key_concepts: list[str] = []
    known_facts: list[str] = []
    gaps: list[str] = []
    summary: str = Field("", description="the judge's last one-line account of what is still missing")
    query_similarity: dict[str, float | None] = Field(
        {}, description="each doc query's best dense similarity in the collection (None: the search gave none)")
    coverage_similarity: float | None = Field(None, description="the threshold under which a query counted as not covered")
    draft_checks: dict[str, float] = Field({}, description="the final draft's checks as numbers, what the acceptance "
                                           "model reads (program/judges/acceptance.py); empty when no draft was released")
    uncalibrated_confidence: int | None = Field(
        None, ge=0, le=100, description="the judge's confidence, when the program's fitted calibrator replaced it")


class CodeCheck(BaseModel):
    """One fenced code block of the answer and whether it parses (program/answer/code_check.py)."""

    block: int = Field(description="its place among the answer's code blocks, from 1")
    language: str = Field(description="the language its fence names, normalized (py -> python); empty when none")
    status: Literal["valid", "invalid", "unchecked"] = Field(
        description="unchecked: no parser for its language, so nothing is known either way")
    line: int | None = Field(None, description="the line of the first syntax error within the block, when invalid")
    error: str = Field("", description="the parser's message, when invalid")
    repaired: bool = Field(False, description="it did not parse and was replaced by one LM repair that does")


class Factuality(BaseModel):
    """How well the answer agrees with the passages it cites, measured with no LM (program/answer/factuality.py)."""

    score: float = Field(ge=0.0, le=1.0, description="the mean support of its claims, less a share when miscalibrated")
    support: float = Field(ge=0.0, le=1.0, description="the mean support of its claims by their cited passages; "
                           "0 for a contradicted claim")
    claims: int = Field(0, description="the sentences that state something")
    contradictions: list[str] = Field([], description="a number, month or negation a claim states against its passages")
    unsupported: list[str] = Field([], description="names no cited passage mentions")
    miscalibrated: str = Field("", description="overconfident wording over weak support, or hedging over strong")


class Acceptance(BaseModel):
    """The answer's score: w_judge x judge + w_fact x factuality, its threshold, and the one repair
    it may have had (program/answer/acceptance.py scores it, program/gate.py decides the repair)."""

    score_before: float = Field(ge=0.0, le=1.0, description="the answer's score before any repair")
    score_after: float | None = Field(None, description="the repaired answer's score; None when no repair ran")
    threshold: float = Field(description="the score an answer is accepted at")
    accepted: bool = Field(description="the returned answer scores at or above the threshold")
    repaired: bool = Field(False, description="a repair ran and, scoring higher, replaced the answer")
    judge: float | None = Field(None, description="the returned answer's judge part: the share of criteria met "
                                "times the LM judge's confidence; None with neither criteria nor a judge call")
    criteria_given: int = Field(0, description="required and prohibited elements, and the domain check, given")
    failed: list[str] = Field([], description="before any repair: the criteria failed and the contradictions")
    failed_after: list[str] = Field([], description="what the returned answer still fails")
    factuality: Factuality


class Source(BaseModel):
    title: str
    url: str = ""
    source: Literal["index", "web"]


class Result(BaseModel):
    question: str
    standalone_question: str = Field("", description="a follow-up rewritten with its session's topics, as the loop "
                                     "answered it; empty when the question stood alone")
    answer: str = Field(description="the cited explanation, [n] markers inline")
    short_answer: str = Field("", description="what the question asks for (an entity, yes/no, a number, a date); "
                              "empty when the program abstained")
    abstained: bool = Field(False, description="the evidence does not hold the answer, so none is given")
    citations: list[Citation] = []
    confidence: int = Field(0, ge=0, le=100)
    sources: list[Source] = []
    warnings: list[str] = []
    code_blocks: list[CodeCheck] = Field([], description="every fenced code block of the answer, checked for syntax")
    acceptance: Acceptance | None = Field(None, description="the answer's score against the caller's criteria and its "
                                          "evidence; None when the loop stopped before scoring it (a time limit, an error)")
    timing: Timing = Timing()
    trace: Trace = Trace()
    evidence: list[Passage] = Field([], description="the passages shown to the LM for the final answer")
    evidence_shown: list[str] = Field([], description="each passage of `evidence` as the LM read it: trimmed to its "
                                      "best sentences; empty in results recorded before it was kept")
    expansion_steps: list[ExpansionStep] = Field([], description="from a seed URL: the seed, then each round's "
                                                 "scored links, fetched, skipped or failed")
