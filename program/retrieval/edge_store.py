"""The embedded store: Qdrant Edge, Qdrant's Rust engine running in this process.

One shard folder per collection under the store folder (`<data_dir>/qdrant-edge/<collection>`).
Writes go to the shard's write-ahead log, so a reopened folder holds everything written before.
New points land in a plain (brute-force) segment; `finish_bulk` runs the optimizer, which merges
segments and builds HNSW only for a segment past `hnsw_min_points`. Below that a scan is fast and
exact: measured by bench/retrieval.py, a plain hybrid query takes 0.5 ms at 5k points and 14 ms
at 100k with recall@3 1.0, while on its random vectors HNSW at 20k took 22 s to build and fell
to recall@3 0.85 (a worst case for HNSW; real embeddings cluster).
One process at a time: a lock file in the store folder refuses a second one with a clear error. A
folder that is not there is neither created nor locked until a collection is made in it, so asking
a missing store changes nothing. A shard whose files cannot be read is a `StoreCorruptError` naming
its folder, found when it is first opened (`require` opens it and reads one point).
Threads: writes (create, upsert, delete, optimize) take one lock, so they never interleave; reads take
none. qdrant-edge 0.9 holds the GIL for the whole of every call (measured: a 10k-point upsert stalled
another thread for its full 0.56 s), so reads do not run in parallel either, and a read beside a
write sees the shard before or after it, never half of it.
This module does not embed or choose a store; see `program.retrieval.embeddings` and `program.retrieval.open_store`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import qdrant_edge as edge

from program.retrieval.store import (
    DENSE,
    DENSE_SIZE,
    TIE_ROOM,
    SPARSE,
    CollectionMissingError,
    Hit,
    Point,
    SparseVector,
    StoreCorruptError,
    StoreError,
    StoreInUseError,
    check_name,
    fused,
    held,
    paged_payloads,
)

CONFIG_FILE = "edge_config.json"  # written by EdgeShard.create: a folder without it holds no shard
WRITES = ".writes"  # <folder>/.writes/<collection>: when gatedrag last wrote it (the engine touches files on open too)
HNSW_MIN_POINTS = 150_000
LOCK_FILE = ".lock"


class EdgeStore:
    """Collections as Qdrant Edge shards in `folder`; `missing_hint` is added to a missing collection's error.
    `hnsw_min_points` is fixed in a shard when it is created."""

    def __init__(self, folder: Path, missing_hint: str = "", hnsw_min_points: int = HNSW_MIN_POINTS):
        self.folder, self.location, self.missing_hint = folder, str(folder), missing_hint
        self.hnsw_min_points = hnsw_min_points
        self._lock_file = _lock(folder) if folder.is_dir() else None
        self._shards: dict[str, edge.EdgeShard] = {}
        self._opening = threading.Lock()  # the shards and the folder lock
        self._writing = threading.Lock()  # one write at a time

    def exists(self, collection: str) -> bool:
        return collection in self._shards or (self.folder / check_name(collection) / CONFIG_FILE).is_file()

    def collections(self) -> list[str]:
        return sorted(p.parent.name for p in self.folder.glob(f"*/{CONFIG_FILE}")) if self.folder.is_dir() else []

    def require(self, collection: str) -> None:
        if not self.exists(collection):
            raise CollectionMissingError(f"no collection {collection!r} in {self.folder} ({held(self.collections())}); "
                                         f"build it with: python -m program index (or ingest your files){self.missing_hint}")
        probe = edge.QueryRequest(limit=1, query=edge.Query.Nearest([DENSE_SIZE ** -0.5] * DENSE_SIZE, using=DENSE),
                                  with_payload=True, with_vector=[DENSE])
        with self._engine(collection):  # subtle: a garbled vector or payload file shows only when read
            self._shard(collection).query(probe)

    def ensure(self, collection: str) -> None:
        with self._writing, self._opening:
            if not self.exists(collection):
                self._hold_folder()
                with self._engine(collection, write=True):
                    self._shards[collection] = edge.EdgeShard.create(str(self.folder / collection),
                                                                     _config(self.hnsw_min_points))
                self._stamp(collection)

    def upsert(self, collection: str, points: Sequence[Point]) -> None:
        operation = edge.UpdateOperation.upsert_points([_point(p) for p in points])
        with self._writing, self._engine(collection, write=True):
            self._shard(collection).update(operation)
            self._stamp(collection)

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        with self._writing, self._engine(collection, write=True):
            self._shard(collection).update(edge.UpdateOperation.delete_points(list(ids)))
            self._stamp(collection)

    def payloads(self, collection: str, fields: Sequence[str]) -> Iterator[tuple[str, dict[str, Any]]]:
        shard = self._shard(collection)

        def page(offset, limit):
            with self._engine(collection):
                return shard.scroll(edge.ScrollRequest(offset=offset, limit=limit, with_payload=list(fields),
                                                       with_vector=False))
        return paged_payloads(page)

    def hybrid(self, collection: str, dense: list[float], sparse: SparseVector, *, limit: int, candidates: int,
               exclude_titles: Sequence[str] = ()) -> list[Hit]:
        # subtle: the filter goes into each side's query, so each side's `candidates` counts only allowed
        # points and `limit` hits still come back when the best ones are excluded
        hidden = _without_titles(exclude_titles)
        queries = [edge.Query.Nearest(dense, using=DENSE),
                   edge.Query.Nearest(edge.SparseVector(sparse.indices, sparse.values), using=SPARSE)]
        with self._engine(collection):
            shard = self._shard(collection)
            sides = [[_hit(p, p.score) for p in shard.query(edge.QueryRequest(
                limit=candidates + TIE_ROOM, query=query, filter=hidden, with_payload=True, with_vector=[DENSE]))]
                for query in queries]
        return fused(sides, limit=limit, candidates=candidates)

    def fetch(self, collection: str, ids: Sequence[str]) -> list[Hit]:
        with self._engine(collection):
            records = self._shard(collection).retrieve(list(ids), with_payload=True, with_vector=[DENSE])
        return [_hit(r) for r in records]

    def count(self, collection: str) -> int:
        with self._engine(collection):
            return self._shard(collection).count(edge.CountRequest(exact=True))

    def last_write(self, collection: str) -> datetime | None:
        """When gatedrag last created, upserted into or deleted from the collection; None for one
        last written by a version that kept no stamp."""
        try:
            written = (self.folder / WRITES / check_name(collection)).stat().st_mtime
        except FileNotFoundError:
            return None
        return datetime.fromtimestamp(written, tz=timezone.utc)

    def _stamp(self, collection: str) -> None:
        # subtle: not the shard's own file times: opening a shard rewrites some, so a server started
        # an hour ago would say the collection changed then
        stamp = self.folder / WRITES / collection
        stamp.parent.mkdir(exist_ok=True)
        stamp.touch()

    def finish_bulk(self, collection: str) -> None:
        with self._writing, self._engine(collection, write=True):
            shard = self._shard(collection)
            shard.optimize()  # blocks until done; plans nothing for segments under the indexing threshold
            shard.flush()

    def close(self) -> None:
        with self._writing, self._opening:
            for shard in self._shards.values():
                shard.close()
            self._shards.clear()
            if self._lock_file is not None and not self._lock_file.closed:
                self._lock_file.close()  # releases the flock

    def _shard(self, collection: str) -> edge.EdgeShard:
        with self._opening:
            if collection not in self._shards:
                if not self.exists(collection):
                    self.require(collection)  # raises: not there
                self._hold_folder()
                with _rust_panics_quiet(), self._engine(collection):
                    self._shards[collection] = edge.EdgeShard.load(str(self.folder / collection))
            return self._shards[collection]

    def _hold_folder(self) -> None:
        """Create and lock the store folder, the first time this process writes or reads a shard in it."""
        if self._lock_file is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._lock_file = _lock(self.folder)

    @contextlib.contextmanager
    def _engine(self, collection: str, write: bool = False):
        """The engine's failures as one line naming the shard's folder: a read that fails means damaged files."""
        try:
            yield
        except StoreError:
            raise
        except BaseException as error:
            if not _engine_failure(error):
                raise
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            where = self.folder / collection
            if write:
                raise StoreError(f"the embedded store {where} cannot be written ({reason})") from None
            raise StoreCorruptError(f"the embedded store {where} cannot be read ({reason}); rebuild it: delete "
                                    "that folder, then index or ingest again") from None


def _engine_failure(error: BaseException) -> bool:
    """qdrant-edge raises a plain Exception, or pyo3's PanicException (a BaseException, like Ctrl-C) when
    Rust panics; anything else is ours, or an interrupt, and passes through."""
    return type(error) is Exception or type(error).__name__ == "PanicException"


@contextlib.contextmanager
def _rust_panics_quiet():
    """Keep what the engine writes to stderr while a shard loads, and replay it only if the load succeeds.

    subtle: a garbled file can make qdrant-edge panic; Rust prints the panic (and a backtrace when
    RUST_BACKTRACE is set) straight to file descriptor 2 before Python sees a PanicException, and the
    one-line StoreCorruptError raised for it says the same."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        os.write(2, caught.read())  # the load worked: what it said is not ours to drop


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
