"""The HTTP routes over the collection itself: `POST /ingest`, `GET /search` and `GET /corpus`.

`/search` is retrieval only (hybrid dense + BM25, no LM); `/corpus` is the collection's status.
`/ingest` is off unless `serve_ingest` is set, takes files only under `ingest_roots`, admits at most
`serve_max_pending` ingests at once (more get 503 with Retry-After), and writes one ingest at a time
(see `program.retrieval.ingest`). Each route may name a collection; the
default is the configured one.
This module does not answer questions; see `program.serving.service`.
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Query

from program.base.errors import IngestError
from program.base.settings import MAX_QUESTION_CHARS, Settings
from program.retrieval.corpus_status import CorpusStatus, corpus_status
from program.retrieval.ingest import IngestReport, check_collection, ingest
from program.retrieval.open_store import open_store
from program.retrieval.passage import Passage
from program.retrieval.retriever import HybridSearch
from program.serving.admission import Admission, Overloaded
from program.serving.ingest_access import IngestRequest, check_confined

MAX_K = 20


def corpus_router(settings: Settings) -> APIRouter:
    router = APIRouter()
    ingests = Admission(settings.serve_max_pending, "ingests")

    @router.post("/ingest", summary="index files, folders, archives or URLs into a collection, incrementally",
                 response_model=IngestReport, responses={400: {"description": "a bad source"}, 403: {"description": "off"},
                                                         503: {"description": "too many ingests at once"}})
    def ingest_sources(request: IngestRequest) -> IngestReport:
        if not settings.serve_ingest:
            raise HTTPException(403, "ingest over HTTP is off; set GATEDRAG_SERVE_INGEST=true to allow it")
        try:
            check_confined(request.sources, settings)
            with ingests.admitted():
                # one ingest at a time diffs and writes (a lock in `ingest`); searches meanwhile are safe
                return ingest(request.sources, settings, collection=request.collection, include=request.include,
                              exclude=request.exclude, prune=request.prune)
        except IngestError as error:
            raise HTTPException(400, str(error)) from None
        except Overloaded as error:
            raise HTTPException(503, str(error), headers={"Retry-After": "10"}) from None

    @router.get("/search", summary="retrieval only: the top passages for a query, best first (no LM)",
                response_model=list[Passage], responses={404: {"description": "no such collection"}})
    def search(q: str = Query(min_length=1, max_length=MAX_QUESTION_CHARS), k: int = Query(5, ge=1, le=MAX_K),
               collection: str | None = None) -> list[Passage]:
        name = _existing(collection, settings)
        return HybridSearch.from_settings(settings, collection=name)(q, k)

    @router.get("/corpus", summary="a collection's documents, chunks and last change", response_model=CorpusStatus)
    def corpus(collection: str | None = None) -> CorpusStatus:
        name = _named(collection, settings)
        return corpus_status(open_store(settings), name)

    return router


def _named(collection: str | None, settings: Settings) -> str:
    try:
        return check_collection(collection or settings.collection)
    except IngestError as error:
        raise HTTPException(400, str(error)) from None


def _existing(collection: str | None, settings: Settings) -> str:
    name = _named(collection, settings)
    if not open_store(settings).exists(name):
        raise HTTPException(404, f"no collection {name!r}: ingest or index something into it first")
    return name
