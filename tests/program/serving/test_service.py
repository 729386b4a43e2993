"""The HTTP service for real: uvicorn on 127.0.0.1 in a thread, called with httpx, a scripted LM behind it."""

from __future__ import annotations

import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import dspy
import pytest

from program.contract.answer_response import AnswerResponse
from program.loop import GatedRAG
from program.retrieval.store import StoreUnreachableError
from program.serving.answerer import Answerer, Engine
from program.thresholds import Thresholds
from tests.conftest import FakeSearch, passage
from tests.program.fake_engine import (
    DOCS,
    FOLLOW_UP,
    QUESTION,
    STANDALONE,
    BlockingSearch,
    fake_answerer,
    signature_lm,
    verdict,
)
from tests.program.serving.live_server import serving, settings


def test_answer_returns_the_contract_and_agent_metadata(tmp_path):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        body = client.post("/answer", json={"question": QUESTION}).json()
        traced = client.post("/answer", json={"question": QUESTION, "include_trace": True}).json()
    assert body["answer"] == "Chief of Protocol of the United States [2]."
    assert body["citations"][0]["title"] == "Shirley Temple" and body["sources"][0]["source"] == "index"
    # no judge call (the reader's draft is supported): the confidence is the heuristic's
    assert 0 < body["confidence"] < 90 and body["retrieval_quality"] == "high" and body["query_type"] == "factual"
    assert body["fallback"] is None and body["warnings"] == [] and body["processing_time_ms"] >= 0
    assert body["related_queries"] and QUESTION not in body["related_queries"]
    assert isinstance(body["suggestions"], list) and body["evidence"]
    assert body["trace"] is None
    assert [s["action"] for s in traced["trace"]["steps"]] == ["decompose", "retrieve", "draft", "answer", "score"]


def test_a_seed_url_needs_ingest_on_and_an_http_url(tmp_path):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        refused = client.post("/answer", json={"question": QUESTION, "url": "https://docs.example.com/index.html"})
        malformed = client.post("/answer", json={"question": QUESTION, "url": "file:///etc/passwd"})
    assert refused.status_code == 403 and "GATEDRAG_SERVE_INGEST" in refused.json()["detail"]
    assert malformed.status_code == 422


