"""Ingest a user's own documents: files, folders, archives and web pages, incrementally.

`ingest` is the one entry point behind the CLI (`python -m program ingest`), the MCP `ingest` tool
and `POST /ingest`. It checks every source first (bad input changes nothing), reads them all
(`program.retrieval.sources`, `program.retrieval.readers`, `program.retrieval.fetch`), then indexes
only the documents whose content hash changed: an unchanged document is neither chunked nor
embedded. With `prune`, documents that came from the named roots but were not found again are
deleted, and only those the filters select whose files are gone (or whose file was read again
without them, as a record dropped from a JSONL file); other documents are never touched. A file that cannot be read (a
malformed record, not UTF-8, too large) is reported in the result and the rest goes on.
Threads: ingests read their sources at once but diff and write one at a time (the CLI, `POST /ingest`
and the MCP tool share the lock); searches take no lock: the store keeps a read beside a write whole
(`program.retrieval.edge_store`), and a search during an ingest sees each document before or after it.
This module does not decide who may ingest what; see `program.serving.ingest_access`.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel
from tqdm import tqdm

from program.base.errors import IngestError
from program.base.settings import Settings
from program.retrieval.chunking import CHUNKING, Document
from program.retrieval.embeddings import VERSION, Embedder, load_embedder
from program.retrieval.fetch import Resolve, check_fetchable, fetch_page
from program.retrieval.indexing import (
    IndexedDocument,
    IndexStats,
    InProcess,
    Writer,
    document_hash,
    index_documents,
    indexed_documents,
)
from program.retrieval.open_store import open_store
from program.retrieval.readers import DEFAULT_INCLUDE, read
from program.retrieval.sources import (
    ArchiveCaps,
    SourceFile,
    check_path,
    selected,
    source_files,
    twin_pages,
)
from program.retrieval.store import Store, check_name
from program.retrieval.stored_url import stored_url

Source = str | Path | Document
_INDEXING = threading.Lock()  # one ingest at a time diffs and writes, in every caller of this process


class IngestReport(BaseModel):
    collection: str
    documents: int  # found in the sources
    chunks: int
    embedded: int
    reused: int = 0  # chunks that changed, written with the dense vector a held chunk of the same text had
    skipped: int  # chunks unchanged since the last run
    deleted: int  # chunks of documents that changed or, with prune, are gone
    errors: list[str] = []  # one line per file that could not be read; nothing of it was indexed
    notes: list[str] = []  # what was indexed but may not be what was meant, with how to change it
    seconds: float

    def summary(self) -> str:
        return (f"{self.collection}: {self.documents} documents, {self.chunks} chunks, {self.embedded} embedded, "
                f"{self.reused} reused, {self.skipped} skipped, {self.deleted} deleted, {len(self.errors)} errors, "
                f"{self.seconds:.1f} s")


class _Read(BaseModel):
    documents: dict[str, Document] = {}  # by doc_id: the first source to give an id wins
    kept: set[str] = set()  # doc_ids of files the index holds unchanged: not parsed again
    errors: list[str] = []
    failed: set[str] = set()  # origins of the files that could not be read: never pruned
    read: set[str] = set()  # origins of the files read whole: what they no longer hold is gone
    unmatched: list[str] = []  # folders and archives no file of which the include globs select


def ingest(sources: Iterable[Source], settings: Settings, *, collection: str | None = None,
           include: Sequence[str] = (), exclude: Sequence[str] = (), prune: bool = False, progress: bool = False,
           store: Store | None = None, embedder: Embedder | None = None, http: httpx.Client | None = None,
           resolve: Resolve | None = None, writer: Writer | None = None, deadline: float | None = None) -> IngestReport:
    """Index `sources` (file or folder paths, archives, http(s) URLs, or `Document`s) into `collection`
    (default `settings.collection`). `include`/`exclude` are globs on paths inside folders and archives
    (default include: every supported suffix). `writer` embeds and writes the changed chunks (default: in
    this process, with `embedder`). `deadline` (time.monotonic): by when every URL must be fetched (each
    gets `fetch_deadline_s` at most anyway). Raises IngestError for a bad source, before any change."""
    started = time.perf_counter()
    collection = check_collection(collection or settings.collection)
    planned = [_check(source, settings, resolve) for source in sources]
    if not planned:
        raise IngestError("nothing to ingest: name at least one file, folder, archive or URL")
    include = include or DEFAULT_INCLUDE
    store = store or open_store(settings)
    version = writer.version if writer else embedder.version if embedder else VERSION
    held = _held_files(indexed_documents(store, collection), version)
    found = _read_all(planned, settings, include, exclude, progress, _Web(http, resolve, deadline), held)
    with _INDEXING:  # the diff below is stale the moment another ingest writes
        indexed = indexed_documents(store, collection)
        changed = [d for d in found.documents.values()
                   if not _unchanged(indexed.get(d.doc_id), document_hash(d, version))]
        roots = {str(p) for p in planned if isinstance(p, Path)}
        drop = [doc_id for doc_id, held in indexed.items() if prune and held.root in roots
                and doc_id not in found.documents and doc_id not in found.kept and _gone(held, found, include, exclude)]
        stats = IndexStats(documents=0, chunks=0, embedded=0, skipped=0, deleted=0)
        if changed or drop:  # subtle: nothing to do must not even load the embedding models
            stats = index_documents(store, collection, changed, progress=progress, drop=drop,
                                    writer=writer or InProcess(embedder or load_embedder(settings)))
    changed_ids = {d.doc_id for d in changed}
    unchanged = sum(indexed[d].chunks for d in [*found.documents, *found.kept] if d not in changed_ids and d in indexed)
    return IngestReport(collection=collection, documents=len(found.documents) + len(found.kept),
                        chunks=stats.chunks + unchanged,
                        embedded=stats.embedded, reused=stats.reused, skipped=stats.skipped + unchanged,
                        deleted=stats.deleted,
                        errors=found.errors, notes=_notes(found, include), seconds=round(time.perf_counter() - started, 3))


def _notes(found: _Read, include: Sequence[str]) -> list[str]:
    """What the user may not have meant. A folder none of whose files the include globs select gave
    nothing, which a count of 0 documents does not explain. A documentation build that ships its
    sources beside its pages holds each page twice, in two renderings too different to be one text
    (`retriever.distinct`): search would give one passage two of its k hits. Which to keep is the
    user's choice, so this only says so."""
    globs = "the suffixes ingest reads" if tuple(include) == DEFAULT_INCLUDE else " ".join(include)
    notes = [f"no file under {_shown(root)} matches {globs}: --include '*.EXT' reads others (as plain text when "
             "no reader knows the suffix)" for root in found.unmatched]
    if twins := twin_pages(found.read):
        page, source = (_shown(origin) for origin in twins[0])
        notes.append(f"{len(twins)} page(s) were read twice, as HTML and as the source it was built from ({page} "
                     f"and {source}), so search can find each passage twice: --include or --exclude keeps one")
    return notes


