"""Hybrid search over one collection: dense and BM25 candidates fused by the store with RRF.

A `HybridSearch` is the `search(query, k) -> list[Passage]` callable the program is given. It is
cheap to copy: DSPy optimizers deep-copy programs, and the embedded store (which holds a file
lock) and the ONNX sessions must be shared, not copied, so a deep copy returns the same object.
`excluding(titles)` gives a search that hides some documents (the eval's hidden-gold check);
`embed(texts)` lends its dense model to the answer's factuality check. A reranker
(`program.retrieval.rerankers`, `GATEDRAG_RERANKER`) re-scores the candidate pool before the cut.
This module does not index or decide anything; see `program.retrieval.indexing` and `program.loop`.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Literal

import numpy as np

from program.base.settings import Settings
from program.retrieval.embeddings import Embedder, load_embedder
from program.retrieval.indexing import point_id
from program.retrieval.open_store import open_store
from program.retrieval.passage import Passage
from program.retrieval.rerankers import Reranker, build_reranker
from program.retrieval.store import Hit, Store

TIE_MARGIN = 8  # hits fetched past k, so that a tie at the cut is broken by us, not by the engine


def distinct(passages: list[Passage]) -> list[Passage]:
    """One passage per text (best first in, best first out): the copy from the document with the
    fewest chunks, the page most specific to it, with the best copy's score and similarity, since
    the copies differ only in the title they were indexed with. Why: mdBook's print.html repeats
    every chapter of the Cargo book (936 of its 2,142 chunks were copies), so one text took two of
    the k hits, the gate read the copy as a second passage as good as the first, and the print
    page's copy, ranked first, was the one cited."""
    copies: dict[str, list[Passage]] = {}
    for p in passages:
        copies.setdefault(p.text_key, []).append(p)
    return [min(group, key=lambda p: p.doc_chunks).model_copy(update={"score": group[0].score,
                                                                      "similarity": group[0].similarity})
            for group in copies.values()]


class HybridSearch:
    """Top-k passages by Reciprocal Rank Fusion of a dense and a BM25 search.

    `store` and `embedder` are objects or zero-argument factories, so a program can be built
    before the store is opened or the models are loaded (by default, on the first search).
    """

    def __init__(self, store: Store | Callable[[], Store], collection: str, source: Literal["index", "web"] = "index",
                 *, embedder: Embedder | Callable[[], Embedder], candidates: int = 30,
                 reranker: Reranker | None = None):
        self._store, self._embedder = store, embedder
        self.collection, self.source, self.candidates, self.reranker = collection, source, candidates, reranker
        self._hidden: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings, source: Literal["index", "web"] = "index",
                      collection: str | None = None) -> HybridSearch:
        """The search the settings describe; `collection` overrides the source's configured one."""
        collection = collection or (settings.collection if source == "index" else settings.resolved_web_collection)
        cohere_key = settings.cohere_api_key.get_secret_value() if settings.cohere_api_key else None
        return cls(functools.partial(open_store, settings), collection, source,
                   embedder=functools.partial(load_embedder, settings),
                   reranker=build_reranker(settings.reranker, settings.reranker_model, settings.model_cache,
                                           cohere_key, settings.co_api_url))

    def __deepcopy__(self, memo) -> HybridSearch:
        return self

    def excluding(self, titles: list[str]) -> HybridSearch:
        """A copy that never returns a passage of these documents (exact titles), sharing the store
        and models: a filter on the search hides them, so the index is not rebuilt."""
        if not titles:
            return self
        hidden = copy.copy(self)
        hidden._hidden = tuple(titles)
        return hidden

    def titles_where(self, names: Callable[[str, list[str]], bool]) -> list[str]:
        """The titles of the collection's documents for which `names(title, [origin, url])` holds:
        how the eval finds the documents a gold path or URL names, to hide them by title."""
        return [title for title, places in self._documents if names(title, list(places))]

    @functools.cached_property
    def _documents(self) -> list[tuple[str, tuple[str, str]]]:
        """Each distinct (title, (origin, url)), from one scan per search object: the eval asks once per question."""
        payloads = self._open().payloads(self.collection, ["title", "origin", "url"])
        return list(dict.fromkeys((p.get("title", ""), (p.get("origin", ""), p.get("url", ""))) for _, p in payloads))

    def __call__(self, query: str, k: int) -> list[Passage]:
        if not query.strip():
            return []
        vectors = self._model().query(query)
        limit = max(k + TIE_MARGIN, self.reranker.pool if self.reranker else 0)
        # subtle: RRF scores tie often (1/(k+rank) sums), and the engine orders ties arbitrarily, so
        # the same query could keep different passages run to run; fetch past the cut, then break
        # ties by dense similarity and id, so one index gives one answer
        hits = self._open().hybrid(self.collection, vectors.dense, vectors.sparse, limit=limit,
                                   # each side must offer at least k candidates
                                   candidates=max(self.candidates, limit), exclude_titles=self._hidden)
        # the fused score is rank-based; the dense vectors give each hit its cosine too
        passages = [self._passage(hit, vectors.dense) for hit in hits]
        passages.sort(key=lambda p: (-p.score, -(p.similarity or 0.0), p.chunk_id))
        passages = distinct(passages)
        return (self.reranker.rerank(query, passages) if self.reranker else passages)[:k]

    def embed(self, texts: list[str]) -> list[list[float]]:
        """The texts' dense vectors, from the model the collection was indexed with (the factuality check's)."""
        return [vector.tolist() for vector in self._model().dense.embed(texts)]

    def neighbours(self, passage: Passage, radius: int = 1) -> list[Passage]:
        """The chunks within `radius` of `passage` in its document, in document order (locality expansion)."""
        near = [i for i in range(passage.chunk_index - radius, passage.chunk_index + radius + 1)
                if 0 <= i < passage.doc_chunks and i != passage.chunk_index]
        if not near:
            return []
        hits = self._open().fetch(self.collection, [point_id(passage.doc_id, i) for i in near])
        return [self._passage(hit, passage.vector) for hit in sorted(hits, key=lambda h: h.payload.get("chunk_index", 0))]

    @property
    def store(self) -> Store:
        """The store it searches (opened on first use)."""
        return self._open()

    @property
    def embedder(self) -> Embedder:
        """The models it embeds queries with (loaded on first use)."""
        return self._model()

    def _open(self) -> Store:
        return self._store() if callable(self._store) else self._store

    def _model(self) -> Embedder:
        return self._embedder() if callable(self._embedder) else self._embedder

    def _passage(self, hit: Hit, query_vector: list[float] | None) -> Passage:
        """The one mapping from a stored point to a Passage."""
        payload = hit.payload
        # both vectors are unit length (the store normalises for cosine), so a dot product is the cosine
        similarity = float(np.dot(hit.dense, query_vector)) if query_vector else None
        return Passage(chunk_id=hit.id, doc_id=payload["doc_id"], title=payload["title"], text=payload["text"],
                       url=payload.get("url", ""), score=hit.score, source=self.source, similarity=similarity,
                       chunk_index=payload.get("chunk_index", 0), doc_chunks=payload.get("doc_chunks", 1),
                       origin=payload.get("origin", ""), heading_path=payload.get("heading_path", []),
                       start=payload.get("start", 0), end=payload.get("end", 0), vector=hit.dense)
