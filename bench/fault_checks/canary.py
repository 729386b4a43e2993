"""Canary secrets: a canary in every key variable, then errors that quote them, induced everywhere they can be.

A child process (`tests.reliability.canary_child`) evaluates, serves HTTP and runs the optimize
job with fake LMs, a failing search and a Tavily that answers 401 quoting the keys, then fails
through the CLI. Every byte it leaves is scanned: stdout, stderr, HTTP bodies, results files
(results.jsonl, trials, summaries, reports), the MLflow store (SQLite and artifacts), the web
cache and program JSON. Figure: canary hits (bar 0), per place; the redaction marker must show
in stderr, the HTTP bodies and the results, or the errors were never induced and the scan proves
nothing. `--quick` changes nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from fault_checks.figure import Figure
from program.base.redaction import MARKER
from tests.reliability.canaries import CANARIES, hits

ROOT = Path(__file__).resolve().parents[2]
PLACES = ("stdout", "stderr", "HTTP bodies", "results files", "MLflow store", "web cache", "program JSON")


def run(quick: bool) -> list[Figure]:
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"} | CANARIES
    with tempfile.TemporaryDirectory() as folder:
        child = subprocess.run([sys.executable, "-m", "tests.reliability.canary_child", folder], cwd=ROOT, env=env,
                               capture_output=True, timeout=1800)
        found, marked, scanned = _scan(Path(folder), {"stdout": child.stdout, "stderr": child.stderr})
    failed_as_asked = child.returncode == 1 and b"error: " in child.stderr
    induced = all(marked[p] for p in ("stderr", "HTTP bodies", "results files"))
    counts = ", ".join(f"{place} {found[place]}" for place in PLACES)
    return [Figure("canary", f"{sum(found.values())} canary hits in {scanned} files and streams ({counts}); "
                             f"errors induced and redacted: {'yes' if induced and failed_as_asked else 'NO'}",
                   "0 hits", sum(found.values()) == 0 and induced and failed_as_asked)]


def _scan(folder: Path, streams: dict[str, bytes]) -> tuple[Counter, Counter, int]:
    """Canary hits and redaction markers per place, and how many files and streams were read."""
    found, marked = Counter({place: 0 for place in PLACES}), Counter()
    items = [(name, data) for name, data in streams.items()]
    items += [(_place(path.relative_to(folder)), path.read_bytes()) for path in folder.rglob("*") if path.is_file()]
    for place, data in items:
        text = data.decode("utf-8", "replace")
        found[place] += len(hits(text))
        marked[place] += text.count(MARKER)
    return found, marked, len(items)


def _place(path: Path) -> str:
    parts = path.parts
    if parts[0] == "http":
        return "HTTP bodies"
    if "web_cache" in parts:
        return "web cache"
    if "mlartifacts" in parts or path.name == "mlflow.db":
        return "MLflow store"
    if path.name in ("program.json", "prompts_only.json", "thresholds.json"):
        return "program JSON"
    return "results files"  # results.jsonl, trials, summaries, reports, job state
