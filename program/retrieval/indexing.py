"""Index documents into a Qdrant collection, idempotently.

Each chunk is one point whose id is derived from (doc_id, chunk_index), so re-indexing overwrites
instead of duplicating. A hash of what was embedded is kept in the payload: unchanged chunks are
skipped, changed ones written again, and chunks a document no longer has are deleted. A changed chunk
whose embedded text some point of the collection already holds, embedded by the same model, takes
that point's dense vector (`_KeptVectors`): a new chunking, an edit above a chunk, or a page that
moved changes a chunk's hash, not what the model reads. Every chunk also
keeps its document's hash (`doc_hash`), so `indexed_documents` tells an unchanged document at a glance.
A run that changed anything ends with the store's `finish_bulk` (the embedded store builds HNSW there).
Which process embeds is a `Writer`'s choice: `InProcess` (the default) embeds and writes each batch here;
`program.retrieval.ray_writer` spreads the same batches over a Ray actor pool. Either way this module
decides what to write, and the batches are the same.
`build_indexes` indexes the two HotpotQA corpora of `program.retrieval.corpora`, for `python -m program index`.
This module does not parse data files or search; see `program.retrieval.corpora` and `program.retrieval.retriever`.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Collection, Iterable, Iterator, Sequence
from typing import NamedTuple, Protocol

from pydantic import BaseModel
from tqdm import tqdm

from program.base.settings import Settings
from program.retrieval.chunking import CHUNKING, Chunk, Document, chunk_document
from program.retrieval.corpora import local_documents, web_documents
from program.retrieval.embeddings import Embedder, Embedding, load_embedder
from program.retrieval.open_store import open_store
from program.retrieval.store import Point, Store

BATCH_SIZE = 64  # points per upsert
WINDOW = 256  # chunks read, hashed and sorted by length together: a tenth of the HotpotQA corpus holds two


class IndexStats(BaseModel):
    documents: int
    chunks: int
    embedded: int
    skipped: int  # unchanged since the last run
    deleted: int  # chunks no document has any more
    reused: int = 0  # changed, but written with the dense vector a held point had for the same text


def point_id(doc_id: str, chunk_index: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"gatedrag:{doc_id}#{chunk_index}"))


def embedded_text(chunk: Chunk) -> str:
    """What the embedders read: the title carries the entity name a paragraph often omits."""
    return _embedded(chunk.title, chunk.text)


def _embedded(title: str | None, text: str | None) -> str:
    return f"{title}\n{text}"


class IndexedDocument(BaseModel):
    """What the index holds of one document, from its chunks' payloads."""

    doc_hashes: set[str]  # one value when every chunk was indexed from the same version of it
    chunks: int
    doc_chunks: int  # how many chunks it should have
    root: str = ""
    origin: str = ""
    file_hashes: set[str] = set()


def text_hash(chunk: Chunk, version: str, document: str = "") -> str:
    """`document`: the document's hash, for a chunk whose stored offsets must follow edits elsewhere in it."""
    return _hashed(version, chunk.url, embedded_text(chunk), document)


def _hashed(version: str, url: str, embedded: str, document: str) -> str:
    return hashlib.sha256(f"{version}\n{url}\n{embedded}{document}".encode()).hexdigest()


def document_hash(document: Document, version: str) -> str:
    """What a document's chunks depend on: its content, the embedding version and the chunking."""
    # the file hash is where the document came from, not what it says; a page with no links hashes as before
    # links were read: an index built before either existed stays valid
    unread = {"file_hash"} | (set() if document.links else {"links"})
    return hashlib.sha256(f"{version}\n{CHUNKING}\n{document.model_dump_json(exclude=unread)}".encode()).hexdigest()


class Batch(NamedTuple):
    """Up to `BATCH_SIZE` changed chunks of similar lengths: what is embedded and written together."""

    items: list[tuple[str, Chunk, dict]]  # (point id, chunk, its hashes)
    texts: dict[str, str]  # point id -> the text the models read
    kept: dict[str, list[float]]  # point id -> the dense vector a held point has for that text


class Writer(Protocol):
    """Embeds batches and writes their points, in any order; yields (embedded, reused) once per batch written."""

    version: str  # the embedder's

    def __call__(self, store: Store, collection: str, batches: Iterable[Batch]) -> Iterator[tuple[int, int]]: ...


