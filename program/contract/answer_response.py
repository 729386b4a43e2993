"""The one response contract: what `ask --json`, the Python API, HTTP `/answer`, MCP `answer` and
the MLflow model all return for a question.

`AnswerResponse` is a `Result` (the loop's own record, `program.contract.result`) plus the agent metadata of
`program.contract.agent_metadata`: confidence 0-100, retrieval quality, suggestions, related queries and the
structured fallback, with the processing time. The trace is included only when asked for.
`respond` builds it from a `Result`, `AnswerResponse.from_prediction` from what calling a
program returns. Its JSON Schema is published in `answer_response.schema.json` beside this file
(`python -m program.contract.answer_response` rewrites it). This module does not run the loop or speak
any protocol.

Versioning: `schema_version` is "major.minor". A new optional field bumps the minor; removing,
renaming or retyping a field bumps the major.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from program.contract.agent_metadata import (
    Fallback,
    Quality,
    Suggestion,
    describe,
    fallback_answer,
)
from program.contract.result import (
    Acceptance,
    Citation,
    CodeCheck,
    ExpansionStep,
    Result,
    Source,
    Timing,
    Trace,
)
from program.retrieval.passage import Passage

if TYPE_CHECKING:
    import dspy

# 1.1: acceptance (the answer's score and its repair), trace.uncalibrated_confidence; 1.2: standalone_question;
# 1.3: expansion_steps (breadth expansion from a seed URL); 1.4: trace.incidents; 1.5: the rewrite_unusable incident;
# 1.6: a drafting step's short_answer; 1.7: its lm_short_answer; 1.8: trace.draft_checks and the release step
SCHEMA_VERSION = "1.8"
SCHEMA_FILE = Path(__file__).with_name("answer_response.schema.json")
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class AnswerResponse(BaseModel):
    """An answer with its citations, the agent metadata, and the decision trace when asked for."""

    schema_version: str = Field(SCHEMA_VERSION, description="the version of this contract (major.minor)",
                                json_schema_extra={"const": SCHEMA_VERSION})
    question: str
    standalone_question: str = Field("", description="a follow-up rewritten with its session's topics, as the loop "
                                     "answered it; empty when the question stood alone")
    answer: str = Field(description="the cited explanation, [n] markers inline; when `fallback` is set, what is "
                        "known instead of a guess")
    short_answer: str = Field("", description="what the question asks for (an entity, yes/no, a number, a date); "
                              "empty when the program abstained")
    abstained: bool = Field(False, description="the evidence does not hold the answer, so none is given")
    citations: list[Citation] = []
    sources: list[Source] = []
    confidence: int = Field(0, ge=0, le=100, description="with a fitted calibrator, the estimated chance (in %) that "
                            "the answer is right; without one, the judge's confidence (a prior from retrieval quality "
                            "when no judge ran), capped by retrieval quality and by how the loop ended")
    retrieval_quality: Quality
    query_type: str
    suggestions: list[Suggestion] = []
    related_queries: list[str] = []
    warnings: list[str] = []
    code_blocks: list[CodeCheck] = Field([], description="every fenced code block of the answer: valid, invalid "
                                         "(with its error) or unchecked (no parser for its language)")
    acceptance: Acceptance | None = Field(None, description="the answer's score against the caller's criteria "
                                          "(required, prohibited, check) and its cited evidence, before and after "
                                          "its one repair; None when the loop stopped before scoring it")
    fallback: Fallback | None = Field(None, description="set when the evidence is insufficient: what was understood, "
                                                        "and web searches to run instead of a guess")
    timing: Timing = Timing()
    processing_time_ms: int = Field(ge=0, description="the request's wall time: over HTTP and MCP any wait for the LM "
                                    "included, elsewhere the loop's own total")
    evidence: list[Passage] = Field([], description="the passages shown to the LM for the final answer")
    expansion_steps: list[ExpansionStep] = Field([], description="from a seed URL: the seed, then each round's "
                                                 "scored links, fetched, skipped or failed")
    trace: Trace | None = Field(None, description="the decision trace, one step per decision; only when asked for")

    @classmethod
    def from_prediction(cls, prediction: dspy.Prediction, include_trace: bool = False) -> AnswerResponse:
        """The response for what a program call returned: `AnswerResponse.from_prediction(rag(question=q))`."""
        return respond(prediction.result, include_trace=include_trace)


def respond(result: Result, include_trace: bool = False, elapsed_ms: int | None = None) -> AnswerResponse:
    """`elapsed_ms`: the request's wall time, when the caller measured more than the loop (a queue
    wait); otherwise the loop's own total time. Whether a web was there to search is read from the
    trace, so the fallback's reason matches what the loop could do."""
    meta = describe(result, web_configured=result.trace.web != "none")
    fields = result.model_dump(exclude={"trace", "confidence"}) | meta.model_dump(exclude={"fallback"})
    if meta.fallback:
        # not a guess: the draft moves to fallback.unverified_draft, with the citations it made
        fields |= dict(answer=fallback_answer(meta.fallback), citations=[], sources=[])
    elapsed = round(result.timing.total_s * 1000) if elapsed_ms is None else elapsed_ms
    return AnswerResponse(**fields, fallback=meta.fallback, trace=result.trace if include_trace else None,
                          processing_time_ms=elapsed)


def schema_text() -> str:
    """The published JSON Schema, as `answer_response.schema.json` holds it."""
    schema = {"$schema": JSON_SCHEMA_DIALECT, "$id": f"urn:gatedrag:answer-response:{SCHEMA_VERSION}",
              **AnswerResponse.model_json_schema()}
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SCHEMA_FILE.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {SCHEMA_FILE}")
