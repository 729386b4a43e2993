"""What a remote caller (HTTP or MCP) may ingest: the request's shape, and files only under `ingest_roots`.

A file or folder is allowed only when its resolved path (symlinks followed) lies inside one of the
configured roots; with none configured, remote callers can ingest URLs only. URLs get the same
public-host checks as everywhere (`program.retrieval.fetch`). The CLI is the user's own shell and is
not confined. This module does not ingest anything; see `program.retrieval.ingest`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from program.errors import IngestError
from program.settings import Settings

MAX_SOURCES = 100
MAX_GLOBS = 50


class IngestRequest(BaseModel):
    sources: list[str] = Field(min_length=1, max_length=MAX_SOURCES,
                               description="file or folder paths (under the configured ingest roots), archives, or http(s) URLs")
    collection: str | None = Field(None, description="default: the configured collection")
    include: list[str] = Field([], max_length=MAX_GLOBS, description="globs on paths inside folders and archives")
    exclude: list[str] = Field([], max_length=MAX_GLOBS)
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
        if not any(path.is_relative_to(root) for root in roots):
            raise IngestError(f"{source} is outside the configured ingest roots")
