"""What a remote caller (HTTP or MCP) may ingest: the request's shape, and files only under `ingest_roots`.

A file or folder is allowed only when its resolved path (symlinks followed) lies inside one of the
configured roots, is not hidden below it, is not a credentials or key file (`.env`, `id_rsa`,
`*.pem`, ...; inside a folder or archive those are skipped for everyone, see `program.retrieval.sources`)
and is under the size cap; with no roots configured, remote callers can ingest URLs only. URLs get the same
public-host checks as everywhere (`program.retrieval.fetch`). The CLI is the user's own shell and is
not confined. This module does not ingest anything; see `program.retrieval.ingest`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from program.base.errors import IngestError
from program.base.settings import Settings
from program.retrieval.sources import SECRET_FILE

MAX_SOURCES = 100
MAX_GLOBS = 50
MAX_FILE_BYTES = 5 << 20  # a remote caller's single file; documentation pages are far smaller


class IngestRequest(BaseModel):
    sources: list[str] = Field(min_length=1, max_length=MAX_SOURCES,
                               description="file or folder paths (under the configured ingest roots), archives, or http(s) URLs")
    collection: str | None = Field(None, description="the collection to index into (default: the configured one)")
    include: list[str] = Field([], max_length=MAX_GLOBS, description="globs on paths inside folders and "
                                "archives to index (default: every readable file)")
    exclude: list[str] = Field([], max_length=MAX_GLOBS, description="globs on paths inside folders and archives "
                               "to leave out")
    prune: bool = Field(False, description="delete documents from these roots whose files are gone")


def check_confined(sources: list[str], settings: Settings) -> None:
    """Raise IngestError unless every path source lies under `settings.ingest_roots`."""
    roots = [root.expanduser().resolve() for root in settings.ingest_roots]
    for source in sources:
        if "://" in source:
            continue
        if not roots:
            raise IngestError(f"{source}: files cannot be ingested remotely here (no ingest_roots configured); "
                              "URLs can")
        path = Path(source).expanduser().resolve()
        root = next((root for root in roots if path.is_relative_to(root)), None)
        if root is None:
            raise IngestError(f"{source} is outside the configured ingest roots")
        _check_file(source, path, root)


def _check_file(source: str, path: Path, root: Path) -> None:
    """Refuse a hidden path below the root, a credentials file, or a file over the cap; each with its reason."""
    inside = path.relative_to(root).parts
    if any(part.startswith(".") for part in inside):
        raise IngestError(f"{source}: hidden files and folders cannot be ingested remotely")
    if SECRET_FILE.match(path.name):
        raise IngestError(f"{source}: looks like a credentials or key file; refused")
    if path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
        raise IngestError(f"{source}: {path.stat().st_size:,} bytes, over the {MAX_FILE_BYTES:,}-byte cap for remote ingest")
