"""Re-score a search's candidate pool before the signals read it: one interface, several providers.

`GATEDRAG_RERANKER` names the provider:
- `none` (the default): the store's fused order; each passage's `similarity` is its dense cosine;
- `embedding`: the pool re-ordered by the dense cosine alone, from the index's own model (no new model);
- `cross-encoder`: fastembed's `TextCrossEncoder` (`GATEDRAG_RERANKER_MODEL`) reads each (query,
  passage) pair, and its logit through a sigmoid is the passage's relevance in [0, 1]. The model must
  already be in the model cache: nothing is downloaded, and a missing one is a one-line error;
- `cohere`: Cohere's hosted rerank API through its own client (`COHERE_API_KEY`, `CO_API_URL`), whose
  relevance is already in [0, 1]. A failed call is a one-line error naming the status, never the key.

A reranked relevance replaces each passage's `score` and `similarity`, so the gate's thresholds are
in the provider's units: fit them per provider with `python -m optimize`.
This module does not search; see `program.retrieval.retriever`.
"""

from __future__ import annotations

import functools
import math
import threading
from pathlib import Path
from typing import Literal, Protocol

import cohere
from fastembed.rerank.cross_encoder import TextCrossEncoder

from program.base.errors import ModelNotInstalledError
from program.retrieval.passage import Passage

RerankerName = Literal["none", "embedding", "cross-encoder", "cohere"]
POOL = 20  # candidates a reranker re-scores: it can lift a passage the fused order put past k
DEFAULT_MODELS = {"cross-encoder": "Xenova/ms-marco-MiniLM-L-6-v2", "cohere": "rerank-v3.5"}
HOSTED_TIMEOUT_S = 10.0  # one rerank call; the question's own deadline still bounds the loop
HOSTED_TOKENS_PER_DOC = 512  # a chunk is ~300 tokens: longer ones are cut by the API, not refused


class RerankerError(RuntimeError):
    """A hosted reranker could not answer; the message names the provider and the status."""


class Reranker(Protocol):
    name: RerankerName  # recorded in a compiled program: its thresholds are in this provider's units
    pool: int

    def rerank(self, query: str, passages: list[Passage]) -> list[Passage]:
        """`passages` best first by this reranker's relevance, each carrying it as score and similarity."""


class EmbeddingReranker:
    """The dense cosine, already on every passage, as the only order."""

    name: RerankerName = "embedding"
    pool = POOL

    def rerank(self, query: str, passages: list[Passage]) -> list[Passage]:
        rescored = [p.model_copy(update={"score": p.similarity if p.similarity is not None else p.score})
                    for p in passages]
        return sorted(rescored, key=lambda p: (-p.score, p.chunk_id))


class CrossEncoderReranker:
    """A cross-encoder's calibrated relevance. The model loads on the first rerank, once per process."""

    name: RerankerName = "cross-encoder"
    pool = POOL

    def __init__(self, model: str, model_cache: Path):
        self.model, self.model_cache = model, model_cache
        self._encoder = None
        self._loading = threading.Lock()

    def __deepcopy__(self, memo) -> CrossEncoderReranker:
        return self  # the ONNX session is shared, never copied

    def rerank(self, query: str, passages: list[Passage]) -> list[Passage]:
        if not passages:
            return []
        logits = list(self._load().rerank(query, [p.text for p in passages]))
        rescored = [p.model_copy(update={"score": _sigmoid(logit), "similarity": _sigmoid(logit)})
                    for p, logit in zip(passages, logits, strict=True)]
        return sorted(rescored, key=lambda p: (-p.score, p.chunk_id))

    def _load(self):
        with self._loading:
            if self._encoder is None:
                self._encoder = _cross_encoder(self.model, self.model_cache)
            return self._encoder


class CohereReranker:
    """Cohere's rerank API: one request per search, the pool's texts in, a relevance per text out."""

    name: RerankerName = "cohere"
    pool = POOL

    def __init__(self, model: str, api_key: str, base_url: str | None = None):
        self.model = model
        self._client = cohere.ClientV2(api_key=api_key, base_url=base_url, timeout=HOSTED_TIMEOUT_S,
                                       max_retries=1, client_name="gatedrag")

    def __deepcopy__(self, memo) -> CohereReranker:
        return self  # one HTTP client, shared

    def rerank(self, query: str, passages: list[Passage]) -> list[Passage]:
        if not passages:
            return []
        try:
            response = self._client.rerank(model=self.model, query=query, documents=[p.text for p in passages],
                                           max_tokens_per_doc=HOSTED_TOKENS_PER_DOC)
        except cohere.core.ApiError as error:
            raise RerankerError(f"the Cohere reranker answered HTTP {error.status_code}"
                                f"{' (check COHERE_API_KEY)' if error.status_code in (401, 403) else ''}; "
                                "GATEDRAG_RERANKER=embedding or none works offline") from None
        except Exception as error:  # noqa: BLE001 - httpx raises timeouts and connection errors of many kinds
            raise RerankerError(f"the Cohere reranker could not be reached ({type(error).__name__}); "
                                "GATEDRAG_RERANKER=embedding or none works offline") from None
        relevance = {result.index: float(result.relevance_score) for result in response.results}
        rescored = [p.model_copy(update={"score": relevance.get(i, 0.0), "similarity": relevance.get(i, 0.0)})
                    for i, p in enumerate(passages)]
        return sorted(rescored, key=lambda p: (-p.score, p.chunk_id))


@functools.cache
def build_reranker(name: RerankerName, model: str | None, model_cache: Path, api_key: str | None = None,
                   base_url: str | None = None) -> Reranker | None:
    """The provider `name`, one per process (a cross-encoder loads once); None for `none`.
    `model` None is the provider's default model."""
    model = model or DEFAULT_MODELS.get(name, "")
    if name == "embedding":
        return EmbeddingReranker()
    if name == "cross-encoder":
        return CrossEncoderReranker(model, model_cache)
    if name == "cohere":
        if not api_key:
            raise RerankerError("GATEDRAG_RERANKER=cohere needs COHERE_API_KEY (or CO_API_KEY)")
        return CohereReranker(model, api_key, base_url)
    return None


def _cross_encoder(model: str, model_cache: Path) -> TextCrossEncoder:
    try:
        return TextCrossEncoder(model, cache_dir=str(model_cache), local_files_only=True)
    except Exception as error:  # noqa: BLE001 - fastembed raises ValueError, OSError or its own errors here
        raise ModelNotInstalledError(
            f"the cross-encoder {model!r} cannot be loaded from {model_cache} ({type(error).__name__}); put it in the "
            "model cache, or set GATEDRAG_RERANKER=embedding or none") from None


def _sigmoid(logit: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, float(logit)))))
