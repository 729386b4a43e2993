"""What the collection holds: documents, chunks, and when it last changed.

Read-only. `last_indexed` is when gatedrag last wrote the collection, from a stamp the embedded
store keeps beside its shards (Qdrant keeps no write times of its own), so it is None in server mode.
This module does not index or search; see `program.retrieval.ingest` and `program.retrieval.retriever`.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from program.retrieval.store import Store


class CorpusStatus(BaseModel):
    collection: str
    exists: bool
    documents: int = 0
    chunks: int = 0
    last_indexed: datetime | None = Field(None, description="when gatedrag last wrote the collection (an ingest or "
                                          "index); None in server mode, or if written by an older version")
    location: str = Field(description="the embedded store's folder, or the Qdrant server")


def corpus_status(store: Store, collection: str) -> CorpusStatus:
    if not store.exists(collection):
        return CorpusStatus(collection=collection, exists=False, location=store.location)
    # distinct doc ids need one payload-only scan: Qdrant has no distinct count
    documents = len({payload["doc_id"] for _, payload in store.payloads(collection, ["doc_id"])})
    return CorpusStatus(collection=collection, exists=True, documents=documents, chunks=store.count(collection),
                        last_indexed=store.last_write(collection), location=store.location)
