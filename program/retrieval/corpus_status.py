"""What the collection holds: documents, chunks, and when it last changed.

Read-only. `last_indexed` comes from the embedded store's file time (Qdrant keeps no write
times of its own), so it is None in server mode.
This module does not index or search; see `program.retrieval.ingest` and `program.retrieval.retriever`.
"""

from __future__ import annotations

from datetime import datetime, timezone

from pydantic import BaseModel, Field
from qdrant_client import QdrantClient

from program.settings import Settings


class CorpusStatus(BaseModel):
    collection: str
    exists: bool
    documents: int = 0
    chunks: int = 0
    last_indexed: datetime | None = Field(None, description="when the embedded store last changed; None in server mode")
    location: str = Field(description="the embedded store's folder, or the Qdrant server")


def corpus_status(client: QdrantClient, settings: Settings) -> CorpusStatus:
    name = settings.collection
    location = settings.qdrant_url or str(settings.qdrant_path)
    if not client.collection_exists(name):
        return CorpusStatus(collection=name, exists=False, location=location)
    return CorpusStatus(collection=name, exists=True, documents=_count_documents(client, name),
                        chunks=client.count(name, exact=True).count, last_indexed=_last_write(settings), location=location)


def _count_documents(client: QdrantClient, name: str) -> int:
    """Distinct doc ids: one payload-only scroll (Qdrant has no distinct count)."""
    doc_ids, offset = set(), None
    while True:
        points, offset = client.scroll(name, limit=1000, offset=offset, with_payload=["doc_id"], with_vectors=False)
        doc_ids.update(p.payload["doc_id"] for p in points)
        if offset is None:
            return len(doc_ids)


def _last_write(settings: Settings) -> datetime | None:
    if settings.qdrant_url:
        return None
    # subtle: embedded Qdrant keeps each collection in <path>/collection/<name>/storage.sqlite
    storage = settings.qdrant_path / "collection" / settings.collection / "storage.sqlite"
    if not storage.is_file():
        return None
    return datetime.fromtimestamp(storage.stat().st_mtime, tz=timezone.utc)
