"""Load-test the HTTP service: C concurrent clients for a bounded time; errors and p50/p95 latency.

    python bench/serve_load.py [--clients 20] [--seconds 120] [--timeout 60] [--url http://127.0.0.1:8000]

Without `--url` it starts the service in this process on 127.0.0.1 (a free port) with the
configured LM profile and index, DSPy's response cache off, and `--timeout` as the soft
per-request limit. Each client asks the next HotpotQA smoke question (no question twice),
then the next, until `--seconds` have passed; requests in flight then finish. An error is
any non-200 answer or transport failure; zero is the bar. Answers are also counted by kind:
full, time-limited (partial draft), LM busy (retrieval only), and structured fallback.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import uvicorn
from tqdm import tqdm

import program  # noqa: F401  (offline env vars first)
from program.base.settings import Settings
from program.serving.answerer import Answerer, load_program, start_lm
from program.serving.service import create_app


def main() -> int:
    args = _parser().parse_args()
    settings = Settings(serve_timeout_s=args.timeout)
    questions = _questions(settings)
    server = None if args.url else _start(settings)
    url = args.url or f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    try:
        _wait_ready(url)
        records = _run(url, questions, args.clients, args.seconds, client_timeout=args.timeout * 3 + 120)
    finally:
        if server:
            server.should_exit = True
    summary = _summary(records, args)
    print(json.dumps(summary))
    return 0 if summary["errors"] == 0 else 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=120, help="stop issuing new requests after this long")
    parser.add_argument("--timeout", type=float, default=60, help="the service's soft per-request limit (serve_timeout_s)")
    parser.add_argument("--url", help="an already running service; default: start one in this process")
    return parser


def _questions(settings: Settings) -> list[str]:
    splits = json.loads((settings.hotpotqa_dir / "splits.json").read_text())
    rows = {r["question_id"]: r["question_text"] for r in map(json.loads, (settings.hotpotqa_dir / "dev_distractor_500.jsonl").open())}
    return [rows[q] for q in splits["smoke_ids"]] + [rows[q] for q in splits["dev_ids"]]


def _start(settings: Settings):
    rag = load_program(settings)
    answerer = Answerer(lambda: start_lm(rag, settings, cache=False), settings)
    server = uvicorn.Server(uvicorn.Config(create_app(answerer, settings), host="127.0.0.1", port=0, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server


def _wait_ready(url: str, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    while httpx.get(f"{url}/readyz", timeout=10).status_code != 200:
        if time.monotonic() > deadline:
            raise SystemExit(f"the service at {url} was not ready after {timeout_s:.0f} s")
        time.sleep(0.5)


def _run(url: str, questions: list[str], clients: int, seconds: float, client_timeout: float) -> list[dict]:
    stop_at, feed, lock = time.monotonic() + seconds, iter(itertools.cycle(questions)), threading.Lock()
    records: list[dict] = []
    bar = tqdm(desc="requests", unit="req")

    def client() -> None:
        with httpx.Client(base_url=url, timeout=client_timeout) as http:
            while time.monotonic() < stop_at:
                with lock:
                    question = next(feed)
                record = _ask(http, question)
                with lock:
                    records.append(record)
                    bar.update()

    with ThreadPoolExecutor(clients) as pool:
        for future in [pool.submit(client) for _ in range(clients)]:
            future.result()
    bar.close()
    return records


def _ask(http: httpx.Client, question: str) -> dict:
    started = time.perf_counter()
    try:
        response = http.post("/answer", json={"question": question})
        body = response.json() if response.status_code == 200 else {}
        status = response.status_code
    except httpx.HTTPError as error:
        body, status = {"error": f"{type(error).__name__}: {error}"}, None
    warnings = body.get("warnings", [])
    kind = ("error" if status != 200 else "busy" if any(w.startswith("the LM was busy") for w in warnings)
            else "time_limited" if any("time limit" in w for w in warnings)
            else "fallback" if body.get("fallback") else "full")
    return {"seconds": time.perf_counter() - started, "status": status, "kind": kind,
            "error": body.get("error") or (None if status == 200 else f"HTTP {status}")}


def _summary(records: list[dict], args: argparse.Namespace) -> dict:
    latencies = sorted(r["seconds"] for r in records)
    kinds = {k: sum(r["kind"] == k for r in records) for k in ("full", "fallback", "time_limited", "busy", "error")}
    errors = [r["error"] for r in records if r["kind"] == "error"]
    if errors:
        print("errors:", *sorted(set(errors))[:5], sep="\n  ", file=sys.stderr)
    return {"clients": args.clients, "seconds": args.seconds, "timeout_s": args.timeout, "requests": len(records),
            "errors": len(errors), "p50_s": round(_percentile(latencies, 50), 1), "p95_s": round(_percentile(latencies, 95), 1),
            "max_s": round(latencies[-1], 1) if latencies else None, "kinds": kinds,
            "mean_s": round(statistics.mean(latencies), 1) if latencies else None}


def _percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1] if len(values) > 1 else values[0]


if __name__ == "__main__":
    sys.exit(main())
