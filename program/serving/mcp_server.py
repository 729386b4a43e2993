"""The MCP server (`python -m program mcp`, over stdio) with the official `mcp` SDK.

Tools: `answer` (the /answer request, as flat arguments; its output schema, which the SDK derives
from the return type, is `program.answer_response.AnswerResponse`'s), `search_corpus` (retrieval only,
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
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from program.answer_response import AnswerResponse
from program.serving.answerer import Answerer, AnswerRequest, load_program, start_lm
from program.retrieval.corpus_status import CorpusStatus, corpus_status
from program.retrieval.fetch import Resolve
from program.retrieval.ingest import IngestReport, ingest
from program.serving.ingest_access import IngestRequest, check_confined
from program.passage import Passage
from program.retrieval.retriever import HybridSearch
from program.settings import Settings
from program.retrieval.open_store import open_store
from signatures import QueryType

INSTRUCTIONS = ("gatedrag answers questions from an indexed document collection with [n] citations, judging whether "
                "the evidence suffices before it answers. Call `answer` for a cited answer with confidence, retrieval "
                "quality and next-step suggestions; when the evidence is insufficient it returns a structured "
                "`fallback` with web searches to run instead of a guess. `search_corpus` returns raw passages.")
MAX_TOP_K = 20


def create_mcp_server(answerer: Answerer, settings: Settings, *, resolve: Resolve | None = None) -> MCPServer:
    server = MCPServer("gatedrag", instructions=INSTRUCTIONS)
    search = HybridSearch.from_settings(settings, "index")

    @server.tool()
    @_reported
    def answer(question: str, intent: QueryType | None = None, known_context: str = "", constraints: str = "",
               expansion_budget: int | None = None, include_trace: bool = False,
               collection: str | None = None, required: list[str] | None = None, prohibited: list[str] | None = None,
               check: str | None = None, session_id: str | None = None, url: str | None = None) -> AnswerResponse:
        """Answer a question from the collection with [n] citations, confidence (0-100), retrieval quality,
        suggestions and related queries. Optional hints: intent (factual, comparison, how_to, exploratory) skips
        classification; known_context is what you already know (not fetched again); constraints (e.g. "must
        include code examples") ride along with every query and the judge; expansion_budget caps the extra
        retrieval rounds (0 = one retrieval pass); include_trace returns every decision; collection names
        another collection to answer from (default: the served one). Acceptance criteria: required and
        prohibited list what the answer must and must not contain (plain text, case-insensitive whole words,
        or "re:" and a regular expression); check names a domain check (aws_region, no_deprecated,
        code_example). A failed criterion gets the answer one repair; `acceptance` reports its score before
        and after. session_id continues a conversation, so a follow-up ("What about its pricing?") is
        rewritten with its recent turns' topics (by default the last 5, for 10 minutes). url is a seed page: it
        is ingested first, then the best of its links may be followed (expansion_steps shows the traversal)."""
        request = AnswerRequest(question=question, intent=intent, known_context=known_context, constraints=constraints,
                                expansion_budget=expansion_budget, include_trace=include_trace, collection=collection,
                                required=required or [], prohibited=prohibited or [], check=check, session_id=session_id,
                                url=url)
        return answerer.answer(request)

    @server.tool()
    @_reported
    def search_corpus(query: str, top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K)] = 5) -> list[Passage]:
        """Retrieval only: the top passages of the collection for a query (hybrid dense + BM25), best first,
        each with its fused score and dense similarity. No LM, no query expansion."""
        if not query.strip():
            raise ValueError("the query is empty")
        return search(query, top_k)

    @server.tool(name="ingest")
    @_reported
    def ingest_sources(sources: list[str], collection: str | None = None, include: list[str] | None = None,
                       exclude: list[str] | None = None, prune: bool = False) -> IngestReport:
        """Index files, folders, archives (.tar.gz, .zip) or http(s) URLs into the collection, incrementally:
        only what changed is re-embedded. Formats: markdown, reStructuredText, Python, text, HTML, JSON/JSONL
        records. include/exclude are globs on paths inside folders and archives; prune deletes documents of
        these folders whose files are gone. Files must lie under the server's ingest roots; URLs need the
        online web backend and a public host."""
        request = IngestRequest(sources=sources, collection=collection, include=include or [], exclude=exclude or [],
                                prune=prune)
        check_confined(request.sources, settings)
        # one ingest at a time diffs and writes (a lock in `ingest`); searches meanwhile are safe and unlocked
        return ingest(request.sources, settings, collection=request.collection, include=request.include,
                      exclude=request.exclude, prune=request.prune, resolve=resolve)

    @server.tool(name="corpus_status")
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
