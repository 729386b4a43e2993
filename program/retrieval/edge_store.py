"""The embedded store: Qdrant Edge, Qdrant's Rust engine running in this process.

One shard folder per collection under the store folder (`<data_dir>/qdrant-edge/<collection>`).
Writes go to the shard's write-ahead log, so a reopened folder holds everything written before.
New points land in a plain (brute-force) segment; `finish_bulk` runs the optimizer, which merges
segments and builds HNSW only for a segment past `hnsw_min_points`. Below that a scan is fast and
exact: measured by bench/retrieval.py, a plain hybrid query takes 0.5 ms at 5k points and 14 ms
at 100k with recall@3 1.0, while on its random vectors HNSW at 20k took 22 s to build and fell
to recall@3 0.85 (a worst case for HNSW; real embeddings cluster).
One process at a time: a lock file in the store folder refuses a second one with a clear error.
This module does not embed or choose a store; see `program.retrieval.embeddings` and `program.retrieval.open_store`.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import qdrant_edge as edge

from program.retrieval.store import (DENSE, DENSE_SIZE, RRF_K, SPARSE, CollectionMissingError, Hit, Point,
                                     SparseVector, StoreInUseError, check_name, paged_payloads)

CONFIG_FILE = "edge_config.json"  # written by EdgeShard.create: a folder without it holds no shard
HNSW_MIN_POINTS = 150_000
LOCK_FILE = ".lock"


class EdgeStore:
    """Collections as Qdrant Edge shards in `folder`; `missing_hint` is added to a missing collection's error.
    `hnsw_min_points` is fixed in a shard when it is created."""

    def __init__(self, folder: Path, missing_hint: str = "", hnsw_min_points: int = HNSW_MIN_POINTS):
        self.folder, self.location, self.missing_hint = folder, str(folder), missing_hint
        self.hnsw_min_points = hnsw_min_points
        folder.mkdir(parents=True, exist_ok=True)
        self._lock_file = _lock(folder)
        self._shards: dict[str, edge.EdgeShard] = {}
        self._opening = threading.Lock()

    def exists(self, collection: str) -> bool:
        return collection in self._shards or (self.folder / check_name(collection) / CONFIG_FILE).is_file()

    def require(self, collection: str) -> None:
        if not self.exists(collection):
            raise CollectionMissingError(f"no collection {collection!r} in {self.folder}; build it with: "
                                         f"python -m program index (or ingest your files){self.missing_hint}")

    def ensure(self, collection: str) -> None:
        with self._opening:
            if not self.exists(collection):
                self._shards[collection] = edge.EdgeShard.create(str(self.folder / collection),
                                                                 _config(self.hnsw_min_points))

    def upsert(self, collection: str, points: Sequence[Point]) -> None:
        shard = self._shard(collection)
        shard.update(edge.UpdateOperation.upsert_points([_point(p) for p in points]))

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        self._shard(collection).update(edge.UpdateOperation.delete_points(list(ids)))

    def payloads(self, collection: str, fields: Sequence[str]) -> Iterator[tuple[str, dict[str, Any]]]:
        shard = self._shard(collection)
        return paged_payloads(lambda offset, limit: shard.scroll(edge.ScrollRequest(
            offset=offset, limit=limit, with_payload=list(fields), with_vector=False)))

    def hybrid(self, collection: str, dense: list[float], sparse: SparseVector, *, limit: int, candidates: int,
               exclude_titles: Sequence[str] = ()) -> list[Hit]:
        # subtle: the filter goes into each prefetch, so each side's `candidates` counts only allowed
        # points and `limit` hits still come back when the best ones are excluded
        hidden = _without_titles(exclude_titles)
        request = edge.QueryRequest(
            limit=limit, query=edge.Fusion.Rrf(k=RRF_K), with_payload=True, with_vector=[DENSE],
            prefetches=[edge.Prefetch(limit=candidates, query=edge.Query.Nearest(dense, using=DENSE), filter=hidden),
                        edge.Prefetch(limit=candidates, filter=hidden, query=edge.Query.Nearest(
                            edge.SparseVector(sparse.indices, sparse.values), using=SPARSE))])
        return [_hit(p, p.score) for p in self._shard(collection).query(request)]

    def fetch(self, collection: str, ids: Sequence[str]) -> list[Hit]:
        records = self._shard(collection).retrieve(list(ids), with_payload=True, with_vector=[DENSE])
        return [_hit(r) for r in records]

    def count(self, collection: str) -> int:
        return self._shard(collection).count(edge.CountRequest(exact=True))

    def last_write(self, collection: str) -> datetime | None:
        """The newest file time in the shard folder: every write appends to its log."""
        if not self.exists(collection):
            return None
        newest = max(p.stat().st_mtime for p in (self.folder / collection).rglob("*"))
        return datetime.fromtimestamp(newest, tz=timezone.utc)

    def finish_bulk(self, collection: str) -> None:
        shard = self._shard(collection)
        shard.optimize()  # blocks until done; plans nothing for segments under the indexing threshold
        shard.flush()

    def close(self) -> None:
        with self._opening:
            for shard in self._shards.values():
                shard.close()
            self._shards.clear()
            if not self._lock_file.closed:
                self._lock_file.close()  # releases the flock

    def _shard(self, collection: str) -> edge.EdgeShard:
        with self._opening:
            if collection not in self._shards:
                self.require(collection)
                self._shards[collection] = edge.EdgeShard.load(str(self.folder / collection))
            return self._shards[collection]


def _lock(folder: Path):
    """An exclusive lock on the store folder for this process's lifetime.

    subtle: qdrant-edge locks a shard's write-ahead log only when that shard is opened, and says
    "Can't init WAL: Kind(WouldBlock)"; this lock refuses a second process up front, before it
    creates or opens anything, with a message that names the remedy.
    """
    handle = open(folder / LOCK_FILE, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "?"
        handle.close()
        raise StoreInUseError(f"the embedded store {folder} is in use by another process (pid {holder}); stop that "
                              "process (e.g. the server) or set QDRANT_URL to share a Qdrant server") from None
    handle.truncate(0)  # "a+" writes at the end, which is now the start
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def _config(hnsw_min_points: int) -> edge.EdgeConfig:
    return edge.EdgeConfig(
        vectors={DENSE: edge.EdgeVectorParams(size=DENSE_SIZE, distance=edge.Distance.Cosine)},
        # BM25's IDF depends on the whole collection, so the engine computes it at query time;
        # the stored sparse values are only the term-frequency part.
        sparse_vectors={SPARSE: edge.EdgeSparseVectorParams(modifier=edge.Modifier.Idf)},
        # subtle: Qdrant's threshold is the dense vectors' size in KB (float32), not a point count
        optimizers=edge.EdgeOptimizersConfig(indexing_threshold=hnsw_min_points * DENSE_SIZE * 4 // 1024))


def _point(point: Point) -> edge.Point:
    vectors = {DENSE: point.dense, SPARSE: edge.SparseVector(point.sparse.indices, point.sparse.values)}
    return edge.Point(point.id, vectors, point.payload)


def _without_titles(titles: Sequence[str]) -> edge.Filter | None:
    if not titles:
        return None
    return edge.Filter(must_not=[edge.FieldCondition(key="title", match=edge.MatchAny(any=list(titles)))])


def _hit(record, score: float = 0.0) -> Hit:
    # ids come back as uuid.UUID; the interface speaks strings
    return Hit(id=str(record.id), payload=record.payload or {}, dense=record.vector[DENSE], score=score)