class InProcess:
    """The default writer: each batch embedded in this process, then written."""

    def __init__(self, embedder: Embedder):
        self.embedder, self.version = embedder, embedder.version

    def __call__(self, store: Store, collection: str, batches: Iterable[Batch]) -> Iterator[tuple[int, int]]:
        for batch in batches:
            store.upsert(collection, points(self.embedder, batch))
            yield len(batch.items) - len(batch.kept), len(batch.kept)


def index_documents(store: Store, collection: str, documents: Iterable[Document], *, embedder: Embedder | None = None,
                    writer: Writer | None = None, progress: bool = True, prune: bool = False,
                    drop: Collection[str] = ()) -> IndexStats:
    """Bring `collection` up to date with `documents`, and delete the documents whose ids are in `drop`;
    with `prune`, drop every other document too. Documents stream through in windows of `WINDOW` chunks,
    so memory holds one window, whatever the corpus (a `writer` may hold more: see its own docstring).
    `writer` embeds and writes (default: `InProcess(embedder)`). With `progress`, the bar counts chunks,
    written or unchanged; when `documents` is a sequence they are chunked once first, to give it its total."""
    writer = writer or InProcess(embedder)
    store.ensure(collection)
    existing = {pid: (p["doc_id"], p["text_hash"]) for pid, p in store.payloads(collection, ["doc_id", "text_hash"])}
    run, kept = _Run(), _KeptVectors(store, collection, writer.version)
    total = count_chunks(documents) if progress and isinstance(documents, Sequence) else None
    with tqdm(desc=f"indexing {collection}", unit="chunk", total=total, disable=not progress) as bar:
        def changed_in(window: list) -> list:
            changed = [item for item in window if existing.get(item[0], (None, None))[1] != item[2]["text_hash"]]
            bar.update(len(window) - len(changed))  # unchanged: nothing to embed, but part of the total
            return changed

        changed = (changed_in(window) for window in _windows(documents, writer.version, run))
        for embedded, reused in writer(store, collection, _batches(changed, kept)):
            run.embedded += embedded
            run.reused += reused
            bar.update(embedded + reused)
    doc_ids = run.doc_ids | set(drop)
    stale = [pid for pid, (doc_id, _) in existing.items() if pid not in run.seen and (prune or doc_id in doc_ids)]
    if stale:
        store.delete(collection, stale)
    if stale or run.embedded or run.reused:
        store.finish_bulk(collection)
    return IndexStats(documents=len(run.doc_ids), chunks=len(run.seen), embedded=run.embedded,
                      skipped=len(run.seen) - run.embedded - run.reused, deleted=len(stale), reused=run.reused)


def count_chunks(documents: Iterable[Document]) -> int:
    """How many chunks the documents give: the progress bar's total. Chunking is text work only, a
    small share of what embedding the same chunks costs."""
    return sum(len(chunk_document(document)) for document in documents)


class _Run:
    """What one indexing run has seen so far: ids only, never texts."""

    def __init__(self):
        self.seen: set[str] = set()  # point ids of every chunk the documents have now
        self.doc_ids: set[str] = set()
        self.embedded = 0
        self.reused = 0


class _KeptVectors:
    """Which point of the collection holds a dense vector for a given embedded text. Read when the first
    changed chunk is written, so a run that changes nothing scans no text. A point counts only if its
    stored hash is the one its payload gives under this embedder's version: that proves the model that
    embedded it."""

    def __init__(self, store: Store, collection: str, version: str):
        self.store, self.collection, self.version = store, collection, version
        self._holders: dict[bytes, str] | None = None

    def take(self, texts: dict[str, str]) -> dict[str, list[float]]:
        """point id -> the dense vector a held point has for that point's embedded text, where one has."""
        holders = self._read() if self._holders is None else self._holders
        wanted = {pid: holder for pid, text in texts.items() if (holder := holders.get(_key(text)))}
        found = {h.id: h for h in self.store.fetch(self.collection, list(set(wanted.values())))} if wanted else {}
        # subtle: a holder may have been overwritten earlier in this run (its chunk moved to another id and
        # another chunk took its place), so its text is checked again as fetched
        return {pid: found[h].dense for pid, h in wanted.items()
                if h in found and _embedded(found[h].payload.get("title"), found[h].payload.get("text")) == texts[pid]}

    def _read(self) -> dict[bytes, str]:
        fields = ["text_hash", "title", "text", "url", "origin", "doc_hash"]
        self._holders = {}
        for pid, p in self.store.payloads(self.collection, fields):
            embedded = _embedded(p.get("title"), p.get("text"))
            document = p.get("doc_hash", "") if p.get("origin") else ""
            if _hashed(self.version, p.get("url"), embedded, document) == p.get("text_hash"):
                self._holders[_key(embedded)] = pid
        return self._holders


