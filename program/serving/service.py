"""The HTTP service: `POST /answer`, `GET /healthz`, `GET /readyz`, OpenAPI docs at /docs, and the
collection's own routes (`POST /ingest`, `GET /search`, `GET /corpus`: see `program.serving.corpus_api`).

`create_app` wraps an `Answerer`; the LM loads in a background thread at start-up, and
/readyz turns 200 once it has and while the store answers. A store that is missing, locked, corrupt
or unreachable at start-up stops `serve` before it binds (one line, exit 1): that is a fault to fix,
and a supervisor restarts the process. A Qdrant server that goes away later may come back, so the
service stays up: /readyz probes the store on every call and says 503, naming the URL, within the
client's timeout (5 s), and 200 again once the server answers.
Limits: request bodies over `serve_max_body_bytes` get 413,
more than `serve_max_pending` answers, or as many ingests, in flight get 503 with Retry-After
(`program.serving.admission`), and a slow request returns its partial result with a warning (see
`program.serving.answerer`). `/answer` and `/ingest` are plain `def`s, so each request runs in a
worker thread; the pool is sized to hold every admitted request. `/healthz` and `/readyz` are async
and never wait for that pool: /readyz's store check runs on the event loop's own executor, so slow
ingests filling the pool (9 of them once left /healthz unanswered for 30 s) cannot make a supervisor
restart a healthy service. The Host check,
the optional bearer token and the optional rate limit are in `program.serving.http_guards`; every
JSON response and error goes through `program.serving.safe_json`, so odd input gets a 4xx, not a 500.
`/answer` returns `program.contract.answer_response.AnswerResponse`, published in the OpenAPI schema.
This module does not answer anything itself and never calls `dspy.configure`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio.to_thread
from fastapi import FastAPI, HTTPException
from fastapi_offline import FastAPIOffline
from starlette.middleware.body_limit import RequestBodyLimitMiddleware

from program.base.redaction import redact
from program.base.settings import Settings
from program.contract.answer_response import AnswerResponse
from program.retrieval.open_store import open_store
from program.retrieval.store import StoreError
from program.serving.admission import Overloaded
from program.serving.answerer import (
    Answerer,
    AnswerRequest,
    UnknownCollection,
    load_program,
    start_lm,
)
from program.serving.corpus_api import corpus_router
from program.serving.http_guards import install_guards, is_loopback
from program.serving.safe_json import SafeJSONResponse, install_error_handlers

log = logging.getLogger(__name__)

DESCRIPTION = ("Evaluation-gated retrieval: decompose, retrieve, judge, then answer, re-query, search the web or "
               "refine. Every answer carries [n] citations, agent-facing metadata and, on request, its trace.")


def create_app(answerer: Answerer, settings: Settings, store_check: Callable[[], None] | None = None) -> FastAPI:
    """`store_check` raises a `StoreError` when the served collection cannot be searched now; /readyz
    calls it each time (`serve` passes the store's `require`; tests with a fake search pass none)."""
    @asynccontextmanager
    async def lifespan(app: FastAPI):
        # every admitted answer holds a worker thread while it waits for the LM, and every admitted ingest one
        anyio.to_thread.current_default_thread_limiter().total_tokens = 2 * settings.serve_max_pending + 8
        answerer.start()
        yield
        answerer.close()

    # subtle: a response class of our own also turns off FastAPI's pydantic fast path, which
    # raises on a lone surrogate instead of encoding it
    # subtle: /docs serves Swagger UI's assets from the installed package: the CDN default left it blank offline
    app = FastAPIOffline(title="gatedrag", description=DESCRIPTION, version="0.1.0", lifespan=lifespan,
                         default_response_class=SafeJSONResponse)
    install_error_handlers(app)
    app.add_middleware(RequestBodyLimitMiddleware, max_body_size=settings.serve_max_body_bytes)
    install_guards(app, settings)
    app.include_router(corpus_router(settings))

    @app.get("/healthz", summary="the process is up")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", summary="the program and its models are loaded, and the store answers",
             responses={503: {"description": "not yet, or the store does not answer"}})
    async def readyz():
        if answerer.ready:
            try:
                if store_check is not None:
                    await asyncio.to_thread(store_check)  # subtle: not the worker pool that answers and ingests fill
            except StoreError as error:
                return SafeJSONResponse({"status": "store_unavailable", "detail": redact(str(error))}, 503)
            return {"status": "ready", "lm": answerer.description, "system": settings.system}
        status = "failed" if answerer.error else "loading"
        detail = answerer.error or "loading the program and its models"
        return SafeJSONResponse({"status": status, "detail": detail}, 503)

    @app.post("/answer", summary="answer a question with citations", response_model=AnswerResponse,
              responses={403: {"description": "a seed URL where ingest is off"}, 404: {"description": "no such collection"},
                         413: {"description": "body too large"}, 503: {"description": "not ready, or overloaded"}})
    def answer(request: AnswerRequest) -> AnswerResponse:
        if request.url and not settings.serve_ingest:  # a seed page is ingested: the same switch as POST /ingest
            raise HTTPException(403, "a seed url ingests pages, and ingest is off on this service (GATEDRAG_SERVE_INGEST)")
        if not answerer.ready:
            raise HTTPException(503, f"not ready: {answerer.error or 'loading the program and its models'}",
                                headers={"Retry-After": "5"})
        try:
            return answerer.answer(request)
        except Overloaded as error:
            raise HTTPException(503, str(error), headers={"Retry-After": "10"}) from None
        except UnknownCollection as error:
            raise HTTPException(404, str(error)) from None

    return app


def serve(settings: Settings, program_path: Path | None = None) -> None:
    """Run the service with uvicorn until interrupted."""
    import uvicorn  # deferred: only `serve` runs a server; the app alone (tests, other hosts) does not need it

    rag = load_program(settings, program_path)  # a missing index or bad program fails here, before binding
    if settings.api_token is None and not is_loopback(settings.serve_host):
        log.warning("serving on %s with no GATEDRAG_API_TOKEN: anyone who can reach it can use it", settings.serve_host)
    # one request to a server, or a file check and a one-point read of the embedded store
    store_check = functools.partial(open_store(settings).require, settings.collection)
    app = create_app(Answerer(lambda: start_lm(rag, settings), settings), settings, store_check)
    # uvicorn's own cap sits above ours, so our 503 (with its reason) is the one callers see
    uvicorn.run(app, host=settings.serve_host, port=settings.serve_port, limit_concurrency=2 * settings.serve_max_pending + 32,
                timeout_keep_alive=30, log_level="info")
