"""Store faults: a locked, corrupt, missing or unreachable Qdrant against `ask`, `serve`, `eval` and `mcp`, and
/readyz of a running service whose Qdrant server goes away.

Each fault is made for real, on a tiny store in a temporary folder. Locked: this process holds the
embedded store (as a running `serve` would). Corrupt: garbage over one of its files (the shard
config, a segment's description, the write-ahead log, the dense vectors, the payloads) or a status
file cut short, which makes the engine panic. Missing: a data dir with no store, which must still
not exist afterwards. Unreachable: QDRANT_URL at a closed port. Every run must end in one stderr
line naming the store's folder or URL, exit 1, no traceback.
For /readyz: `serve` against a fake Qdrant server on 127.0.0.1 (the one route it calls) with the
openai profile (no LM to load); the fake server then stops, or answers nothing: /readyz must say
503 within 10 s each time, and 200 again once the server is back.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from fault_checks._entry_points import CLOSED_URL, Ended, child_env, run_child
from fault_checks._tiny_corpus import (
    COLLECTION,
    QUESTIONS,
    build_store,
    write_pages,
    write_questions,
)
from fault_checks.figure import Figure
from program.base.settings import PROJECT_ROOT
from program.retrieval.edge_store import EdgeStore

READY_BAR_S = 10.0
# (what is damaged, how): each leaves the shard folder in place, so only reading it can tell
CORRUPTIONS = {
    "config garbage": ("edge_config.json", "garbage"),
    "segment description garbage": ("segments/*/segment.json", "garbage"),
    "write-ahead log garbage": ("wal/open-1", "garbage"),
    "status file cut short (engine panic)": ("segments/*/vector_storage-dense/deleted/status.dat", "truncate"),
    "dense vectors garbage": ("segments/*/vector_storage-dense/vectors/chunk_0.mmap", "garbage"),
    "payloads garbage": ("segments/*/payload_storage/page_0.dat", "garbage"),
}
QUICK_CORRUPTIONS = ("config garbage", "status file cut short (engine panic)")


def run(quick: bool) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="gatedrag-store-faults-") as tmp:
        work = Path(tmp).resolve()
        template = build_store(work / "template", write_pages(work / "pages"))
        questions = write_questions(work / "questions.jsonl")
        figures = [_locked(work, template, questions), _corrupt(work, template, questions, quick),
                   _missing(work, questions), _unreachable(work, questions)]
        return [*figures, _readiness(work)]


def _entry_points(data_dir: Path, questions: Path) -> dict[str, list[str]]:
    common = ["--data-dir", str(data_dir), "--collection", COLLECTION]
    return {"ask": ["-m", "program", "ask", QUESTIONS[0]["question"], *common],
            "serve": ["-m", "program", "serve", "--port", "0", *common],
            "eval": ["-m", "optimize", "eval", "--dataset", str(questions), "--systems", "gated", "--no-progress",
                     "--out", str(data_dir / "runs" / "fault"), *common],
            "mcp": ["-m", "program", "mcp", *common]}


def _runs(label: str, data_dir: Path, questions: Path, names: str, env: dict[str, str],
          unchanged: Callable[[], bool] = lambda: True) -> list[tuple[Ended, bool]]:
    """Every entry point against one fault: (how it ended, whether it met the bar)."""
    ended = []
    for entry, args in _entry_points(data_dir, questions).items():
        outcome = run_child(f"{label} x {entry}", args, env, timeout_s=120)
        ended.append((outcome, outcome.one_line_error(names) and unchanged()
                      and not (data_dir / "runs").exists()))  # eval wrote no run folder
    return ended


def _figure(fault: str, runs: list[tuple[Ended, bool]], extra: str = "") -> Figure:
    good = sum(ok for _, ok in runs)
    missed = "; ".join(e.why() for e, ok in runs if not ok)[:400]
    slowest = max(e.seconds for e, _ in runs)
    measured = (f"{fault}: {good}/{len(runs)} runs of ask/serve/eval/mcp end in one line naming it, exit 1, "
                f"no traceback{extra} (slowest {slowest:.0f} s){'; missed: ' + missed if missed else ''}")
    return Figure("store", measured, f"{len(runs)}/{len(runs)}", good == len(runs))


def _locked(work: Path, template: Path, questions: Path) -> Figure:
    data_dir = work / "locked"
    shutil.copytree(template.parent, data_dir / "qdrant-edge")
    held = EdgeStore(data_dir / "qdrant-edge")  # this process holds it, as a running `serve` would
    try:
        runs = _runs("locked", data_dir, questions, str(data_dir / "qdrant-edge"), child_env())
    finally:
        held.close()
    return _figure("locked embedded store", runs)


def _corrupt(work: Path, template: Path, questions: Path, quick: bool) -> Figure:
    runs = []
    for n, (label, (pattern, how)) in enumerate(CORRUPTIONS.items()):
        if quick and label not in QUICK_CORRUPTIONS:
            continue
        data_dir = work / f"corrupt-{n}"
        shutil.copytree(template.parent, data_dir / "qdrant-edge")
        shard = data_dir / "qdrant-edge" / COLLECTION
        _damage(next(shard.glob(pattern)), how)
        runs += _runs(label, data_dir, questions, str(shard), child_env())
    return _figure(f"corrupt embedded store ({len(runs) // 4} kinds of damage)", runs)


def _damage(path: Path, how: str) -> None:
    size = path.stat().st_size
    path.write_bytes(path.read_bytes()[: size // 2] if how == "truncate" and size > 1 else os.urandom(max(64, min(size, 4096))))


def _missing(work: Path, questions: Path) -> Figure:
    data_dir = work / "missing"
    runs = _runs("missing", data_dir, questions, str(data_dir / "qdrant-edge"), child_env(),
                 unchanged=lambda: not data_dir.exists())
    return _figure("missing store", runs, extra=", the data dir never created")


def _unreachable(work: Path, questions: Path) -> Figure:
    runs = _runs("unreachable", work / "unreachable", questions, CLOSED_URL, child_env(QDRANT_URL=CLOSED_URL))
    return _figure("unreachable Qdrant server (closed port)", runs)


class _FakeQdrant(BaseHTTPRequestHandler):
    """The one route `serve` calls: does a collection exist? Every collection but a `_web` one does."""

    hang = threading.Event()

    def do_GET(self):  # noqa: N802 - the http.server API
        if self.hang.is_set():
            time.sleep(30)  # a server that accepts and never answers
            return
        name = self.path.split("/")[2] if self.path.startswith("/collections/") else ""
        body = json.dumps({"result": {"exists": not name.endswith("_web")}, "status": "ok", "time": 0.0}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _readiness(work: Path) -> Figure:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per poll otherwise, once logging is on
    port = _free_port()
    qdrant = _start_fake(_free_port())
    url = f"http://127.0.0.1:{qdrant.server_address[1]}"
    args = ["-m", "program", "serve", "--port", str(port), "--data-dir", str(work / "ready"), "--collection", COLLECTION]
    child = subprocess.Popen([sys.executable, *args], cwd=PROJECT_ROOT, env=child_env(QDRANT_URL=url),
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        readyz = f"http://127.0.0.1:{port}/readyz"
        started = _until(readyz, 200, 180)
        qdrant.shutdown()
        qdrant.server_close()
        down = _until(readyz, 503, 60)
        qdrant = _start_fake(qdrant.server_address[1])
        back = _until(readyz, 200, 60)
        _FakeQdrant.hang.set()
        hung = _until(readyz, 503, 60)
    finally:
        _FakeQdrant.hang.clear()
        child.terminate()
        child.wait(30)
        qdrant.shutdown()
    measured = (f"/readyz of a running serve: 503 {down:.1f} s after its Qdrant server stopped, 200 {back:.1f} s "
                f"after it came back, 503 {hung:.1f} s after it stopped answering (ready at start in {started:.0f} s)")
    passed = max(down, hung) <= READY_BAR_S and back <= READY_BAR_S
    return Figure("store", measured, f"503 within {READY_BAR_S:.0f} s", passed)


def _start_fake(port: int) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", port), _FakeQdrant)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _until(url: str, status: int, limit_s: float) -> float:
    """Seconds until `url` answers `status` (polled every 0.2 s); infinity if it never does within `limit_s`."""
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        try:
            if httpx.get(url, timeout=30).status_code == status:
                return time.monotonic() - started
        except httpx.TransportError:
            pass  # not listening yet
        time.sleep(0.2)
    return float("inf")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