def _key(embedded: str) -> bytes:
    return hashlib.sha256(embedded.encode()).digest()[:16]  # a digest, not the text, is held for each point


def _windows(documents: Iterable[Document], version: str, run: _Run) -> Iterator[list[tuple[str, Chunk, dict]]]:
    """(point id, chunk, its hashes) in windows of about `WINDOW` chunks, document by document."""
    window: list[tuple[str, Chunk, dict]] = []
    for document in documents:
        run.doc_ids.add(document.doc_id)
        doc_hash = document_hash(document, version)
        for chunk in chunk_document(document):
            pid = point_id(chunk.doc_id, chunk.chunk_index)
            run.seen.add(pid)
            # subtle: a located chunk (one with an origin) hashes its whole document too, so its offsets are
            # rewritten when text before it moves; corpus chunks keep the hashes their indexes were built with
            extra = {"text_hash": text_hash(chunk, version, doc_hash if chunk.origin else ""), "doc_hash": doc_hash,
                     "file_hash": document.file_hash}
            if chunk.chunk_index == 0 and document.links:  # breadth expansion reads a page's links from here
                extra["links"] = [link.model_dump() for link in document.links]
            window.append((pid, chunk, extra))
        if len(window) >= WINDOW:
            yield window
            window = []
    if window:
        yield window


def _batches(windows: Iterable[list[tuple[str, Chunk, dict]]], kept: _KeptVectors) -> Iterator[Batch]:
    """Each window's chunks in batches of `BATCH_SIZE`, each with the dense vectors held points have for its texts."""
    for pending in windows:
        # subtle: a batch is padded to its longest text, so batches of similar lengths embed faster; sorting
        # within a window (not the corpus) keeps the throughput flat from the first window to the last
        pending.sort(key=lambda item: len(item[1].text))
        for start in range(0, len(pending), BATCH_SIZE):
            items = pending[start:start + BATCH_SIZE]
            texts = {pid: embedded_text(chunk) for pid, chunk, _ in items}
            yield Batch(items, texts, kept.take(texts))


def build_indexes(settings: Settings, *, progress: bool = True) -> dict[str, IndexStats]:
    """The local corpus into `settings.collection`, the web corpus into `settings.resolved_web_collection`."""
    store, embedder = open_store(settings), load_embedder(settings)
    corpora = {settings.collection: local_documents(settings), settings.resolved_web_collection: web_documents(settings)}
    # prune: a paragraph dropped from a corpus (e.g. newly held out) must leave its index too
    return {
        name: index_documents(store, name, documents, progress=progress, prune=True, embedder=embedder)
        for name, documents in corpora.items()
    }


def indexed_documents(store: Store, collection: str) -> dict[str, IndexedDocument]:
    """doc_id -> what the index holds of it: one payload-only scan, no vectors, no text."""
    found: dict[str, IndexedDocument] = {}
    if not store.exists(collection):
        return found
    for _, payload in store.payloads(collection, ["doc_id", "doc_hash", "doc_chunks", "root", "origin", "file_hash"]):
        _count_chunk(found, payload)
    return found


def _count_chunk(found: dict[str, IndexedDocument], payload: dict) -> None:
    document = found.setdefault(payload["doc_id"], IndexedDocument(
        doc_hashes=set(), chunks=0, doc_chunks=payload.get("doc_chunks", 1), root=payload.get("root", ""),
        origin=payload.get("origin", "")))
    document.doc_hashes.add(payload.get("doc_hash", ""))
    document.file_hashes.add(payload.get("file_hash", ""))
    document.chunks += 1


def points(embedder: Embedder, batch: Batch) -> list[Point]:
    """The batch's points; a chunk with a kept dense vector needs only its BM25 vector (no model run)."""
    fresh = [pid for pid, _, _ in batch.items if pid not in batch.kept]
    reused = [pid for pid, _, _ in batch.items if pid in batch.kept]
    vectors = dict(zip(fresh, embedder.documents([batch.texts[pid] for pid in fresh]) if fresh else [], strict=True))
    sparse = embedder.sparse_documents([batch.texts[pid] for pid in reused]) if reused else []
    vectors |= {pid: Embedding(batch.kept[pid], s) for pid, s in zip(reused, sparse, strict=True)}
    return [Point(id=pid, dense=vectors[pid].dense, sparse=vectors[pid].sparse, payload={**chunk.model_dump(), **hashes})
            for pid, chunk, hashes in batch.items]