def test_health_readiness_and_openapi(tmp_path):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.get("/readyz").json() == {"status": "ready", "lm": "scripted", "system": "gated"}
        schema = client.get("/openapi.json").json()
        assert client.get("/docs").status_code == 200
    assert {"/answer", "/healthz", "/readyz"} <= set(schema["paths"])
    answer = schema["paths"]["/answer"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer == {"$ref": "#/components/schemas/AnswerResponse"}
    assert set(schema["components"]["schemas"]["AnswerResponse"]["properties"]) == set(AnswerResponse.model_fields)


def test_docs_load_every_asset_from_the_service_itself(tmp_path):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        page = client.get("/docs").text
        assets = re.findall(r"""(?:src|href)=['"]([^'"]+\.(?:js|css|png))['"]""", page)
        fetched = [client.get(a).status_code for a in assets]
    assert assets and all(a.startswith("/") for a in assets) and fetched == [200] * len(assets)
    assert "cdn" not in page.lower()


def test_not_ready_until_the_models_load_and_a_failed_load_is_reported(tmp_path):
    config, loaded = settings(tmp_path), threading.Event()

    def slow_load():
        loaded.wait(10)
        raise RuntimeError("model weights not installed")

    with serving(Answerer(slow_load, config), config, wait_ready=False) as client:
        assert client.get("/healthz").status_code == 200
        assert client.get("/readyz").json()["status"] == "loading"
        refused = client.post("/answer", json={"question": QUESTION})
        loaded.set()
        while client.get("/readyz").json()["status"] == "loading":
            time.sleep(0.01)
        failed = client.get("/readyz")
    assert refused.status_code == 503 and refused.headers["retry-after"]
    assert failed.status_code == 503 and failed.json() == {"status": "failed", "detail": "RuntimeError: model weights not installed"}


def test_readiness_follows_the_store_once_the_models_are_loaded(tmp_path):
    config, down = settings(tmp_path), threading.Event()

    def store_check():
        if down.is_set():
            raise StoreUnreachableError("the Qdrant server at http://127.0.0.1:9 is unreachable (ConnectError)")

    with serving(fake_answerer(config), config, store_check=store_check) as client:
        down.set()
        away = client.get("/readyz")
        down.clear()
        back = client.get("/readyz")
    assert away.status_code == 503 and away.json() == {
        "status": "store_unavailable", "detail": "the Qdrant server at http://127.0.0.1:9 is unreachable (ConnectError)"}
    assert back.status_code == 200 and back.json()["status"] == "ready"


@pytest.mark.parametrize("payload, status", [
    ({"question": "   "}, 422),
    ({}, 422),
    ({"question": "x" * 2001}, 422),
    ({"question": QUESTION, "intent": "poem"}, 422),
    ({"question": QUESTION, "expansion_budget": -1}, 422),
    ({"question": QUESTION, "colour": "red"}, 422),
    ({"question": QUESTION, "required": ["re:(unclosed"]}, 422),
    ({"question": "hi", "required": ["re:(?:(?:a{999}){999}){999}"]}, 422),  # grew a server to 24 GB
    ({"question": QUESTION, "check": "spelling"}, 422),
    ({"question": QUESTION, "known_context": "k" * 70_000}, 413),
])
def test_bad_input_is_refused_with_a_clear_status(tmp_path, payload, status):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        response = client.post("/answer", json=payload)
    assert response.status_code == status
    if status == 422:
        assert response.json()["detail"][0]["msg"]


def test_expansion_budget_zero_makes_one_retrieval_pass(tmp_path):
    config, search = settings(tmp_path), FakeSearch(DOCS)
    # a judge that would keep re-querying, were it asked
    answerer = fake_answerer(config, search=search, lm=signature_lm(judged=verdict(False, 0.2, ["more"])))
    with serving(answerer, config) as client:
        body = client.post("/answer", json={"question": QUESTION, "expansion_budget": 0, "include_trace": True}).json()
    assert [s["action"] for s in body["trace"]["steps"]] == ["decompose", "retrieve", "draft", "answer", "score"]
    assert len(search.queries) == 2 and search.queries[0] == QUESTION  # the question and its rule-based sub-query


def test_acceptance_criteria_reach_the_loop_and_its_score_comes_back(tmp_path):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        body = client.post("/answer", json={"question": QUESTION, "required": ["Chief of Protocol"],
                                            "prohibited": ["re:ambassador"], "include_trace": True}).json()
        failing = client.post("/answer", json={"question": QUESTION, "check": "aws_region", "include_trace": True}).json()
    assert body["acceptance"]["criteria_given"] == 2 and body["acceptance"]["accepted"]
    assert failing["acceptance"]["failed"] == ["must name an AWS region code such as us-east-1"]
    # the scripted refiner cannot name a region: the one repair runs, scores no higher, and is dropped
    assert failing["trace"]["steps"][-1]["action"] == "repair" and not failing["acceptance"]["repaired"]


def test_hints_reach_the_loop(tmp_path):
    config, lm = settings(tmp_path), signature_lm()
    rag = GatedRAG(FakeSearch(DOCS), thresholds=Thresholds(decompose_mode="llm"))  # known context reaches the planner
    answerer = Answerer(lambda: Engine(rag, lm, description="scripted"), config)
    with serving(answerer, config) as client:
        body = client.post("/answer", json={"question": QUESTION, "intent": "comparison", "include_trace": True,
                                            "known_context": "Shirley Temple starred in it.",
                                            "constraints": "with dates"}).json()
    assert body["query_type"] == "comparison"
    assert all(q.endswith("with dates") for q in body["trace"]["sub_queries"])
    decompose_prompt = lm.history[0]["messages"][-1]["content"]
    assert "Shirley Temple starred in it." in decompose_prompt
    reader_prompt = next(h["messages"][-1]["content"] for h in lm.history if "`short_answer`" in h["messages"][-1]["content"])
    assert "with dates" in reader_prompt


def test_uncovered_question_without_web_abstains_with_the_structured_fallback(tmp_path):
    config = settings(tmp_path)
    far = [passage("Conrad Brooks", "Conrad Brooks is an American actor.", similarity=0.3)]
    lm = signature_lm()
    with serving(fake_answerer(config, search=FakeSearch(far), lm=lm), config) as client:
        body = client.post("/answer", json={"question": "What nationality was Ed Wood?", "include_trace": True}).json()
    fallback = body["fallback"]
    assert body["abstained"] and body["short_answer"] == "" and lm.history == []  # no LM call at all
    assert body["answer"].startswith("Not enough evidence") and body["trace"]["ended"] == "abstained"
    assert body["citations"] == [] and body["confidence"] <= 20 and body["retrieval_quality"] == "none"
    assert "no web backend" in fallback["reason"]
    assert fallback["understood"]["intent"] == "factual"
    assert 2 <= len(fallback["web_queries"]) <= 4
    assert [s["action"] for s in body["suggestions"]][:2] == ["web_search", "web_search"]


def test_time_limit_returns_the_partial_result_with_a_warning(tmp_path):
    config = settings(tmp_path, serve_timeout_s=0.001)
    with serving(fake_answerer(config), config) as client:
        response = client.post("/answer", json={"question": QUESTION, "include_trace": True})
    body = response.json()
    assert response.status_code == 200 and body["trace"]["ended"] == "budget_exhausted"
    assert any("time limit" in w for w in body["warnings"]) and body["fallback"]
    assert any(s["action"] == "answer" for s in body["suggestions"])


def test_a_request_that_gets_no_lm_slot_in_time_returns_retrieval_only(tmp_path):
    config = settings(tmp_path, serve_timeout_s=0.5, serve_lm_slots=1)
    search = BlockingSearch(DOCS, block_on="slow")
    with serving(fake_answerer(config, search=search), config) as client, ThreadPoolExecutor(2) as pool:
        slow = pool.submit(client.post, "/answer", json={"question": "a slow question about Kiss and Tell"})
        assert search.entered.wait(10)
        busy = client.post("/answer", json={"question": QUESTION, "include_trace": True}).json()
        search.release.set()
        assert slow.result().status_code == 200
    assert any(w.startswith("the LM was busy") for w in busy["warnings"])
    assert [s["action"] for s in busy["trace"]["steps"]] == ["retrieve"] and busy["evidence"]
    assert busy["fallback"] and busy["retrieval_quality"] == "high" and busy["confidence"] <= 20


def test_requests_beyond_the_pending_limit_get_503(tmp_path):
    config = settings(tmp_path, serve_max_pending=1)
    search = BlockingSearch(DOCS, block_on="slow")
    with serving(fake_answerer(config, search=search), config) as client, ThreadPoolExecutor(1) as pool:
        slow = pool.submit(client.post, "/answer", json={"question": "a slow question"})
        assert search.entered.wait(10)
        refused = client.post("/answer", json={"question": QUESTION})
        search.release.set()
        assert slow.result().status_code == 200
    assert refused.status_code == 503 and "serve_max_pending" in refused.json()["detail"]


def test_concurrent_requests_keep_their_own_settings(tmp_path):
    config = settings(tmp_path, serve_lm_slots=4)
    clear = [DOCS[0].model_copy(update={"similarity": 0.8}), DOCS[1].model_copy(update={"similarity": 0.3})]
    rag = GatedRAG(FakeSearch(clear))
    before = rag.thresholds.model_copy()
    unknown = {"short_answer": "unknown", "answer": "The passages do not say [1]."}  # over a clear hit: the judge is asked
    answerer = Answerer(lambda: Engine(rag, signature_lm(answer=unknown, judged=verdict(False, 0.2, ["more"],
                                                                                        answer=unknown))), config)

    def ask(client, i):
        budget = 0 if i % 2 else None
        return i, client.post("/answer", json={"question": f"{QUESTION} ({i})", "constraints": f"tag{i}",
                                               "expansion_budget": budget, "include_trace": True}).json()

    with serving(answerer, config) as client, ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: ask(client, i), range(8)))
    for i, body in results:
        assert all(q.endswith(f"tag{i}") for q in body["trace"]["sub_queries"])
        rounds = sum(s["action"] == "query_docs" for s in body["trace"]["steps"])
        assert rounds == 0 if i % 2 else rounds >= 1
    assert rag.thresholds == before
    assert dspy.settings.lm is None  # no request configured DSPy globally


def test_a_session_id_carries_the_conversation_to_a_follow_up(tmp_path):
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        client.post("/answer", json={"question": "Who is Shirley Temple?", "session_id": "web-7"})
        body = client.post("/answer", json={"question": FOLLOW_UP, "session_id": "web-7", "include_trace": True}).json()
        other = client.post("/answer", json={"question": FOLLOW_UP, "session_id": "web-8"}).json()
        refused = client.post("/answer", json={"question": FOLLOW_UP, "session_id": "../web-7"})
    assert body["question"] == FOLLOW_UP and body["standalone_question"] == STANDALONE
    assert body["trace"]["steps"][0]["action"] == "contextualize"
    assert other["standalone_question"] == ""  # another session has no earlier turn
    assert refused.status_code == 422 and refused.json()["detail"][0]["loc"][-1] == "session_id"
