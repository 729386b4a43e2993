"""The Qdrant store: which client to open, and the schema of a gatedrag collection.

Embedded local mode (a folder under the data dir) by default, server mode when QDRANT_URL is set.
Tests pass their own `QdrantClient(":memory:")` to the functions that take a client.
This module does not embed, chunk or search; see `program.retrieval.indexing` and `program.retrieval.retriever`.
"""

from __future__ import annotations

import atexit
import functools

from qdrant_client import QdrantClient, models

from program.settings import Settings

DENSE = "dense"
SPARSE = "bm25"
DENSE_SIZE = 384  # all-MiniLM-L6-v2


def open_client(settings: Settings) -> QdrantClient:
    """The process-wide client for these settings: server when a URL is set, else embedded."""
    if settings.qdrant_url:
        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return _server_client(settings.qdrant_url, api_key)
    return _embedded_client(str(settings.qdrant_path.resolve()))


@functools.cache
def _embedded_client(path: str) -> QdrantClient:
    # subtle: embedded mode takes a file lock on the folder, so a second client on the same
    # path in this process would fail; every caller shares this one.
    client = QdrantClient(path=path)
    # closed before interpreter teardown, when its own __del__ can no longer release the lock
    atexit.register(client.close)
    return client


@functools.cache
def _server_client(url: str, api_key: str | None) -> QdrantClient:
    return QdrantClient(url=url, api_key=api_key)


def ensure_collection(client: QdrantClient, name: str) -> None:
    """Create the collection unless it exists: a cosine dense vector and a BM25 sparse vector."""
    if client.collection_exists(name):
        return
    client.create_collection(
        name,
        vectors_config={DENSE: models.VectorParams(size=DENSE_SIZE, distance=models.Distance.COSINE)},
        # BM25's IDF depends on the whole collection, so Qdrant computes it at query time;
        # the stored sparse values are only the term-frequency part.
        sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
    )
