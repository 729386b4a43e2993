"""The server store: the store interface over qdrant-client, for a Qdrant server (QDRANT_URL).

The same schema and the same hybrid query as the embedded store. The server builds its own
indexes in the background, so `finish_bulk` does nothing, and it keeps no write times, so
`last_write` is None. A server that does not answer (down, a wrong URL, a network fault; at most
`TIMEOUT_S` per request) is a `StoreUnreachableError` naming its URL, and a refusal (a bad API key)
a `StoreError`: one line each, never qdrant-client's traceback. Tests run this code against
`QdrantClient(":memory:")` and a fake server on 127.0.0.1.
This module does not choose a store; see `program.retrieval.open_store`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

import httpx
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from program.base.redaction import shown_url
from program.retrieval.store import (
    DENSE,
    DENSE_SIZE,
    SPARSE,
    CollectionMissingError,
    Hit,
    Point,
    SparseVector,
    StoreError,
    StoreUnreachableError,
    TIE_ROOM,
    check_name,
    fused,
    held,
    paged_payloads,
)

TIMEOUT_S = 5  # per request; a hybrid query on a healthy server takes milliseconds


class ServerStore:
    def __init__(self, client: QdrantClient, location: str):
        self.client, self.location = client, location

    @classmethod
    def connect(cls, url: str, api_key: str | None = None) -> ServerStore:
        # no version check: it runs in a thread of its own and warns on stderr when the server is down
        try:
            return cls(QdrantClient(url=url, api_key=api_key, timeout=TIMEOUT_S, check_compatibility=False), shown_url(url))
        except ValueError as error:
            raise StoreError(f"QDRANT_URL {shown_url(url)!r} is not a Qdrant server URL ({type(error).__name__})") from None

    def exists(self, collection: str) -> bool:
        with self.reaching():
            return self.client.collection_exists(check_name(collection))

    def collections(self) -> list[str]:
        with self.reaching():
            return sorted(c.name for c in self.client.get_collections().collections)

    def require(self, collection: str) -> None:
        if not self.exists(collection):
            raise CollectionMissingError(f"no collection {collection!r} on {self.location} ({held(self.collections())}); "
                                         "build it with QDRANT_URL set: python -m program index (or ingest your files)")

    def ensure(self, collection: str) -> None:
        if self.exists(collection):
            return
        with self.reaching():
            self.client.create_collection(
                collection,
                vectors_config={DENSE: models.VectorParams(size=DENSE_SIZE, distance=models.Distance.COSINE)},
                # BM25's IDF depends on the whole collection, so Qdrant computes it at query time
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)})

    def upsert(self, collection: str, points: Sequence[Point]) -> None:
        structs = [models.PointStruct(id=p.id, vector={DENSE: p.dense, SPARSE: _sparse(p.sparse)}, payload=p.payload)
                   for p in points]
        with self.reaching():
            self.client.upsert(collection, points=structs, wait=True)

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        with self.reaching():
            self.client.delete(collection, points_selector=models.PointIdsList(points=list(ids)), wait=True)

    def payloads(self, collection: str, fields: Sequence[str]) -> Iterator[tuple[str, dict[str, Any]]]:
        def page(offset, limit):
            with self.reaching():
                return self.client.scroll(collection, limit=limit, offset=offset, with_payload=list(fields),
                                          with_vectors=False)
        return paged_payloads(page)

    def hybrid(self, collection: str, dense: list[float], sparse: SparseVector, *, limit: int, candidates: int,
               exclude_titles: Sequence[str] = ()) -> list[Hit]:
        # subtle: the filter sits in each side's query, so each side's `candidates` counts only allowed points
        hidden = _without_titles(exclude_titles)
        requests = [models.QueryRequest(query=query, using=using, limit=candidates + TIE_ROOM, filter=hidden,
                                        with_payload=True, with_vector=[DENSE])
                    for query, using in ((dense, DENSE), (_sparse(sparse), SPARSE))]
        with self.reaching():
            responses = self.client.query_batch_points(collection, requests=requests)
        return fused([[_hit(p, p.score) for p in response.points] for response in responses], limit=limit,
                     candidates=candidates)

    def fetch(self, collection: str, ids: Sequence[str]) -> list[Hit]:
        with self.reaching():
            records = self.client.retrieve(collection, ids=list(ids), with_payload=True, with_vectors=[DENSE])
        return [_hit(r) for r in records]

    def count(self, collection: str) -> int:
        with self.reaching():
            return self.client.count(collection, exact=True).count

    def last_write(self, collection: str) -> datetime | None:
        return None

    def finish_bulk(self, collection: str) -> None:
        return None

    def close(self) -> None:
        self.client.close()

    @contextlib.contextmanager
    def reaching(self):
        """qdrant-client's failures as one line naming the server: unreachable, refused, or an error it sent."""
        try:
            yield
        except (ResponseHandlingException, httpx.TransportError) as error:
            source = getattr(error, "source", error)
            if not isinstance(source, httpx.TransportError):  # a reply it could not read
                raise StoreError(f"the Qdrant server at {self.location} sent a reply that cannot be read "
                                 f"({type(source).__name__})") from None
            raise StoreUnreachableError(f"the Qdrant server at {self.location} is unreachable ({_reason(source)}); "
                                        "start it, or check QDRANT_URL") from None
        except UnexpectedResponse as error:
            hint = {401: "; check QDRANT_API_KEY", 403: "; check QDRANT_API_KEY",
                    404: "; is QDRANT_URL a Qdrant server?"}.get(error.status_code or 0, "")
            raise StoreError(f"the Qdrant server at {self.location} answered {error.status_code} "
                             f"{error.reason_phrase}{hint}") from None


def _reason(error: httpx.TransportError) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _sparse(vector: SparseVector) -> models.SparseVector:
    return models.SparseVector(indices=vector.indices, values=vector.values)


def _without_titles(titles: Sequence[str]) -> models.Filter | None:
    if not titles:
        return None
    return models.Filter(must_not=[models.FieldCondition(key="title", match=models.MatchAny(any=list(titles)))])


def _hit(record: models.Record | models.ScoredPoint, score: float = 0.0) -> Hit:
    return Hit(id=str(record.id), payload=record.payload or {}, dense=record.vector[DENSE], score=score)