def check_collection(name: str) -> str:
    """The store's own rule (`check_name`), as an ingest error: one rule for every caller.
    subtle: a second rule here once let "mine\\n" through (`.match` with `$`), and the store's
    stricter check then failed every /search, /corpus and /ingest on it with HTTP 500."""
    try:
        return check_name(name)
    except ValueError as error:
        raise IngestError(str(error)) from None


def _check(source: Source, settings: Settings, resolve: Resolve | None) -> Document | Path | str:
    """A Document as it is, a URL checked (and the backend that can fetch it), a path resolved."""
    if isinstance(source, Document):
        return source
    if "://" in str(source):
        check_fetchable(str(source), settings, resolve)
        return str(source)
    return check_path(Path(source))


# bump when a reader makes another document of the same bytes (2: markdown headings lost their inline
# HTML; 3: HTML lost its buttons, permalink anchors, inline escapes and site banner; 4: HTML keeps wrapped
# headings; 5: HTML loses texinfo's navigation lines, and a code fence glued to a line's end gets a line of its
# own; 6: HTML loses DocBook's and gtk-doc's navigation tables; 7: an escaped "\~\~\~" line stays escaped,
# not a code fence; 8: every `<pre>` is a code block, and a table of contents goes with its heading; 9: a
# `<div>`'s loose text is a paragraph; 10: a plain-text file is a "text" document, cut at its headings and
# packed; 11: MDX pages and Jupyter notebooks are read, and a markdown page's front matter gives its
# title; 12: a reStructuredText page's title is its first section title, after any directive that opens
# it): every held file is then read again, and only documents that came out different are embedded. A new chunking is `chunking.CHUNKING`'s bump: a document's hash holds it
READERS = 12


class _HeldFiles(NamedTuple):
    """The files whose documents the index holds whole, each from one version of its file."""

    version: str  # the embedder's: a new model reads every file again
    files: dict[str, tuple[str, list[str]]]  # origin -> (its file hash, its doc_ids)

    def digest(self, file: SourceFile) -> str:
        """What a file's chunks depend on: its bytes, where it is, the readers, the chunking and the embedding version."""
        return hashlib.sha256(f"{self.version}\n{READERS}\n{CHUNKING}\n{file.origin}\n{file.url}\n".encode() + file.data).hexdigest()

    def unchanged(self, file: SourceFile, digest: str) -> list[str]:
        """The doc_ids the index holds of `file` when it is unchanged; [] when it must be read."""
        held_digest, doc_ids = self.files.get(file.origin, ("", []))
        return doc_ids if held_digest == digest else []


