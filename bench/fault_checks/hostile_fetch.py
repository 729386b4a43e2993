"""Hostile pages fetched for real from 127.0.0.1 (`tests.reliability.hostile_pages`), each ingested in a
child process that reports its seconds and peak memory growth (`_ingest_child`).

Figures: a 5 MB markdown line of "[a](" ingested (bar: within 5 s, growth under 100 MB); a 1 GiB gzip
page refused (bar: refused, growth under 60 MB); a redirect from the allowed host to a public one with
the web backend off (bar: refused, no second request); a URL's password and token in stored payloads
(bar: 0 hits, and the host got them once).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from qdrant_client import QdrantClient

from fault_checks.figure import Figure
from program.base.errors import IngestError
from program.base.settings import PROJECT_ROOT
from program.retrieval.embeddings import load_embedder
from program.retrieval.fetch import fetch_page
from program.retrieval.ingest import ingest
from program.retrieval.server_store import ServerStore
from tests.reliability.hostile_pages import allowed, hostile_host

CHILD = Path(__file__).with_name("_ingest_child.py")
FLAT_MB = 60  # the bar for the gzip bomb
INGEST_MB = 100  # a 5 MB page is held a few times over (bytes, text, chunk, the in-memory store's copy)


def run(quick: bool) -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder, hostile_host() as host:
        links, bomb = (ingested(host.url + path, folder) for path in ("/links.md", "/bomb"))
        redirect = _redirect(host, Path(folder))
        leaks, got = _credentials(host, Path(folder))
    return [Figure("fetch", f"5 MB markdown line of '[a](': {links['seconds']:.1f} s, +{links['growth_mb']:.0f} MB "
                            f"{links['error'] or ''}", f"within 5 s, under {INGEST_MB} MB",
                   not links["error"] and links["seconds"] <= 5 and links["growth_mb"] < INGEST_MB),
            Figure("fetch", f"1 GiB gzip page: {bomb['error'][:60] or 'not refused'}; +{bomb['growth_mb']:.0f} MB peak",
                   f"refused, under {FLAT_MB} MB", "larger than" in bomb["error"] and bomb["growth_mb"] < FLAT_MB),
            Figure("fetch", f"redirect to a public host with backend none: {redirect}", "refused", redirect == "refused"),
            Figure("fetch", f"{leaks} hits of the URL's password or token in stored payloads; host got them: {got}",
                   "0, got them once", leaks == 0 and got)]


def ingested(source: str, folder: str, mode: str = "ingest") -> dict:
    done = subprocess.run([sys.executable, str(CHILD), source, folder, mode], cwd=PROJECT_ROOT, capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(PROJECT_ROOT), "PATH": "/usr/bin:/bin",
                                                       "HF_HUB_OFFLINE": "1"})
    lines = done.stdout.strip().splitlines()
    if not lines:
        return {"seconds": 0.0, "growth_mb": 0.0, "error": done.stderr.strip()[-200:] or "no output", "chunks": 0,
                "longest": 0}
    return json.loads(lines[-1])


def _redirect(host, folder: Path) -> str:
    try:
        fetch_page(host.url + "/away", allowed(folder))
    except IngestError as error:
        return "refused" if "online web backend" in str(error) and host.seen[-1][0] == "/away" else str(error)[:80]
    return "followed"


def _credentials(host, folder: Path) -> tuple[int, bool]:
    config = allowed(folder, collection="creds")
    store = ServerStore(QdrantClient(":memory:"), ":memory:")
    ingest([host.url.replace("//", "//user:pw@") + "/page?token=SECRET"], config, store=store,
           embedder=load_embedder(config))
    stored = json.dumps([p for _, p in store.payloads("creds", ["url", "origin", "root", "links", "title", "text"])])
    return stored.count("pw@") + stored.count("SECRET"), ("/page?token=SECRET", host.basic()) in host.seen
