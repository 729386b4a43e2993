"""MCP: ingests outside the allowed roots are refused, and searches run safely beside an ingest.

Confinement: through the MCP client, the `ingest` tool is asked for paths a remote caller must not
reach: `..` escapes, absolute paths elsewhere, symlinks (file and folder) pointing out of the root,
hidden files and folders, credentials and key files. Each must be refused, and a folder inside the
root that holds key files (with `include: ["*"]`) must ingest its pages but none of the keys.
Concurrency: 32 `search_corpus` calls are kept in flight at once (each runs in a worker thread of
the server) while the `ingest` tool re-ingests an edited folder over and over, for 60 s (10 s with
--quick): every call must succeed. The corpus is indexed by a child process first, so the first
calls here race to open the store and load the models. A temporary data dir and corpus; never the
project's `.gatedrag`.
"""

from __future__ import annotations

import logging
import tempfile
import threading
import time
from pathlib import Path

import anyio
from mcp import Client

from fault_checks._entry_points import child_env, run_child
from fault_checks._tiny_corpus import COLLECTION, write_pages
from fault_checks.figure import Figure
from program.base.settings import Settings
from program.serving.answerer import Answerer
from program.serving.mcp_server import create_mcp_server

SEARCHERS = 32
SECRET = "hunter2-fault-check"  # in every file that must never reach the index
QUERIES = ["relief valve pressure", "centrifugal pump rotor", "mechanical seal housing", "edited page"]


def run(quick: bool) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="gatedrag-mcp-faults-") as tmp:
        work = Path(tmp).resolve()
        root = write_pages(work / "root" / "pages")
        settings = Settings(_env_file=None, data_dir=work / "data", collection=COLLECTION, web_backend="none",
                            ingest_roots=[work / "root"])
        indexed = run_child("index the corpus", ["-m", "program", "ingest", str(root), "--collection", COLLECTION,
                                                 "--data-dir", str(settings.data_dir), "--no-progress"], child_env())
        if indexed.code != 0:
            raise RuntimeError(indexed.why())
        server = create_mcp_server(Answerer(_no_lm, settings), settings)
        sdk = logging.getLogger("mcp")
        level, sdk.level = sdk.level, logging.CRITICAL  # the SDK logs every refused call; they are counted here
        try:
            return anyio.run(_checks, server, work, root, 10.0 if quick else 60.0)
        finally:
            sdk.setLevel(level)


def _no_lm():
    raise RuntimeError("this check runs no LM")


async def _checks(server, work: Path, root: Path, seconds: float) -> list[Figure]:
    async with Client(server) as client:
        concurrency = await _concurrency(client, root, seconds)  # first: its calls open the store and models
        return [await _confinement(client, work), concurrency]


async def _ingest(client, sources: list[str], **extra):
    result = await client.call_tool("ingest", {"sources": sources, **extra})
    if result.is_error:
        raise RuntimeError(result.content[0].text)
    return result


async def _confinement(client, work: Path) -> Figure:
    refused, missed, outside = 0, [], _outside(work)
    for name, path in outside.items():
        result = await client.call_tool("ingest", {"sources": [str(path)]})
        refused += result.is_error
        missed += [] if result.is_error else [name]
    keys = _keys_folder(work / "root" / "mixed")
    await _ingest(client, [str(keys)], include=["*"])
    leaked = await _search_hits(client, SECRET)
    cases = len(outside)
    measured = (f"{refused}/{cases} remote ingests outside the roots refused (.., absolute, symlinks, hidden, keys); "
                f"a folder of pages and keys: {leaked} key file(s) indexed{'; admitted: ' + ', '.join(missed) if missed else ''}")
    return Figure("mcp", measured, f"{cases}/{cases} refused, 0 keys indexed", refused == cases and leaked == 0)


def _outside(work: Path) -> dict[str, Path]:
    """Each path a remote caller asks for that lies outside the root, or is hidden or a key inside it."""
    root, elsewhere = work / "root", work / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    (elsewhere / "secret.md").write_text(f"# Secret\n\n{SECRET}\n", encoding="utf-8")
    inside = {".hidden.md": None, ".git/notes.md": None, "id_rsa": None, "server.pem": None, "deploy.key": None,
              "credentials.json": None, ".env": None, "notes/.netrc": None}
    for relative in inside:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(f"# Key\n\n{SECRET}\n", encoding="utf-8")
    links = {root / "link.md": elsewhere / "secret.md", root / "linked-folder": elsewhere}
    for link, target in links.items():
        if not link.is_symlink():
            link.symlink_to(target)
    return {"dotdot": root / ".." / "elsewhere" / "secret.md", "dotdot folder": root / "pages" / ".." / "..",
            "absolute": elsewhere / "secret.md", "root's parent": work, "symlink file": root / "link.md",
            "symlink folder": root / "linked-folder", "via symlink folder": root / "linked-folder" / "secret.md",
            **{relative: root / relative for relative in inside}}


def _keys_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "guide.md").write_text("# Guide\n\nThe guide to the mixed folder.\n", encoding="utf-8")
    for name in ("id_rsa", "id_ed25519.pub", "server.pem", "api.key", "credentials", "store.p12"):
        (folder / name).write_text(f"{SECRET}\n", encoding="utf-8")
    return folder


async def _search_hits(client, text: str) -> int:
    result = await client.call_tool("search_corpus", {"query": text, "top_k": 20})
    return sum(text in str(item) for item in (result.structured_content or {}).get("result", []))


async def _concurrency(client, root: Path, seconds: float) -> Figure:
    errors: list[str] = []
    counts = {"searches": 0, "ingests": 0, "peak_threads": threading.active_count()}
    deadline = time.monotonic() + seconds
    async with anyio.create_task_group() as group:
        for n in range(SEARCHERS):
            group.start_soon(_searcher, client, QUERIES[n % len(QUERIES)], deadline, counts, errors)
        group.start_soon(_ingester, client, root, deadline, counts, errors)
        group.start_soon(_watch_threads, deadline, counts)
    measured = (f"{SEARCHERS} concurrent search_corpus calls for {seconds:.0f} s beside {counts['ingests']} ingests: "
                f"{counts['searches']} searches, {len(errors)} exceptions (peak {counts['peak_threads']} threads)"
                f"{'; first: ' + errors[0][:200] if errors else ''}")
    return Figure("mcp", measured, "0 exceptions", not errors and counts["searches"] > 0 and counts["ingests"] > 0)


async def _searcher(client, query: str, deadline: float, counts: dict, errors: list[str]) -> None:
    while time.monotonic() < deadline:
        try:
            result = await client.call_tool("search_corpus", {"query": query, "top_k": 3})
        except Exception as error:  # noqa: BLE001 - every failure is counted, whatever its kind
            errors.append(f"{type(error).__name__}: {error}")
            continue
        if result.is_error:
            errors.append(result.content[0].text)
        else:
            counts["searches"] += 1


async def _ingester(client, root: Path, deadline: float, counts: dict, errors: list[str]) -> None:
    page = root / "edited.md"
    while time.monotonic() < deadline:
        page.write_text(f"# Edited page\n\nRevision {counts['ingests']} of the edited page.\n", encoding="utf-8")
        try:
            await _ingest(client, [str(root)], prune=True)
            counts["ingests"] += 1
        except Exception as error:  # noqa: BLE001 - every failure is counted, whatever its kind
            errors.append(f"ingest: {type(error).__name__}: {error}")


async def _watch_threads(deadline: float, counts: dict) -> None:
    while time.monotonic() < deadline:
        counts["peak_threads"] = max(counts["peak_threads"], threading.active_count())
        await anyio.sleep(0.2)
