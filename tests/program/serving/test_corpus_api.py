"""program/serving/corpus_api.py through the service app (FastAPI's TestClient): ingest, search, corpus."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from program.base.settings import Settings
from program.serving.ingest_access import MAX_FILE_BYTES
from program.serving.service import create_app
from tests.program.fake_engine import fake_answerer


def app_client(tmp_path, **overrides) -> TestClient:
    config = Settings(_env_file=None, data_dir=tmp_path / "data", collection="mine", profile="local",
                      web_backend="offline", **overrides)
    # the service bound to loopback answers loopback Host headers only, not TestClient's "testserver"
    return TestClient(create_app(fake_answerer(config), config), base_url="http://localhost")


@pytest.fixture
def docs(tmp_path):
    root = tmp_path / "docs"
    (root / "valves").mkdir(parents=True)
    (root / "valves" / "quorvex.md").write_text("# Quorvex valves\n\n" + "Intro to valves. " * 68
                                                + "\n\n## Torque\n\nQuorvex valves need a yearly torque check.\n")
    (root / "gears.txt").write_text("Gears mesh with sprockets.\n")
    return root


def test_ingest_then_search_and_corpus_status(tmp_path, docs):
    client = app_client(tmp_path, serve_ingest=True, ingest_roots=[docs])
    report = client.post("/ingest", json={"sources": [str(docs)], "include": ["valves/*"]})
    assert report.status_code == 200 and report.json()["documents"] == 1 and report.json()["embedded"] == 2
    again = client.post("/ingest", json={"sources": [str(docs)], "include": ["valves/*"]}).json()
    assert (again["embedded"], again["skipped"]) == (0, 2)
    hits = client.get("/search", params={"q": "yearly torque check", "k": 1}).json()
    (hit,) = hits
    source_text = (docs / "valves" / "quorvex.md").read_text()
    assert hit["origin"] == str(docs / "valves" / "quorvex.md") and hit["heading_path"] == ["Torque"]
    assert source_text[hit["start"]:hit["end"]] == hit["text"] and hit["score"] > 0 and "vector" not in hit
    corpus = client.get("/corpus").json()
    assert (corpus["collection"], corpus["documents"], corpus["chunks"]) == ("mine", 1, 2)
    assert client.get("/corpus", params={"collection": "other"}).json()["exists"] is False


def test_ingest_is_refused_when_off_outside_the_roots_and_for_bad_urls(tmp_path, docs):
    off = app_client(tmp_path / "off").post("/ingest", json={"sources": [str(docs)]})
    assert off.status_code == 403 and "GATEDRAG_SERVE_INGEST" in off.json()["detail"]
    client = app_client(tmp_path, serve_ingest=True, ingest_roots=[docs / "valves"])
    outside = client.post("/ingest", json={"sources": [str(docs)]})
    assert outside.status_code == 400 and "outside the configured ingest roots" in outside.json()["detail"]
    private = client.post("/ingest", json={"sources": ["http://10.0.0.7/"]})
    assert private.status_code == 400 and "private" in private.json()["detail"]
    assert client.post("/ingest", json={"sources": []}).status_code == 422
    assert client.get("/corpus").json()["exists"] is False  # nothing was written


def test_search_refuses_bad_input(tmp_path):
    client = app_client(tmp_path)
    assert client.get("/search", params={"q": "gears"}).status_code == 404  # no collection yet
    assert client.get("/search", params={"q": ""}).status_code == 422
    assert client.get("/search", params={"q": "gears", "k": 500}).status_code == 422
    assert client.get("/search", params={"q": "gears", "collection": "../x"}).status_code == 400
    for route in ("/search", "/corpus"):  # "mine\n" once passed one check and failed the store's, with HTTP 500
        assert client.get(route, params={"q": "gears", "collection": "mine\n"}).status_code == 400


@pytest.mark.parametrize("name, reason", [(".env", "hidden"), (".ssh/id_rsa", "hidden"), ("keys/server.pem", "key file"),
                                          ("id_ed25519", "key file"), ("big.md", "cap")])
def test_remote_ingest_refuses_hidden_key_and_oversized_files_inside_the_roots(tmp_path, name, reason):
    root = tmp_path / "root"
    target = root / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("x" * (MAX_FILE_BYTES + 1) if name == "big.md" else "SECRET=canary")
    client = app_client(tmp_path, serve_ingest=True, ingest_roots=[root])
    refused = client.post("/ingest", json={"sources": [str(target)]})
    assert refused.status_code == 400 and reason in refused.json()["detail"]
    assert client.get("/corpus").json()["exists"] is False  # nothing was written
