"""Hostile files for ingest, beside good ones: names (a byte that is not UTF-8; a newline and 250
characters are odd but good), depth (JSON and Python nested past the parser's limit), size (an archive of many
members, an archive whose members add up past its cap) and encodings (not UTF-8, a page whose
charset is no text encoding), each in a folder of good documents, then `--prune` with filters
narrower than the first ingest's. Figures: good documents lost (bar 0), bad files not named in
one line (bar 0), documents lost to `--prune` (bar 0), archives over a cap not refused (bar 0).
"""

from __future__ import annotations

import io
import os
import tempfile
import zipfile
from pathlib import Path

from qdrant_client import QdrantClient

from fault_checks.figure import Figure
from program.base.errors import IngestError
from program.base.settings import Settings
from program.retrieval.embeddings import load_embedder
from program.retrieval.ingest import ingest
from program.retrieval.server_store import ServerStore

GOOD = {f"guide-{n}.md": f"# Guide {n}\n\nStep {n}: tighten the valve to {n} Nm.\n" for n in range(5)}
GOOD |= {"notes.txt": "The pump needs a yearly seal check.\n", "api.rst": "API\n===\n\nCall open() first.\n"}
# odd names that are still good files: indexed like any other
ODD = {"new\nline.md": "# N\n\nA page whose name holds a newline.\n", "x" * 250 + ".md": "# L\n\nA long name.\n"}
BAD = {os.fsdecode(b"bad-\xff.md"): b"# Bad\n\nA page.\n",
       "deep.json": b"[" * 100_000, "deep.py": b"x = " + b"-" * 5_000 + b"1\n", "calls.py": b"f" + b"(x)" * 5_000,
       "latin1.txt": "caf\xe9".encode("latin-1")}
EMPTY = "empty.md"  # skipped with no error, by design (nothing to index): written beside the bad ones, not counted


def run(quick: bool) -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "docs"
        root.mkdir()
        for name, text in (GOOD | ODD).items():
            (root / name).write_text(text)
        config = Settings(_env_file=None, data_dir=Path(folder), collection="hostile", ingest_archive_max_members=50,
                          ingest_archive_max_bytes=100_000)
        store, embedder = ServerStore(QdrantClient(":memory:"), ":memory:"), load_embedder(config)
        clean = ingest([root], config, store=store, embedder=embedder)
        written = _write_bad(root)
        mixed = ingest([root], config, store=store, embedder=embedder, prune=True)
        unnamed = sum(1 for e in mixed.errors if "\n" in e) + max(0, written - len(mixed.errors))
        narrowed = ingest([root], config, store=store, embedder=embedder, include=["*.md"], prune=True)
        nothing = ingest([root], config, store=store, embedder=embedder, exclude=["*"], prune=True)
        kept = len({p["origin"] for _, p in store.payloads("hostile", ["origin"])})
        refused = _archives_refused(Path(folder), config)
    lost = clean.documents - mixed.documents
    return [Figure("hostile", f"{max(lost, 0)} of {clean.documents} good documents lost beside {written} bad files",
                   "0", lost <= 0),
            Figure("hostile", f"{unnamed} bad files not named in one line ({len(mixed.errors)} reported)", "0",
                   unnamed == 0),
            Figure("hostile", f"{narrowed.deleted + nothing.deleted} documents lost to --prune with narrower filters "
                   f"({kept} of {clean.documents} kept)", "0", narrowed.deleted + nothing.deleted == 0
                   and kept == clean.documents),
            Figure("hostile", f"{2 - refused} of 2 archives over a cap not refused", "0", refused == 2)]


def _write_bad(root: Path) -> int:
    (root / EMPTY).write_bytes(b"")
    written = 0
    for name, data in BAD.items():
        try:
            (root / name).write_bytes(data)
            written += 1
        except OSError:  # a name this file system refuses is no test of ingest
            pass
    return written


def _archives_refused(folder: Path, config: Settings) -> int:
    refused = 0
    for name, members in [("many.zip", {f"m{i}.md": b"# M\n\nx\n" for i in range(60)}),
                          ("big.zip", {f"b{i}.md": b"a" * 50_000 for i in range(3)})]:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for member, data in members.items():
                archive.writestr(member, data)
        (folder / name).write_bytes(buffer.getvalue())
        try:
            ingest([folder / name], config, store=ServerStore(QdrantClient(":memory:"), ":memory:"))
        except IngestError as error:
            refused += "GATEDRAG_INGEST_ARCHIVE_MAX_" in str(error)
    return refused
