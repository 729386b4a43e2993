"""Expand what the user named (a file, a folder, an archive) into the files to read, as bytes.

A folder is walked recursively and an archive (`.tar.gz`, `.tgz`, `.tar`, `.zip`) read member by
member, never unpacked to disk. In both, a file is kept when its path relative to the root matches
an include glob and no exclude glob (`fnmatch`, so `*` crosses folders: `*.md` matches at any
depth); hidden files and folders (a name starting with "."), credentials and key files (`id_rsa`,
`*.pem`, `credentials.json`, ...: no index should hold them, and a search would give them out) and
symlinks are skipped. A file named directly is always read. Each file is read up to one byte past `max_bytes`, so a reader can refuse
it as too large without holding more. This module does not parse files or fetch URLs; see
`program.retrieval.readers` and `program.retrieval.fetch`.
"""

from __future__ import annotations

import hashlib
import os
import re
import tarfile
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from fnmatch import fnmatch
from pathlib import Path
from typing import NamedTuple

from program.base.errors import IngestError

ARCHIVES = (".tar.gz", ".tgz", ".tar", ".zip")
# files that hold credentials, whatever folder they sit in
SECRET_FILE = re.compile(r"^(\.env(\..+)?|\.netrc|\.pgpass|\.npmrc|\.pypirc|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|"
                         r"credentials(\.json)?|.+\.(pem|key|p12|pfx|kdbx|keystore|jks))$", re.IGNORECASE)


class ArchiveCaps(NamedTuple):
    """How much one archive may hold: file members, and bytes of the members read (declared and read)."""

    members: int
    total_bytes: int


class SourceFile(NamedTuple):
    root: str  # the resolved path the user named: its documents are pruned together
    path: str  # relative to the root, with "/" separators
    origin: str  # how a citation names it: a file path, or archive!/member
    url: str  # a file:// URL, or "" for an archive member
    data: bytes  # at most max_bytes + 1 bytes


def source_id(*parts: str) -> str:
    """A document id from where the document was found (root, path, record), never from its title."""
    return "src:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def check_path(source: Path) -> Path:
    """The resolved path, or IngestError when it is neither a file nor a folder."""
    resolved = source.expanduser().resolve()
    if not resolved.exists():
        raise IngestError(f"no such file or folder: {source}")
    if not (resolved.is_file() or resolved.is_dir()):
        raise IngestError(f"{source} is neither a file nor a folder")
    return resolved


def is_archive(path: Path) -> bool:
    return path.name.lower().endswith(ARCHIVES)


def source_files(root: Path, include: Sequence[str], exclude: Sequence[str], max_bytes: int,
                 caps: ArchiveCaps) -> Iterator[SourceFile]:
    """The files under a resolved file, folder or archive `root`, in a stable order. An archive past
    `caps` is an IngestError naming it, the cap and its setting."""
    if root.is_dir():
        yield from _folder(root, include, exclude, max_bytes)
    elif is_archive(root):
        yield from _archive(root, include, exclude, max_bytes, caps)
    else:
        yield SourceFile(str(root), root.name, str(root), root.as_uri(), _read(root, max_bytes))


def selected(path: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    parts = path.split("/")
    if any(part.startswith(".") for part in parts) or SECRET_FILE.match(parts[-1]):
        return False
    return any(fnmatch(path, glob) for glob in include) and not any(fnmatch(path, glob) for glob in exclude)


HTML_SUFFIXES = (".html", ".htm")  # the suffixes read as HTML pages (see `program.retrieval.readers`)
# what a page is built from, as a documentation build ships it beside the page: `fs.md` (Node's API
# docs), `_sources/x.rst.txt` (Sphinx's copy for its "show source" link), `notes.txt`
_MARKUP = re.compile(r"(\.(rst|md|markdown|txt))+$", re.IGNORECASE)


def twin_pages(origins: Iterable[str]) -> list[tuple[str, str]]:
    """(page, source) pairs among `origins`: an HTML page and the markup it was built from, in the
    page's folder or its build's `_sources/`. Both read, each passage of the page is indexed twice."""
    pages = {origin.rsplit(".", 1)[0]: origin for origin in origins if origin.lower().endswith(HTML_SUFFIXES)}
    twins = []
    for origin in sorted(origins):
        page = _MARKUP.sub("", origin).replace("/_sources/", "/", 1)
        if page != origin and page in pages:
            twins.append((pages[page], origin))
    return twins


def _folder(root: Path, include: Sequence[str], exclude: Sequence[str], max_bytes: int) -> Iterator[SourceFile]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))  # subtle: in place, so os.walk skips them
        for name in sorted(names):
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if not path.is_symlink() and path.is_file() and selected(relative, include, exclude):
                yield SourceFile(str(root), relative, str(path), path.as_uri(), _read(path, max_bytes))


