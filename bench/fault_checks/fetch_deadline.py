"""A seed page that trickles 8 bytes a second, through the real HTTP service (`--timeout 10`, one LM
slot, a scripted LM) and through the Answerer `ask --url` runs on, while plain questions ask for the LM.

Figures: the seconds `/answer` with the trickling `url` took (bar: within 15 s, HTTP 200), plain answers
meanwhile that got the LM (bar: every one; none "the LM was busy"), and the seconds an `ask`-style
request with that url and a 10 s limit took (bar: within its limit).
"""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fault_checks.figure import Figure
from program.loop import GatedRAG
from program.retrieval.breadth import BreadthExpander
from program.retrieval.chunking import Document
from program.retrieval.edge_store import EdgeStore
from program.retrieval.embeddings import load_embedder
from program.retrieval.ingest import ingest
from program.retrieval.retriever import HybridSearch
from program.serving.answerer import Answerer, AnswerRequest, Engine
from tests.program.fake_engine import DOCS, QUESTION, signature_lm
from tests.program.serving.live_server import serving, settings
from tests.reliability.hostile_pages import hostile_host

LIMIT_S, PLAIN = 10.0, 3


def run(quick: bool) -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder, hostile_host(rate=8) as host:
        config = settings(Path(folder), serve_timeout_s=LIMIT_S, fetch_allow_hosts=["127.0.0.1"], serve_ingest=True,
                          collection="docs")
        store = EdgeStore(Path(folder) / "store")
        search = HybridSearch(store, "docs", embedder=load_embedder(config))
        ingest([Document(doc_id=p.title, title=p.title, text=p.text) for p in DOCS], config, store=store,
               embedder=search.embedder)
        rag = GatedRAG(search, breadth=BreadthExpander(config, search))
        answerer = Answerer(lambda: Engine(rag, signature_lm(), description="scripted"), config)
        seeded, plain = _served(answerer, config, host.url + "/trickle")
        asked = _timed(lambda: answerer.answer(AnswerRequest(question=QUESTION, url=host.url + "/trickle")))
        store.close()
    (seed_s, seed_status), got_lm = seeded, sum(1 for status, busy in plain if status == 200 and not busy)
    return [Figure("fetch", f"/answer with a trickling url: HTTP {seed_status} in {seed_s:.1f} s (--timeout {LIMIT_S:g})",
                   "HTTP 200 within 15 s", seed_status == 200 and seed_s <= 15),
            Figure("fetch", f"{got_lm} of {len(plain)} plain /answer meanwhile got the LM", "every one", got_lm == len(plain)),
            Figure("fetch", f"ask --url with a trickling page: {asked[0]:.1f} s (limit {LIMIT_S:g} s)",
                   f"within {LIMIT_S:g} s", asked[0] <= LIMIT_S)]


def _served(answerer: Answerer, config, url: str):
    with serving(answerer, config) as client, ThreadPoolExecutor(2) as pool:
        seeded = pool.submit(_timed, lambda: client.post("/answer", json={"question": QUESTION, "url": url}).status_code)
        time.sleep(0.5)  # the seeded request holds the slot, fetching
        plain = [client.post("/answer", json={"question": QUESTION}) for _ in range(PLAIN)]
        return seeded.result(), [(r.status_code, "lm_busy" in r.text) for r in plain]


def _timed(call) -> tuple[float, object]:
    started = time.monotonic()
    out = call()
    return time.monotonic() - started, out
