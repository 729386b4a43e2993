"""Which store a process uses: a Qdrant server when QDRANT_URL is set, else the embedded Qdrant Edge folder.

One store per folder or URL per process, shared by its threads, closed at exit (the embedded one holds a
lock on its folder).
A data dir still holding the older qdrant-client local-mode folder (`<data_dir>/qdrant`) is not
read: a missing collection's error says to rebuild, and that the old folder can be deleted.
This module does not read or write points; see `program.retrieval.store`.
"""

from __future__ import annotations

import atexit
import functools
import threading
from pathlib import Path

from program.base.settings import Settings
from program.retrieval.edge_store import EdgeStore
from program.retrieval.store import Store

_opening = threading.Lock()


def open_store(settings: Settings) -> Store:
    """The process-wide store for these settings."""
    # subtle: threads that open the store at once (the first searches of a server) must share one:
    # a second EdgeStore on the folder would find it locked, by its own process
    with _opening:
        if settings.qdrant_url:
            api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
            return _server_store(settings.qdrant_url, api_key)
        return _edge_store(settings.qdrant_path.resolve(), settings.legacy_qdrant_path.resolve())


@functools.cache
def _edge_store(folder: Path, legacy: Path) -> Store:
    store = EdgeStore(folder, missing_hint=legacy_hint(legacy))
    # closed before interpreter teardown, while the shards can still flush and the lock be released
    atexit.register(store.close)
    return store


@functools.cache
def _server_store(url: str, api_key: str | None) -> Store:
    # imported here: qdrant_client takes about 1.4 s to import, which an embedded setup never pays
    from program.retrieval.server_store import ServerStore

    return ServerStore.connect(url, api_key)


def legacy_hint(legacy: Path) -> str:
    """What to add to a missing collection's error when `legacy` holds a qdrant-client local-mode store."""
    # subtle: qdrant-client's local mode writes <path>/meta.json and <path>/collection/<name>/storage.sqlite
    if not ((legacy / "meta.json").is_file() or any(legacy.glob("collection/*/storage.sqlite"))):
        return ""
    return (f". {legacy} holds an index from an older gatedrag (qdrant-client local mode), which is no longer "
            "read: rebuild it with `python -m program index` (or ingest again); the old folder can then be deleted")