def _held_files(indexed: dict[str, IndexedDocument], version: str) -> _HeldFiles:
    by_origin: dict[str, list[tuple[str, IndexedDocument]]] = {}
    for doc_id, document in indexed.items():
        by_origin.setdefault(document.origin, []).append((doc_id, document))
    files = {}
    for origin, documents in by_origin.items():
        hashes = set().union(*(d.file_hashes for _, d in documents))
        if len(hashes) == 1 and "" not in hashes and all(d.chunks == d.doc_chunks for _, d in documents):
            files[origin] = hashes.pop(), [doc_id for doc_id, _ in documents]
    return _HeldFiles(version, files)


class _Web(NamedTuple):
    """How URLs are fetched: the client and resolver tests replace, and the deadline."""

    http: httpx.Client | None
    resolve: Resolve | None
    deadline: float | None


def _read_all(planned: list[Document | Path | str], settings: Settings, include: Sequence[str],
              exclude: Sequence[str], progress: bool, web: _Web, held: _HeldFiles) -> _Read:
    found = _Read()
    with tqdm(desc="reading", unit="file", disable=not progress) as bar:
        for item in planned:
            for documents in _documents(item, settings, include, exclude, web, found, held):
                for document in documents:
                    found.documents.setdefault(document.doc_id, document)
                bar.update()
    return found


def _documents(item: Document | Path | str, settings: Settings, include: Sequence[str], exclude: Sequence[str],
               web: _Web, found: _Read, held: _HeldFiles) -> Iterator[list[Document]]:
    """Each file's documents in turn; a file that cannot be read is reported in `found` instead, and one
    the index holds unchanged is only noted there."""
    if isinstance(item, Document):
        yield [item]
    elif isinstance(item, str):
        yield _page(item, settings, web)
    else:
        caps = ArchiveCaps(settings.ingest_archive_max_members, settings.ingest_archive_max_bytes)
        files = 0
        for files, file in enumerate(source_files(item, include, exclude, settings.ingest_max_bytes, caps), 1):
            try:
                _check_name(file.origin)
                digest = held.digest(file)
                if kept := held.unchanged(file, digest):
                    found.kept.update(kept)
                    found.read.add(file.origin)
                    continue
                if not file.data.strip():  # an empty `__init__.py` is in every package: nothing to index, no error
                    found.read.add(file.origin)
                    continue
                documents = [d.model_copy(update={"file_hash": digest}) for d in read(file, settings.ingest_max_bytes)]
            except Exception as error:  # noqa: BLE001 - one bad file is reported with its reason; the rest goes on
                found.errors.append(str(error) if isinstance(error, IngestError) else
                                    f"{_shown(file.origin)}: cannot be read ({type(error).__name__})")
                found.failed.add(file.origin)
                continue
            found.read.add(file.origin)
            yield documents
        if not files:
            found.unmatched.append(str(item))


def _check_name(origin: str) -> None:
    """A file whose name holds a byte that is not UTF-8 cannot be stored or cited: it is reported."""
    try:
        origin.encode("utf-8")
    except UnicodeEncodeError:
        raise IngestError(f"{_shown(origin)}: its name is not UTF-8") from None


def _shown(origin: str) -> str:
    """A file name as a one-line message can show it: undecodable bytes and newlines escaped."""
    return origin if origin.isprintable() else repr(origin)[1:-1]


def _page(url: str, settings: Settings, web: _Web) -> list[Document]:
    """The page's documents, under URLs without credentials (`stored_url`): the fetch alone used them."""
    page = fetch_page(url, settings, http=web.http, resolve=web.resolve, deadline=web.deadline)
    suffix = ".html" if "html" in page.content_type else ".md" if "markdown" in page.content_type else ".txt"
    final = stored_url(page.url)
    name = urlsplit(final).path.rsplit("/", 1)[-1] or urlsplit(final).hostname or ""
    # the URL as asked is the root, so asking again replaces the page even if its redirects changed
    file = SourceFile(root=stored_url(url), path=name, origin=final, url=final, data=page.text.encode())
    return read(file, settings.ingest_max_bytes, suffix)


def _gone(held: IndexedDocument, found: _Read, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """Whether a document of a pruned root is gone: its file was read again without it, or the
    filters select its file and that file no longer exists.
    subtle: filters narrower than the first ingest's (`--include '*.md'`, or `exclude: ["*"]`
    over HTTP) once deleted every document they did not select, though its file was still there."""
    if held.origin in found.failed:
        return False
    if held.origin in found.read:
        return True
    if held.origin.startswith(f"{held.root}!/"):  # a member the archive, read whole, no longer holds
        return selected(held.origin.split("!/", 1)[1], include, exclude)
    origin = Path(held.origin)
    relative = origin.name if held.origin == held.root else held.origin.removeprefix(f"{held.root}/")
    return selected(relative, include, exclude) and not origin.exists()


def _unchanged(held: IndexedDocument | None, digest: str) -> bool:
    """Indexed whole from this very content: every chunk there, each with this document hash."""
    return held is not None and held.doc_hashes == {digest} and held.chunks == held.doc_chunks
