"""Hybrid search over one collection: dense and BM25 candidates fused by Qdrant with RRF.

A `HybridSearch` is the `search(query, k) -> list[Passage]` callable the program is given. It is
cheap to copy: DSPy optimizers deep-copy programs, and an embedded Qdrant client (which holds a
file lock) and the ONNX sessions must be shared, not copied, so a deep copy returns the same object.
`excluding(titles)` gives a search that hides some documents (the eval's hidden-gold check).
This module does not index or decide anything; see `program.retrieval.indexing` and `program.loop`.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Literal

import numpy as np
from qdrant_client import QdrantClient, models

from program.retrieval.embeddings import Embedder, load_embedder
from program.retrieval.indexing import point_id
from program.passage import Passage
from program.settings import Settings
from program.retrieval.store import DENSE, SPARSE, open_client


class HybridSearch:
    """Top-k passages by Reciprocal Rank Fusion of a dense and a BM25 search.

    `client` and `embedder` are objects or zero-argument factories, so a program can be built
    before the store is opened or the models are loaded (by default, on the first search).
    """

    def __init__(self, client: QdrantClient | Callable[[], QdrantClient], collection: str,
                 source: Literal["index", "web"] = "index", *,
                 embedder: Embedder | Callable[[], Embedder] | None = None, candidates: int = 30):
        self._client = client
        self._embedder = embedder or functools.partial(load_embedder, Settings())
        self.collection, self.source, self.candidates = collection, source, candidates
        self._filter: models.Filter | None = None

    @classmethod
    def from_settings(cls, settings: Settings, source: Literal["index", "web"] = "index") -> HybridSearch:
        collection = settings.collection if source == "index" else settings.resolved_web_collection
        return cls(functools.partial(open_client, settings), collection, source,
                   embedder=functools.partial(load_embedder, settings))

    def __deepcopy__(self, memo) -> HybridSearch:
        return self

    def excluding(self, titles: list[str]) -> HybridSearch:
        """A copy that never returns a passage of these documents (exact titles), sharing the client
        and models: a filter on the search hides them, so the index is not rebuilt."""
        if not titles:
            return self
        hidden = copy.copy(self)
        hidden._filter = models.Filter(
            must_not=[models.FieldCondition(key="title", match=models.MatchAny(any=list(titles)))])
        return hidden

    def __call__(self, query: str, k: int) -> list[Passage]:
        if not query.strip():
            return []
        embedder = self._embedder() if callable(self._embedder) else self._embedder
        client = self._client() if callable(self._client) else self._client
        vectors = embedder.query(query)
        limit = max(self.candidates, k)  # each side must offer at least k candidates
        response = client.query_points(
            self.collection,
            prefetch=[models.Prefetch(query=vectors.dense, using=DENSE, limit=limit),
                      models.Prefetch(query=vectors.sparse, using=SPARSE, limit=limit)],
            query=models.FusionQuery(fusion=models.Fusion.RRF),
            # subtle: Qdrant propagates this filter into both prefetches, so each side's limit
            # counts only allowed candidates and k hits still come back
            query_filter=self._filter,
            limit=k, with_payload=True,
            # the fused score is rank-based; the dense vectors give each hit its cosine too
            with_vectors=[DENSE],
        )
        return [self._passage(point, vectors.dense) for point in response.points]

    def neighbours(self, passage: Passage, radius: int = 1) -> list[Passage]:
        """The chunks within `radius` of `passage` in its document, in document order (locality expansion)."""
        near = [i for i in range(passage.chunk_index - radius, passage.chunk_index + radius + 1)
                if 0 <= i < passage.doc_chunks and i != passage.chunk_index]
        if not near:
            return []
        client = self._client() if callable(self._client) else self._client
        points = client.retrieve(self.collection, ids=[point_id(passage.doc_id, i) for i in near],
                                 with_payload=True, with_vectors=[DENSE])
        query = np.asarray(passage.vector) if passage.vector else None
        return [self._passage(p, query) for p in sorted(points, key=lambda p: p.payload.get("chunk_index", 0))]

    def _passage(self, point: models.ScoredPoint, query_vector: list[float]) -> Passage:
        payload = point.payload
        # both vectors are unit length (Qdrant normalises for cosine), so a dot product is the cosine
        similarity = float(np.dot(point.vector[DENSE], query_vector)) if query_vector is not None else None
        return Passage(chunk_id=str(point.id), doc_id=payload["doc_id"], title=payload["title"], text=payload["text"],
                       url=payload.get("url", ""), score=point.score, source=self.source, similarity=similarity,
                       chunk_index=payload.get("chunk_index", 0), doc_chunks=payload.get("doc_chunks", 1),
                       origin=payload.get("origin", ""), heading_path=payload.get("heading_path", []),
                       start=payload.get("start", 0), end=payload.get("end", 0), vector=point.vector[DENSE])
