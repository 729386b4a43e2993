"""program/retrieval/rerankers.py: the providers behind GATEDRAG_RERANKER, on a small real index."""

import copy
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import program.retrieval.rerankers as rerankers
from program.base.errors import ModelNotInstalledError
from program.base.settings import Settings
from program.retrieval.passage import Passage
from program.retrieval.rerankers import (
    CohereReranker,
    CrossEncoderReranker,
    EmbeddingReranker,
    RerankerError,
    build_reranker,
)
from program.retrieval.retriever import HybridSearch
from tests.conftest import send_json
from tests.program.retrieval.test_retriever import search  # noqa: F401 - the module's index fixture

KEY = "co-test-key-8f3a"


class FakeCohere:
    """Cohere's /v2/rerank on 127.0.0.1: relevance is the share of the query's words a document holds;
    `status` other than 200 answers every request with that error."""

    def __init__(self):
        self.requests, self.status = [], 200
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                if fake.status != 200:
                    return send_json(self, fake.status, {"message": f"invalid api token {KEY}"})
                words = set(body["query"].lower().split())
                scores = [len(words & set(d.lower().replace(".", "").split())) / len(words) for d in body["documents"]]
                ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
                send_json(self, 200, {"id": "r1", "results": [{"index": i, "relevance_score": scores[i]} for i in ranked],
                                      "meta": {"billed_units": {"search_units": 1}}})

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_cohere():
    fake = FakeCohere()
    yield fake
    fake.close()


class FakeCrossEncoder:
    """Scores a pair by the query words the passage holds: a logit of -4 plus 3 a word."""

    def __init__(self):
        self.pairs = 0

    def rerank(self, query, documents):
        self.pairs += len(documents)
        words = set(query.lower().split())
        return [-4.0 + 3 * len(words & set(d.lower().replace(".", "").split())) for d in documents]


def with_reranker(search, reranker):  # noqa: F811
    reranked = copy.copy(search)
    reranked.reranker = reranker
    return reranked


def test_settings_name_the_provider_and_none_keeps_the_fused_order(tmp_path, search):  # noqa: F811
    assert build_reranker("none", "m", tmp_path) is None
    assert isinstance(build_reranker("embedding", "m", tmp_path), EmbeddingReranker)
    settings = Settings(_env_file=None, reranker="embedding", data_dir=tmp_path)
    assert isinstance(HybridSearch.from_settings(settings).reranker, EmbeddingReranker)
    assert Settings(_env_file=None).reranker == "none"


def test_the_embedding_reranker_orders_the_pool_by_cosine(search):  # noqa: F811
    passages = with_reranker(search, EmbeddingReranker())("where is the iron lattice tower", 4)
    scores = [p.score for p in passages]
    assert scores == sorted(scores, reverse=True) and scores == [p.similarity for p in passages]
    assert passages[0].title == "Eiffel Tower"


def test_the_cross_encoder_rescores_every_candidate_and_its_logit_becomes_a_calibrated_relevance(search, monkeypatch):  # noqa: F811
    fake = FakeCrossEncoder()
    monkeypatch.setattr(rerankers, "_cross_encoder", lambda model, cache: fake)
    reranker = CrossEncoderReranker("any/model", "cache")
    passages = with_reranker(search, reranker)("keeper rowed out every Monday", 2)
    assert passages[0].text == "Its keeper rowed out every Monday."
    assert fake.pairs >= 2 and all(0 < p.similarity < 1 and p.score == p.similarity for p in passages)
    assert passages[0].similarity == pytest.approx(1 / (1 + 2.718281828 ** -11), rel=1e-6)  # 5 words: logit 11
    assert copy.deepcopy(reranker) is reranker


def test_a_cross_encoder_not_in_the_model_cache_is_one_clear_line(tmp_path):
    reranker = CrossEncoderReranker("Xenova/ms-marco-MiniLM-L-6-v2", tmp_path)
    with pytest.raises(ModelNotInstalledError) as refused:
        reranker.rerank("q", [Passage(chunk_id="c", doc_id="d", title="t", text="text")])
    message = str(refused.value)
    assert "\n" not in message and "GATEDRAG_RERANKER=embedding" in message and str(tmp_path) in message



def test_cohere_reranks_the_pool_through_its_client_with_the_key_and_model_from_settings(search, fake_cohere, tmp_path):  # noqa: F811
    settings = Settings(_env_file=None, reranker="cohere", cohere_api_key=KEY, co_api_url=fake_cohere.url,
                        data_dir=tmp_path)
    reranker = HybridSearch.from_settings(settings).reranker
    assert isinstance(reranker, CohereReranker) and reranker.model == "rerank-v3.5"
    passages = with_reranker(search, reranker)("keeper rowed out every Monday", 2)
    assert passages[0].text == "Its keeper rowed out every Monday."
    assert passages[0].score == passages[0].similarity == 1.0 and passages[0].score >= passages[1].score
    sent = fake_cohere.requests[0]
    assert sent["path"] == "/v2/rerank" and sent["auth"] == f"Bearer {KEY}"
    assert sent["body"]["model"] == "rerank-v3.5" and len(sent["body"]["documents"]) >= 2
    assert copy.deepcopy(reranker) is reranker


@pytest.mark.parametrize("status, hint", [(401, "check COHERE_API_KEY"), (500, "HTTP 500")])
def test_a_failing_cohere_call_is_one_line_naming_the_status_never_the_key(fake_cohere, status, hint):
    fake_cohere.status = status
    reranker = CohereReranker("rerank-v3.5", KEY, fake_cohere.url)
    with pytest.raises(RerankerError) as failed:
        reranker.rerank("q", [Passage(chunk_id="c", doc_id="d", title="t", text="text")])
    message = str(failed.value)
    assert hint in message and KEY not in message and "\n" not in message and "GATEDRAG_RERANKER=embedding" in message


def test_cohere_without_a_key_is_refused_before_any_search(tmp_path, monkeypatch):
    for name in ("CO_API_KEY", "COHERE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(RerankerError, match="needs COHERE_API_KEY"):
        HybridSearch.from_settings(Settings(_env_file=None, reranker="cohere", data_dir=tmp_path))


def test_cohere_key_comes_from_either_env_name_it_is_known_by(monkeypatch):
    monkeypatch.setenv("CO_API_KEY", KEY)
    assert Settings(_env_file=None).cohere_api_key.get_secret_value() == KEY
