"""Re-score a search's candidate pool before the signals read it: one interface, several providers.

`GATEDRAG_RERANKER` names the provider:
- `none` (the default): the store's fused order; each passage's `similarity` is its dense cosine;
- `embedding`: the pool re-ordered by the dense cosine alone, from the index's own model (no new model);
- `cross-encoder`: fastembed's `TextCrossEncoder` (`GATEDRAG_RERANKER_MODEL`) reads each (query,
  passage) pair, and its logit through a sigmoid is the passage's relevance in [0, 1]. The model must
  already be in the model cache: nothing is downloaded, and a missing one is a one-line error.

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

from fastembed.rerank.cross_encoder import TextCrossEncoder

from program.errors import ModelNotInstalledError
from program.passage import Passage

RerankerName = Literal["none", "embedding", "cross-encoder"]
POOL = 20  # candidates a reranker re-scores: it can lift a passage the fused order put past k


class Reranker(Protocol):
    pool: int

    def rerank(self, query: str, passages: list[Passage]) -> list[Passage]:
        """`passages` best first by this reranker's relevance, each carrying it as score and similarity."""


class EmbeddingReranker:
    """The dense cosine, already on every passage, as the only order."""

    pool = POOL

    def rerank(self, query: str, passages: list[Passage]) -> list[Passage]:
        rescored = [p.model_copy(update={"score": p.similarity if p.similarity is not None else p.score})
                    for p in passages]
        return sorted(rescored, key=lambda p: (-p.score, p.chunk_id))


class CrossEncoderReranker:
    """A cross-encoder's calibrated relevance. The model loads on the first rerank, once per process."""

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


@functools.cache
def build_reranker(name: RerankerName, model: str, model_cache: Path) -> Reranker | None:
    """The provider `name`, one per process (a cross-encoder loads once); None for `none`."""
    if name == "embedding":
        return EmbeddingReranker()
    if name == "cross-encoder":
        return CrossEncoderReranker(model, model_cache)
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
