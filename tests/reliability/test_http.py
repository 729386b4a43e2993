"""The HTTP service under hostile callers: bearer token, Host check (DNS rebinding), rate limit, and odd
or mutated bodies, none of which may get a 500. uvicorn on 127.0.0.1 with the scripted engine behind it."""

from __future__ import annotations

import threading

import logging
import random
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from program.cli import main
from program.loop import GatedRAG
from tests.conftest import FakeSearch
from tests.program.fake_engine import DOCS, QUESTION, fake_answerer
from tests.program.serving.live_server import serving, settings
from tests.reliability.fuzz_bodies import ODD_BODIES, fuzzed

TOKEN = "s3cret-token-0123456789"
GUARDED = [("POST", "/answer"), ("GET", "/search?q=x"), ("GET", "/corpus"), ("GET", "/docs"), ("GET", "/openapi.json"),
           ("GET", "/no-such-route")]


def ask(client: httpx.Client, headers: dict | None = None) -> httpx.Response:
    return client.post("/answer", json={"question": QUESTION}, headers=headers)


def test_without_a_token_set_no_route_asks_for_one(tmp_path):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        answered, docs = ask(client), client.get("/docs")
    assert answered.status_code == 200 and docs.status_code == 200
    assert "www-authenticate" not in answered.headers


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token", f"Basic {TOKEN}", f"Bearer {TOKEN}x",
                                           f"Bearer {TOKEN[:-1]}", "Bearer", f"{TOKEN}"])
def test_with_a_token_set_every_route_but_the_probes_refuses_a_missing_or_wrong_one(tmp_path, authorization):
    config = settings(tmp_path, api_token=TOKEN)
    headers = {"Authorization": authorization} if authorization else {}
    with serving(fake_answerer(config), config) as client:
        refused = [client.request(method, path, headers=headers) for method, path in GUARDED]
        probes = [client.get("/healthz", headers=headers), client.get("/readyz", headers=headers)]
    for response in refused:
        assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
        assert TOKEN not in response.text and "wrong-token" not in response.text
    assert [p.status_code for p in probes] == [200, 200]


def test_the_right_token_is_let_through_whatever_the_case_of_its_scheme(tmp_path):
    config = settings(tmp_path, api_token=TOKEN)
    with serving(fake_answerer(config), config) as client:
        answered = ask(client, {"Authorization": f"Bearer {TOKEN}"})
        lower = client.get("/openapi.json", headers={"Authorization": f"bearer {TOKEN}"})
    assert answered.status_code == 200 and answered.json()["citations"]
    assert lower.status_code == 200 and "/answer" in lower.json()["paths"]


def test_the_token_is_never_printed_by_the_settings_or_their_errors(tmp_path):
    config = settings(tmp_path, api_token=TOKEN)
    assert TOKEN not in repr(config) and TOKEN not in str(config.model_dump())
    with pytest.raises(ValueError) as refused:
        settings(tmp_path, api_token=f"{TOKEN} with a space")
    assert TOKEN not in str(refused.value) and "GATEDRAG_API_TOKEN" in str(refused.value)
    with pytest.raises(ValueError, match="GATEDRAG_API_TOKEN"):
        settings(tmp_path, api_token="")  # an empty variable would be a token anyone can send


@pytest.mark.parametrize("host, status", [("evil.example", 400), ("evil.example:8000", 400), ("127.0.0.1.nip.io", 400),
                                          ("localhost.evil.example", 400), ("localhost:8000", 200), ("LOCALHOST", 200),
                                          ("127.0.0.1:1234", 200), ("[::1]:8000", 200), ("[::1]", 200)])
def test_bound_to_loopback_only_loopback_host_headers_are_answered(tmp_path, host, status):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        answered, health = ask(client, {"Host": host}), client.get("/healthz", headers={"Host": host})
    assert answered.status_code == status and health.status_code == status  # a rebinding page gets nothing at all


def test_bound_elsewhere_any_host_or_the_configured_ones_are_answered(tmp_path):
    anywhere = settings(tmp_path, serve_host="0.0.0.0")
    with serving(fake_answerer(anywhere), anywhere) as client:
        assert ask(client, {"Host": "evil.example"}).status_code == 200
    listed = settings(tmp_path, serve_host="0.0.0.0", allowed_hosts=["api.example", "*.internal.example"])
    with serving(fake_answerer(listed), listed, wait_ready=False) as client:
        while client.get("/readyz", headers={"Host": "api.example"}).status_code != 200:
            time.sleep(0.01)
        statuses = [ask(client, {"Host": h}).status_code for h in ("api.example", "rag.internal.example:443",
                                                                    "evil.example", "127.0.0.1")]
    assert statuses == [200, 200, 400, 400]


