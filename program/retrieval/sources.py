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
from collections.abc import Iterator, Sequence
from fnmatch import fnmatch
from pathlib import Path
from typing import NamedTuple

from program.errors import IngestError

ARCHIVES = (".tar.gz", ".tgz", ".tar", ".zip")
# files that hold credentials, whatever folder they sit in
SECRET_FILE = re.compile(r"^(\.env(\..+)?|\.netrc|\.pgpass|\.npmrc|\.pypirc|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|"
                         r"credentials(\.json)?|.+\.(pem|key|p12|pfx|kdbx|keystore|jks))$", re.IGNORECASE)


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


def source_files(root: Path, include: Sequence[str], exclude: Sequence[str], max_bytes: int) -> Iterator[SourceFile]:
    """The files under a resolved file, folder or archive `root`, in a stable order."""
    if root.is_dir():
        yield from _folder(root, include, exclude, max_bytes)
    elif is_archive(root):
        yield from _archive(root, include, exclude, max_bytes)
    else:
        yield SourceFile(str(root), root.name, str(root), root.as_uri(), _read(root, max_bytes))


def selected(path: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    parts = path.split("/")
    if any(part.startswith(".") for part in parts) or SECRET_FILE.match(parts[-1]):
        return False
    return any(fnmatch(path, glob) for glob in include) and not any(fnmatch(path, glob) for glob in exclude)


def _folder(root: Path, include: Sequence[str], exclude: Sequence[str], max_bytes: int) -> Iterator[SourceFile]:
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))  # subtle: in place, so os.walk skips them
        for name in sorted(names):
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if not path.is_symlink() and path.is_file() and selected(relative, include, exclude):
                yield SourceFile(str(root), relative, str(path), path.as_uri(), _read(path, max_bytes))


def _archive(root: Path, include: Sequence[str], exclude: Sequence[str], max_bytes: int) -> Iterator[SourceFile]:
    try:
        if root.name.lower().endswith(".zip"):
            yield from _zip_members(root, include, exclude, max_bytes)
        else:
            yield from _tar_members(root, include, exclude, max_bytes)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as error:
        raise IngestError(f"{root} is not a readable archive: {error}") from None


def _tar_members(root: Path, include: Sequence[str], exclude: Sequence[str], max_bytes: int) -> Iterator[SourceFile]:
    # subtle: "r|*" streams the archive in order, so a .tar.gz is decompressed once, not seeked in
    with tarfile.open(root, "r|*") as tar:
        for member in tar:
            name = member.name.removeprefix("./")
            if member.isfile() and selected(name, include, exclude):
                yield SourceFile(str(root), name, f"{root}!/{name}", "", tar.extractfile(member).read(max_bytes + 1))


def _zip_members(root: Path, include: Sequence[str], exclude: Sequence[str], max_bytes: int) -> Iterator[SourceFile]:
    with zipfile.ZipFile(root) as archive:
        for info in archive.infolist():
            if not info.is_dir() and selected(info.filename, include, exclude):
                with archive.open(info) as member:
                    yield SourceFile(str(root), info.filename, f"{root}!/{info.filename}", "", member.read(max_bytes + 1))


def _read(path: Path, max_bytes: int) -> bytes:
    with path.open("rb") as file:
        return file.read(max_bytes + 1)
