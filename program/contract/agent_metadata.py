"""What an agent needs besides the answer: retrieval quality, a confidence (fitted on labelled
questions when the program carries a calibrator, else the judge's capped by what retrieval supports),
next actions with parameters, related queries, and a structured fallback instead of a guess.

Pure functions of a `Result` (and of whether a web backend is configured): no LM, no search,
no I/O. Retrieval quality is measured, not opined: the share of doc queries whose best indexed
passage reaches the program's `coverage_similarity`. `program.contract.answer_response` attaches all of it to
the response every surface returns; this module does not build responses.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from program.contract.result import Result
from program.evidence import terms
from program.gate import (
    below_coverage,
    capped_confidence,
    grade_retrieval,
    needs_fallback,
)
from program.provenance import web_sourced
from program.signals import measured_queries

Quality = Literal["high", "medium", "low", "none"]



class Suggestion(BaseModel):
    action: Literal["web_search", "answer", "search_corpus", "ingest"] = Field(
        description="a tool to call next: this service's answer/search_corpus/ingest, or the caller's own web search")
    reason: str
    parameters: dict[str, Any] = Field(description="arguments for that tool")


class Understood(BaseModel):
    topic: str
    intent: str
    key_terms: list[str]
    covered: list[str] = Field(description="key terms the retrieved collection passages mention")
    not_covered: list[str] = Field(description="key terms no retrieved collection passage mentions")


class Fallback(BaseModel):
    reason: str = Field(description="why the evidence is insufficient and the web did not fill the gap")
    understood: Understood
    web_queries: list[str] = Field(description="2 to 4 targeted web searches that would fill the gaps")
    unverified_draft: str = Field(description="the loop's last draft; not supported well enough to give as the answer")


class AgentMetadata(BaseModel):
    confidence: int = Field(ge=0, le=100)
    retrieval_quality: Quality
    query_type: str
    suggestions: list[Suggestion]
    related_queries: list[str]
    fallback: Fallback | None


def describe(result: Result, web_configured: bool) -> AgentMetadata:
    quality = retrieval_quality(result)
    fallback = build_fallback(result, quality, web_configured) if insufficient(result, quality) else None
    return AgentMetadata(confidence=agent_confidence(result, quality), retrieval_quality=quality,
                         query_type=result.trace.query_type, suggestions=suggestions(result, quality, fallback),
                         related_queries=related_queries(result), fallback=fallback)


def retrieval_quality(result: Result) -> Quality:
    """The gate's grade of the result's retrieval (`program.gate.grade_retrieval`)."""
    cites_web = any(c.source == "web" for c in result.citations)
    return grade_retrieval(covered_share(result) if result.evidence else 0.0, bool(result.evidence), cites_web)


def covered_share(result: Result) -> float:
    """The share of doc queries whose best indexed passage reaches `coverage_similarity`."""
    floor = result.trace.coverage_similarity
    measured = measured_queries(result.trace.query_similarity)
    if floor is None or not measured:
        return 0.5 if result.citations else 0.0  # nothing measured: never more than medium
    return 1 - len(below_coverage(measured, floor)) / len(measured)


def insufficient(result: Result, quality: Quality) -> bool:
    """Whether the caller gets a fallback instead of the answer, by the gate's rule (`program.gate.needs_fallback`)."""
    return needs_fallback(result.trace.ended, quality, bool(result.citations))


def agent_confidence(result: Result, quality: Quality | None = None) -> int:
    """The fitted calibrator's confidence when the program has one (`program.answer.calibrator`): it has
    read the retrieval quality and how the loop ended, so no cap applies; else `heuristic_confidence`."""
    if result.trace.uncalibrated_confidence is not None:
        return result.confidence
    return heuristic_confidence(result, quality)


def heuristic_confidence(result: Result, quality: Quality | None = None) -> int:
    """The judge's self-report (a prior from retrieval quality when no judge ran), capped by the
    retrieval quality and how the loop ended, and at `FALLBACK_CAP` when the evidence is insufficient."""
    quality = quality or retrieval_quality(result)
    own = result.trace.uncalibrated_confidence  # subtle: a calibrated result keeps the judge's value here
    judge = result.confidence if own is None else own
    return capped_confidence(judge if result.trace.resources.judge_calls > 0 else None, quality,
                             result.trace.ended == "answered", insufficient(result, quality))


def related_queries(result: Result, limit: int = 5) -> list[str]:
    """The judge's open gaps, then the sub-queries and rewrites the loop tried, minus the question."""
    rewrites = [q for step in result.trace.steps if step.action == "query_docs" for q in step.queries]
    return _unique([*_grounded_gaps(result), *result.trace.sub_queries, *rewrites], exclude=_asked(result))[:limit]


