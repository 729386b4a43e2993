"""program/retrieval/rerankers.py: the providers behind GATEDRAG_RERANKER, on a small real index."""

import copy

import pytest

import program.retrieval.rerankers as rerankers
from program.errors import ModelNotInstalledError
from program.passage import Passage
from program.retrieval.rerankers import CrossEncoderReranker, EmbeddingReranker, build_reranker
from program.retrieval.retriever import HybridSearch
from program.settings import Settings
from tests.program.retrieval.test_retriever import search  # noqa: F401 - the module's index fixture


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

