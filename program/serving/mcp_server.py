"""The MCP server (`python -m program mcp`, over stdio) with the official `mcp` SDK.

Tools: `answer` (the /answer request, as flat arguments; its output schema, which the SDK derives
from the return type, is `program.contract.answer_response.AnswerResponse`'s), `search_corpus` (retrieval only,
no LM, no expansion), `ingest` (files and folders under `ingest_roots`, archives, or URLs when the
online web backend is configured; the same request as `POST /ingest`) and `corpus_status`. The LM
starts on the first `answer` call, so the other tools answer at once and a client that never asks a
question never loads it.
This module does not answer, search or index itself; it exposes `program.serving.answerer`,
`program.retrieval.retriever`, `program.retrieval.ingest` and `program.retrieval.corpus_status`.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from program.answer.criteria import CHECKS
from program.base.settings import Settings
from program.contract.answer_response import AnswerResponse
from program.retrieval.corpus_status import CorpusStatus, corpus_status
from program.retrieval.fetch import Resolve
from program.retrieval.ingest import IngestReport, ingest
from program.retrieval.open_store import open_store
from program.retrieval.passage import Passage
from program.retrieval.retriever import HybridSearch
from program.serving.answerer import Answerer, AnswerRequest, load_program, start_lm
from program.serving.ingest_access import IngestRequest, check_confined
from signatures import QueryType

INSTRUCTIONS = ("gatedrag answers questions from an indexed document collection with [n] citations, judging whether "
                "the evidence suffices before it answers. Call `answer` for a cited answer with confidence, retrieval "
                "quality and next-step suggestions; when the evidence is insufficient it returns a structured "
                "`fallback` with web searches to run instead of a guess. `search_corpus` returns raw passages.")
MAX_TOP_K = 20
CheckName = Literal[tuple(sorted(CHECKS))]  # an enum in the tool's schema


def _about(model: type[BaseModel], field: str) -> Field:
    """A tool parameter's description: the request model's own, so MCP and HTTP describe it alike."""
    return Field(description=model.model_fields[field].description)


def _ask(field: str):
    return _about(AnswerRequest, field)


def _add(field: str):
    return _about(IngestRequest, field)


def create_mcp_server(answerer: Answerer, settings: Settings, *, resolve: Resolve | None = None) -> MCPServer:
    server = MCPServer("gatedrag", instructions=INSTRUCTIONS)
    search = HybridSearch.from_settings(settings, "index")

    # answer may ingest its seed url and search the web; it deletes nothing
    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                                             open_world_hint=True))
    @_reported
    def answer(question: Annotated[str, _ask("question")],
               intent: Annotated[QueryType | None, _ask("intent")] = None,
               known_context: Annotated[str, _ask("known_context")] = "",
               constraints: Annotated[str, _ask("constraints")] = "",
               expansion_budget: Annotated[int | None, _ask("expansion_budget")] = None,
               include_trace: Annotated[bool, _ask("include_trace")] = False,
               collection: Annotated[str | None, _ask("collection")] = None,
               required: Annotated[list[str] | None, _ask("required")] = None,
               prohibited: Annotated[list[str] | None, _ask("prohibited")] = None,
               check: Annotated[CheckName | None, _ask("check")] = None,
               session_id: Annotated[str | None, _ask("session_id")] = None,
               url: Annotated[str | None, _ask("url")] = None) -> AnswerResponse:
        """Answer a question from the collection with [n] citations, confidence (0-100), retrieval quality,
        suggestions and related queries; when the evidence is insufficient, a structured `fallback` with web
        searches to run instead of a guess. A failed acceptance criterion (required, prohibited, check) gets the
        answer one repair, and `acceptance` reports its score before and after."""
        request = AnswerRequest(question=question, intent=intent, known_context=known_context, constraints=constraints,
                                expansion_budget=expansion_budget, include_trace=include_trace, collection=collection,
                                required=required or [], prohibited=prohibited or [], check=check, session_id=session_id,
                                url=url)
        return answerer.answer(request)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    @_reported
    def search_corpus(query: Annotated[str, Field(description="what to search the collection for")],
                      top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K, description="passages to return")] = 5
                      ) -> list[Passage]:
        """Retrieval only: the top passages of the collection for a query (hybrid dense + BM25), best first,
        each with its fused score and dense similarity. No LM, no query expansion."""
        if not query.strip():
            raise ValueError("the query is empty")
        return search(query, top_k)

    # prune deletes documents, and each call re-reads its sources, which may have changed
    @server.tool(name="ingest", annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                                            idempotent_hint=False, open_world_hint=True))
    @_reported
    def ingest_sources(sources: Annotated[list[str], _add("sources")],
                       collection: Annotated[str | None, _add("collection")] = None,
                       include: Annotated[list[str] | None, _add("include")] = None,
                       exclude: Annotated[list[str] | None, _add("exclude")] = None,
                       prune: Annotated[bool, _add("prune")] = False) -> IngestReport:
        """Index files, folders, archives (.tar.gz, .zip) or http(s) URLs into the collection, incrementally:
        only what changed is re-embedded. Formats: markdown, reStructuredText, HTML, text, JSON/JSONL records,
        and code (Python, TypeScript, JavaScript, Rust, Go). Files must lie under the server's ingest roots;
        URLs need the online web backend and a public host (or one in GATEDRAG_FETCH_ALLOW_HOSTS)."""
        request = IngestRequest(sources=sources, collection=collection, include=include or [], exclude=exclude or [],
                                prune=prune)
        check_confined(request.sources, settings)
        # one ingest at a time diffs and writes (a lock in `ingest`); searches meanwhile are safe and unlocked
        return ingest(request.sources, settings, collection=request.collection, include=request.include,
                      exclude=request.exclude, prune=request.prune, resolve=resolve)

    @server.tool(name="corpus_status", annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    @_reported
    def status() -> CorpusStatus:
        """The collection's documents, chunks, and when it was last indexed."""
        return corpus_status(open_store(settings), settings.collection)

    return server


def _reported(tool):
    """Errors a caller can act on (bad input, a missing index or model, overload) reach it as tool
    errors with their message; the SDK would hide anything else behind a generic one."""
    @functools.wraps(tool)
    def call(*args, **kwargs):
        try:
            return tool(*args, **kwargs)
        except (ValueError, RuntimeError, OSError) as error:
            raise ToolError(str(error)) from error
    return call


def run_stdio(settings: Settings, program_path: Path | None = None) -> None:
    """Serve until stdin closes. The program and the store are checked first (no LM), so a bad program or
    a missing, locked, corrupt or unreachable store ends the command in one line before any tool is offered."""
    rag = load_program(settings, program_path)
    answerer = Answerer(lambda: start_lm(rag, settings), settings)
    try:
        create_mcp_server(answerer, settings).run("stdio")
    finally:
        answerer.close()