def test_the_serve_command_passes_its_host_to_the_host_check(monkeypatch, caplog, tmp_path):
    for name in ("GATEDRAG_ALLOWED_HOSTS", "GATEDRAG_API_TOKEN", "GATEDRAG_SERVE_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GATEDRAG_DATA_DIR", str(tmp_path))  # never the user's own store, which a server may hold
    served = {}
    monkeypatch.setattr("program.serving.service.load_program", lambda settings, path=None: GatedRAG(FakeSearch(DOCS)))
    monkeypatch.setattr("uvicorn.run", lambda app, host, **_: served.update({host: app}))
    with caplog.at_level(logging.WARNING, logger="program.serving.service"):
        assert main(["serve"]) == 0 and main(["serve", "--host", "0.0.0.0"]) == 0
    evil = {"Host": "evil.example"}
    assert TestClient(served["127.0.0.1"]).get("/healthz", headers=evil).status_code == 400
    assert TestClient(served["0.0.0.0"]).get("/healthz", headers=evil).status_code == 200
    warned = [r.getMessage() for r in caplog.records]
    assert warned == ["serving on 0.0.0.0 with no GATEDRAG_API_TOKEN: anyone who can reach it can use it"]


def test_a_client_over_its_rate_gets_429_with_retry_after_and_others_do_not(tmp_path):
    config = settings(tmp_path, rate_limit_per_minute=2)
    with serving(fake_answerer(config), config) as client:
        allowed = [client.get("/openapi.json").status_code for _ in range(2)]
        limited = client.get("/openapi.json")
        probes = [client.get("/healthz").status_code, client.get("/readyz").status_code]
        transport = httpx.HTTPTransport(local_address="127.0.0.2")  # another client IP on loopback
        with httpx.Client(base_url=client.base_url, transport=transport) as other:
            elsewhere = other.get("/openapi.json").status_code
    assert allowed == [200, 200] and limited.status_code == 429
    assert 1 <= int(limited.headers["retry-after"]) <= 30  # one token every 30 s
    assert probes == [200, 200] and elsewhere == 200


def test_wrong_token_guesses_count_against_the_rate_limit(tmp_path):
    config = settings(tmp_path, api_token=TOKEN, rate_limit_per_minute=3)
    with serving(fake_answerer(config), config) as client:
        guesses = [ask(client, {"Authorization": f"Bearer guess{i}"}).status_code for i in range(4)]
    assert guesses == [401, 401, 401, 429]


def test_odd_bodies_get_a_4xx_that_quotes_none_of_them(tmp_path):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        got = {name: client.post("/answer", content=body, headers={"Content-Type": "application/json"})
               for name, (body, _) in ODD_BODIES.items()}
    assert {name: r.status_code for name, r in got.items()} == {name: s for name, (_, s) in ODD_BODIES.items()}
    for response in got.values():
        if response.status_code == 422:
            assert all("input" not in error for error in response.json()["detail"])


def test_an_escaped_nul_is_text_and_is_answered(tmp_path):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        response = client.post("/answer", json={"question": f"{QUESTION}\x00"})
    assert response.status_code == 200 and response.json()["question"] == f"{QUESTION}\x00"


def test_a_chunked_body_over_the_cap_is_413(tmp_path):
    config = settings(tmp_path)
    chunks = (b'{"question": "q", "known_context": "' if i == 0 else b"k" * 8192 for i in range(10))
    with serving(fake_answerer(config), config) as client:
        response = client.post("/answer", content=chunks, headers={"Content-Type": "application/json"})
    assert response.status_code == 413


def test_hundreds_of_mutated_bodies_never_get_a_5xx(tmp_path):
    rng, config = random.Random(12), settings(tmp_path)
    bodies = fuzzed(rng, 500)
    with serving(fake_answerer(config), config) as client:
        statuses = [client.post("/answer", content=b, headers={"Content-Type": "application/json"}).status_code
                    for b in bodies]
    assert [s for s in statuses if s >= 500] == []
    assert {200, 400, 413, 422} <= set(statuses)  # the fuzz reached every layer: parser, cap, model, loop


def test_slow_ingests_past_the_bound_get_503_and_the_probes_answer_meanwhile(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from tests.program.fake_engine import fake_answerer
    from tests.program.serving.live_server import serving
    from tests.program.serving.live_server import settings as live_settings
    from tests.reliability.hostile_pages import hostile_host

    config = live_settings(tmp_path, serve_ingest=True, serve_max_pending=1, fetch_allow_hosts=["127.0.0.1"],
                           fetch_deadline_s=3.0)
    with hostile_host() as host, serving(fake_answerer(config), config) as client, ThreadPoolExecutor(4) as pool:
        slow = [pool.submit(client.post, "/ingest", json={"sources": [host.url + "/trickle"]}) for _ in range(4)]
        while not host.seen:  # one ingest is in, fetching
            threading.Event().wait(0.01)
        probes = [client.get(path).status_code for path in ("/healthz", "/readyz") * 3]
        answered = [response.result() for response in slow]
    assert probes == [200] * 6
    assert sorted(r.status_code for r in answered) == [400, 503, 503, 503]  # the one admitted is dropped at its deadline
    assert all(r.headers["retry-after"] for r in answered if r.status_code == 503)
