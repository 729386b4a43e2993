"""The store interface: the few vector-store operations gatedrag needs, and the types they exchange.

A collection holds points with a cosine dense vector (`DENSE`), a BM25 sparse vector (`SPARSE`,
IDF applied by the engine at query time) and a JSON payload. Two implementations: the embedded
`program.retrieval.edge_store.EdgeStore` (the default) and `program.retrieval.server_store.ServerStore`
(a Qdrant server, when QDRANT_URL is set); `program.retrieval.open_store` picks one.
This module holds no engine code: nothing here imports qdrant_client or qdrant_edge.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

DENSE = "dense"
SPARSE = "bm25"
DENSE_SIZE = 384  # all-MiniLM-L6-v2
RRF_K = 2  # Qdrant's default RRF constant: a hit at rank r (from 1) scores 1 / (r + RRF_K - 1) per side
TIE_ROOM = 16  # hits fetched past each side's cut, so a tie at the cut is broken by id, not by the engine
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


class StoreError(RuntimeError):
    """The store cannot do what was asked; the message names the folder or URL, and the remedy."""


class CollectionMissingError(StoreError):
    pass


class StoreInUseError(StoreError):
    """Another process holds the embedded store."""


class StoreCorruptError(StoreError):
    """The embedded store's files cannot be read."""


class StoreUnreachableError(StoreError):
    """The Qdrant server does not answer (down, a wrong URL, a network fault); it may come back."""


@dataclass(frozen=True)
class SparseVector:
    indices: list[int]
    values: list[float]


@dataclass(frozen=True)
class Point:
    """What is written: one chunk's vectors and payload."""

    id: str  # a UUID string
    dense: list[float]
    sparse: SparseVector
    payload: dict[str, Any]


@dataclass(frozen=True)
class Hit:
    """What is read back: a point's payload and (unit-length) dense vector, with its fused score
    when a search ranked it (0.0 for a point fetched by id)."""

    id: str
    payload: dict[str, Any]
    dense: list[float] = field(repr=False)
    score: float = 0.0


class Store(Protocol):
    location: str  # the embedded store's folder, or the server's URL

    def exists(self, collection: str) -> bool: ...

    def collections(self) -> list[str]:
        """The names of the collections the store holds, sorted."""

    def require(self, collection: str) -> None:
        """Raise CollectionMissingError, naming the collections there are and how to build it, unless it exists."""

    def ensure(self, collection: str) -> None:
        """Create the collection (the schema above) unless it exists."""

    def upsert(self, collection: str, points: Sequence[Point]) -> None: ...

    def delete(self, collection: str, ids: Sequence[str]) -> None: ...

    def payloads(self, collection: str, fields: Sequence[str]) -> Iterator[tuple[str, dict[str, Any]]]:
        """(id, the selected payload fields) for every point, without vectors."""

    def hybrid(self, collection: str, dense: list[float], sparse: SparseVector, *, limit: int, candidates: int,
               exclude_titles: Sequence[str] = ()) -> list[Hit]:
        """The top `limit` by RRF of the dense and the sparse top `candidates`; a point whose payload
        title is one of `exclude_titles` is dropped from both sides before they are cut."""

    def fetch(self, collection: str, ids: Sequence[str]) -> list[Hit]:
        """The points with these ids that exist, in no particular order."""

    def count(self, collection: str) -> int: ...

    def last_write(self, collection: str) -> datetime | None:
        """When the collection last changed, where the engine can tell."""

    def finish_bulk(self, collection: str) -> None:
        """Build the search indexes after a bulk write (a no-op where the engine does it itself)."""

    def close(self) -> None: ...


SCROLL_PAGE = 1000  # points per scroll request


def paged_payloads(scroll: Callable[[Any, int], tuple[list, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(id, payload) of every point, from an engine's `scroll(offset, limit) -> (records, next offset)`,
    page by page until the engine returns no next offset."""
    offset = None
    while True:
        records, offset = scroll(offset, SCROLL_PAGE)
        yield from ((str(r.id), r.payload or {}) for r in records)
        if offset is None:
            return


def held(collections: list[str], shown: int = 10) -> str:
    """What a store holds, for an error about a collection it lacks: a mistyped name shows beside the right one."""
    if not collections:
        return "it holds no collection yet"
    more = f", and {len(collections) - shown} more" if len(collections) > shown else ""
    return f"it holds: {', '.join(collections[:shown])}{more}"


def check_name(collection: str) -> str:
    """A collection name is also a folder name: letters, digits, '_', '.', '-', not starting with '.'."""
    if not _NAME.fullmatch(collection):
        raise ValueError(f"bad collection name {collection!r}: use letters, digits, '_', '.' or '-' (at most 128)")
    return collection


def fused(sides: Sequence[Sequence[Hit]], *, limit: int, candidates: int) -> list[Hit]:
    """Reciprocal-rank fusion of each side's best `candidates` hits, as Qdrant's RRF scores them.

    Each side was fetched with TIE_ROOM hits to spare. subtle: BM25 scores tie often (every chunk that
    matches only "Amazon" scores alike), and the engine orders ties by its internal offsets, which differ
    between two builds of the same points; ordering each side by (score, id) makes one set of points
    give one answer, however it was written."""
    scores: dict[str, float] = {}
    hits: dict[str, Hit] = {}
    for side in sides:
        ranked = sorted(side, key=lambda hit: (-hit.score, hit.id))[:candidates]
        for rank, hit in enumerate(ranked, start=1):
            scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (rank + RRF_K - 1)
            hits.setdefault(hit.id, hit)
    best = sorted(scores, key=lambda point: (-scores[point], point))[:limit]
    return [Hit(id=point, payload=hits[point].payload, dense=hits[point].dense, score=scores[point]) for point in best]