def _archive(root: Path, include: Sequence[str], exclude: Sequence[str], max_bytes: int,
             caps: ArchiveCaps) -> Iterator[SourceFile]:
    # subtle: capped as a whole, not per member: 60 members of 5 MB in a 618 KB zip held 314 M characters
    tally = _Tally(root, caps)
    try:
        if root.name.lower().endswith(".zip"):
            yield from _zip_members(root, include, exclude, max_bytes, tally)
        else:
            yield from _tar_members(root, include, exclude, max_bytes, tally)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as error:
        raise IngestError(f"{root} is not a readable archive: {error}") from None


def _tar_members(root: Path, include: Sequence[str], exclude: Sequence[str], max_bytes: int,
                 tally: _Tally) -> Iterator[SourceFile]:
    # subtle: "r|*" streams the archive in order, so a .tar.gz is decompressed once, not seeked in
    with tarfile.open(root, "r|*") as tar:
        for member in tar:
            name = member.name.removeprefix("./")
            if member.isfile():
                tally.member()
            if member.isfile() and selected(name, include, exclude):
                tally.expect(min(member.size, max_bytes + 1))  # as declared, before reading
                data = tally.read(tar.extractfile(member).read(max_bytes + 1))
                yield SourceFile(str(root), name, f"{root}!/{name}", "", data)


def _zip_members(root: Path, include: Sequence[str], exclude: Sequence[str], max_bytes: int,
                 tally: _Tally) -> Iterator[SourceFile]:
    with zipfile.ZipFile(root) as archive:
        wanted = [i for i in archive.infolist() if not i.is_dir() and selected(i.filename, include, exclude)]
        for info in archive.infolist():  # a zip states every size up front: refused before anything is read
            if not info.is_dir():
                tally.member()
        tally.expect(sum(min(i.file_size, max_bytes + 1) for i in wanted))
        for info in wanted:  # subtle: the sizes a zip states can lie: what is read is counted too
            with archive.open(info) as member:
                data = tally.read(member.read(max_bytes + 1))
                yield SourceFile(str(root), info.filename, f"{root}!/{info.filename}", "", data)


class _Tally:
    """An archive's members and bytes so far, against its caps."""

    def __init__(self, root: Path, caps: ArchiveCaps):
        self.root, self.caps, self.members, self.bytes = root, caps, 0, 0

    def member(self) -> None:
        self.members += 1
        if self.members > self.caps.members:
            raise IngestError(f"{self.root} holds more than {self.caps.members} files "
                              "(GATEDRAG_INGEST_ARCHIVE_MAX_MEMBERS)")

    def expect(self, size: int) -> None:
        """`size` more bytes are about to be read: refused now if they would pass the cap."""
        self._check(self.bytes + size)

    def read(self, data: bytes) -> bytes:
        self.bytes += len(data)
        self._check(self.bytes)
        return data

    def _check(self, total: int) -> None:
        if total > self.caps.total_bytes:
            raise IngestError(f"{self.root} holds more than {self.caps.total_bytes} bytes of files to read "
                              "(GATEDRAG_INGEST_ARCHIVE_MAX_BYTES)")


def _read(path: Path, max_bytes: int) -> bytes:
    with path.open("rb") as file:
        return file.read(max_bytes + 1)
