"""Time the hybrid query of each store engine on synthetic data, and check its recall against numpy.

    python bench/retrieval.py [--sizes 5000,20000,100000] [--queries 200] [--seed 0]

For each size: N random unit dense vectors (384 dims) and N sparse vectors of ~30 terms from a
30k vocabulary (term-frequency-like values), seeded. Each query is a stored point's dense vector
plus noise and 4 of its terms plus 1 random one, like a question near one paragraph. The query is
the one gatedrag runs: dense top-30 and sparse top-30 fused by RRF (k=2), limit 3, payload and
dense vector returned. Engines:
  edge-plain   the embedded store as configured, after finish_bulk: no HNSW below its
               hnsw_min_points (150k), so a brute-force dense scan and the sparse inverted index
  edge-hnsw    the same with HNSW built from 1,000 points on (Qdrant's default m and ef)
  client-local qdrant-client's local mode on a folder (the store before Qdrant Edge); skipped where
               its build passes 5 minutes
recall@3 compares each engine's fused top 3 with the same fusion computed exactly in numpy:
exact cosine top-30, exact sparse dot top-30 with Qdrant's IDF, ln(1 + (N - n + 0.5) / (n + 0.5)).
This script does not touch the configured data dir: every store lives in a temporary folder.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from qdrant_client import QdrantClient

from program.retrieval.edge_store import HNSW_MIN_POINTS, EdgeStore
from program.retrieval.server_store import ServerStore
from program.retrieval.store import DENSE_SIZE, RRF_K, Point, SparseVector, Store

VOCAB, TERMS, CANDIDATES, LIMIT, BATCH = 30_000, 30, 30, 3, 1000
MAX_BUILD_S = 300
TARGETS = "targets: edge p50 <= 20 ms at 5k and <= 50 ms at 100k; recall@3 >= 0.99"


@dataclass
class Data:
    dense: np.ndarray  # (n, 384), unit rows
    terms: np.ndarray  # (n, TERMS) term ids, sorted per row
    weights: np.ndarray  # (n, TERMS)
    queries: list[tuple[np.ndarray, SparseVector]]


def main() -> int:
    args = _parser().parse_args()
    print(TARGETS)
    print(f"{'engine':<13}{'points':>8}{'build s':>10}{'p50 ms':>9}{'max ms':>9}{'recall@3':>10}")
    for size in args.sizes:
        data = synthetic(size, args.queries, np.random.default_rng(args.seed))
        exact = [exact_top(data, dense, sparse) for dense, sparse in data.queries]
        with tempfile.TemporaryDirectory() as folder:
            _bench_edge(data, exact, Path(folder))
            _bench_client_local(data, exact, Path(folder))
    return 0


def synthetic(n: int, queries: int, rng: np.random.Generator) -> Data:
    dense = rng.standard_normal((n, DENSE_SIZE), dtype=np.float32)
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    terms = np.stack([np.sort(rng.choice(VOCAB, TERMS, replace=False)) for _ in range(n)])
    weights = rng.uniform(0.3, 2.0, (n, TERMS)).astype(np.float32)
    picks = rng.integers(0, n, queries)
    asked = []
    for i in picks:
        q = dense[i] + rng.standard_normal(DENSE_SIZE).astype(np.float32) * 0.06
        words = {*rng.choice(terms[i], 4, replace=False).tolist(), int(rng.integers(0, VOCAB))}
        asked.append((q / np.linalg.norm(q), SparseVector(sorted(words), [1.0] * len(words))))
    return Data(dense, terms, weights, asked)


def exact_top(data: Data, dense: np.ndarray, sparse: SparseVector) -> list[int]:
    """The fused top LIMIT, computed exactly: the reference for recall."""
    by_dense = np.argsort(-(data.dense @ dense), kind="stable")[:CANDIDATES]
    n = len(data.dense)
    scores = np.zeros(n, dtype=np.float64)
    for term, value in zip(sparse.indices, sparse.values):
        rows, cols = np.nonzero(data.terms == term)
        idf = np.log(1 + (n - len(rows) + 0.5) / (len(rows) + 0.5))
        scores[rows] += idf * value * data.weights[rows, cols]
    matched = np.flatnonzero(scores)
    by_sparse = matched[np.argsort(-scores[matched], kind="stable")][:CANDIDATES]
    fused: dict[int, float] = {}
    for ranking in (by_dense, by_sparse):
        for rank, i in enumerate(ranking.tolist(), start=1):
            fused[i] = fused.get(i, 0.0) + 1 / (rank + RRF_K - 1)
    return sorted(fused, key=lambda i: -fused[i])[:LIMIT]


def _bench_edge(data: Data, exact: list[list[int]], folder: Path) -> None:
    for engine, hnsw_min_points in (("edge-plain", HNSW_MIN_POINTS), ("edge-hnsw", 1000)):
        store = EdgeStore(folder / engine, hnsw_min_points=hnsw_min_points)
        store.ensure("bench")
        started = time.perf_counter()
        _fill(store, data)
        store.finish_bulk("bench")
        _report(engine, store, data, exact, time.perf_counter() - started)
        store.close()


def _bench_client_local(data: Data, exact: list[list[int]], folder: Path) -> None:
    store = ServerStore(QdrantClient(path=str(folder / "client-local")), "local")
    store.ensure("bench")
    took = _fill(store, data, deadline_s=MAX_BUILD_S)
    if took is None:
        print(f"{'client-local':<13}{len(data.dense):>8}  skipped: too slow to build (over {MAX_BUILD_S} s)")
    else:
        _report("client-local", store, data, exact, took)
    store.close()


def _fill(store: Store, data: Data, deadline_s: float = float("inf")) -> float | None:
    """Seconds to upsert every point, or None once past `deadline_s` (the rest is not written)."""
    started = time.perf_counter()
    for first in range(0, len(data.dense), BATCH):
        # subtle: upserts slow down as local mode's collection grows, so the first batch cannot project the rest
        if time.perf_counter() - started > deadline_s:
            return None
        store.upsert("bench", _points(data, first, min(first + BATCH, len(data.dense))))
    return time.perf_counter() - started


def _points(data: Data, first: int, end: int) -> list[Point]:
    return [Point(_id(i), data.dense[i].tolist(), SparseVector(data.terms[i].tolist(), data.weights[i].tolist()),
                  {"title": f"doc {i}", "doc_id": str(i)}) for i in range(first, end)]


def _id(i: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"bench:{i}"))


def _report(engine: str, store: Store, data: Data, exact: list[list[int]], build_s: float) -> None:
    ids = {_id(i): i for i in range(len(data.dense))}
    times, found = [], 0
    for (dense, sparse), truth in zip(data.queries, exact):
        started = time.perf_counter()
        hits = store.hybrid("bench", dense.tolist(), sparse, limit=LIMIT, candidates=CANDIDATES)
        times.append((time.perf_counter() - started) * 1000)
        found += len({ids[h.id] for h in hits} & set(truth))
    recall = found / (LIMIT * len(exact))
    print(f"{engine:<13}{len(data.dense):>8}{build_s:>10.1f}{statistics.median(times):>9.2f}{max(times):>9.2f}{recall:>10.3f}",
          flush=True)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[5_000, 20_000, 100_000],
                        help="comma-separated point counts (default 5000,20000,100000)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