def suggestions(result: Result, quality: Quality, fallback: Fallback | None) -> list[Suggestion]:
    found = []
    if fallback:
        found += [Suggestion(action="web_search", reason="the collection does not answer this", parameters={"query": q})
                  for q in fallback.web_queries[:2]]
        # subtle: only the passages found are known; the collection may hold a page it did not rank
        found += [Suggestion(action="ingest", reason=f"no passage found mentions {term!r}; ingest a source on it "
                             "if the collection lacks one",
                             parameters={"source": f"a file or URL about {term}"})
                  for term in fallback.understood.not_covered[:1]]
    if _out_of_time(result):
        found.append(Suggestion(action="answer", reason="the request ran out of time; retry when the service is less busy",
                                parameters={"question": _asked(result)}))
    if quality in ("medium", "low") and not fallback:
        found += [Suggestion(action="search_corpus", reason="this query is not well covered; check what the collection has",
                             parameters={"query": q}) for q in _uncovered(result)[:2]]
    return found


def build_fallback(result: Result, quality: Quality, web_configured: bool) -> Fallback:
    understood = _understood(result)
    return Fallback(reason=_fallback_reason(result, quality, web_configured), understood=understood,
                    web_queries=_web_queries(result, understood), unverified_draft=result.answer)


def fallback_answer(fallback: Fallback) -> str:
    """The text given as the answer when the evidence is insufficient: what is known, not a guess."""
    u = fallback.understood
    parts = [f"Not enough evidence to answer: {fallback.reason}."]
    if u.covered:
        parts.append(f"The collection covers {', '.join(u.covered)}.")
    if u.not_covered:
        parts.append(f"No passage found mentions {', '.join(u.not_covered)}.")
    parts.append("Suggested web searches: " + "; ".join(fallback.web_queries) + ".")
    return " ".join(parts)


def _understood(result: Result) -> Understood:
    trace = result.trace
    key_terms = _unique(trace.key_concepts) or _question_terms(_asked(result))
    indexed = [terms(" ".join([p.title, *p.heading_path, p.origin, p.text])) for p in result.evidence if p.source == "index"]
    covered = [t for t in key_terms if any(terms(t) <= words for words in indexed)]
    return Understood(topic=key_terms[0] if key_terms else _asked(result)[:80], intent=trace.query_type,
                      key_terms=key_terms, covered=covered, not_covered=[t for t in key_terms if t not in covered])


def _web_queries(result: Result, understood: Understood) -> list[str]:
    queries = _unique([*_grounded_gaps(result), *_uncovered(result), *understood.not_covered[:2], _asked(result)])[:4]
    extra = _unique([" ".join(understood.key_terms), f"{understood.topic} overview"], exclude=queries)
    return queries + extra[: max(0, 2 - len(queries))]


def _grounded_gaps(result: Result) -> list[str]:
    """The judge's gaps, but for those whose words only a web passage holds: a web page never
    picks the searches suggested to the caller either (as in `program.gate.web_queries`)."""
    dropped = web_sourced(tuple(result.trace.gaps), result.question, result.evidence)
    return [g for g in result.trace.gaps if g not in dropped]


def _fallback_reason(result: Result, quality: Quality, web_configured: bool) -> str:
    trace = result.trace
    evidence = "no passage close to the question" if quality == "none" else f"{quality} retrieval coverage"
    if trace.ended == "error":
        why = "the loop stopped on an error"
    elif _out_of_time(result):
        why = "the request ran out of time"
    elif not web_configured:
        why = "no web backend is configured"
    elif "web_failed" in trace.incidents:
        why = "the web search failed"
    else:
        why = f"the web budget is spent ({trace.resources.web_searches} searches)"
    return f"{evidence}, and {why}"


def _out_of_time(result: Result) -> bool:
    return bool({"timeout", "lm_busy"} & set(result.trace.incidents))


def _uncovered(result: Result) -> list[str]:
    floor = result.trace.coverage_similarity
    return [] if floor is None else below_coverage(result.trace.query_similarity, floor)


def _question_terms(question: str, limit: int = 4) -> list[str]:
    """Runs of capitalised words ("Scott Derrickson", "Ed Wood"): the names a question turns on."""
    runs, current = [], []
    for word in (w.strip("?.,;:!\"'()") for w in question.split()):
        if word[:1].isupper() and terms(word):
            current.append(word)
        elif current:
            runs, current = [*runs, " ".join(current)], []
    return _unique([*runs, " ".join(current)])[:limit]


def _unique(items: list[str], exclude: str | list[str] = ()) -> list[str]:
    excluded = {exclude.lower()} if isinstance(exclude, str) else {e.lower() for e in exclude}
    seen, out = set(excluded), []
    for item in (i.strip() for i in items):
        if item and item.lower() not in seen:
            seen.add(item.lower())
            out.append(item)
    return out


def _asked(result: Result) -> str:
    """The question as the loop answered it: a follow-up's standalone form, else as asked."""
    return result.standalone_question or result.question
