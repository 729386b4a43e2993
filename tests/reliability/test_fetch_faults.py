"""Hostile web hosts, fetched for real on 127.0.0.1 (`tests.reliability.hostile_pages`): a page that
trickles ends at its deadline, a redirect off an allowed host is checked like a first hop, a gzip bomb
is refused at the cap, and a URL's credentials reach the host once and are never stored."""

from __future__ import annotations

import json
import time

import pytest
from qdrant_client import QdrantClient

from program.base.errors import IngestError
from program.retrieval.embeddings import load_embedder
from program.retrieval.fetch import fetch_page
from program.retrieval.ingest import ingest
from program.retrieval.server_store import ServerStore
from tests.reliability.hostile_pages import allowed, hostile_host


def test_a_page_that_trickles_is_dropped_at_the_fetch_deadline(tmp_path):
    with hostile_host(rate=8) as host, pytest.raises(IngestError, match="deadline"):
        fetch_page(host.url + "/trickle", allowed(tmp_path, fetch_deadline_s=1.0))


def test_a_deadline_the_caller_gives_bounds_the_fetch_too(tmp_path):
    with hostile_host(rate=8) as host, pytest.raises(IngestError, match="deadline"):
        fetch_page(host.url + "/trickle", allowed(tmp_path), deadline=time.monotonic() + 1.0)


def test_a_redirect_from_an_allowed_host_to_a_public_one_is_refused_offline(tmp_path):
    with hostile_host() as host, pytest.raises(IngestError, match="online web backend"):
        fetch_page(host.url + "/away", allowed(tmp_path))
    assert [path for path, _ in host.seen] == ["/away"]


def test_a_gzip_bomb_is_refused_at_the_size_cap(tmp_path):
    with hostile_host(bomb_bytes=256 * 2**20) as host, pytest.raises(IngestError, match="larger than"):
        fetch_page(host.url + "/bomb", allowed(tmp_path, ingest_max_bytes=2**20))


def test_a_urls_credentials_reach_its_host_once_and_are_stored_nowhere(tmp_path):
    embedder = load_embedder(allowed(tmp_path))
    store = ServerStore(QdrantClient(":memory:"), ":memory:")
    with hostile_host() as host:
        url = host.url.replace("//", "//user:pw@") + "/page?token=SECRET&lang=en"
        report = ingest([url], allowed(tmp_path, collection="creds"), store=store, embedder=embedder)
    assert report.chunks > 0 and host.seen == [("/page?token=SECRET&lang=en", host.basic())]
    payloads = json.dumps([payload for _, payload in store.payloads("creds", ["url", "origin", "root", "links", "title", "text"])])
    assert "pw@" not in payloads and "SECRET" not in payloads and "token" not in payloads
    assert host.url + "/page?lang=en" in payloads and host.url + "/valves.html" in payloads  # links carry none
