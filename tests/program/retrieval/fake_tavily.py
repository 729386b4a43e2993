"""A fake Tavily search API on 127.0.0.1, for the real TavilyClient to call, healthy or failing on demand.

Modes: ok; empty (no results); error (500); slow (answers after 1 s); throttled (429 with
Retry-After: `retry_after`); unauthorized (401); bad_gateway (502); garbage (a 200 that is not
JSON); hang (holds the request until the server is closed). `script` lists the modes of the next
requests in order, then `mode` answers the rest; `error_detail` is what every error says. Each
request is recorded with its arrival time.
Shared by the web-search tests, the reliability tests and `bench/fault_checks/web.py`.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.conftest import send_json

MODES = ("ok", "empty", "error", "slow", "throttled", "unauthorized", "bad_gateway", "garbage", "hang")
FAILING = {"error": (500, {"detail": {"error": "boom"}}), "unauthorized": (401, {"detail": {"error": "Unauthorized"}}),
           "bad_gateway": (502, {"detail": {"error": "bad gateway"}}),
           "throttled": (429, {"detail": {"error": "rate limit exceeded"}})}


class FakeTavily:
    def __init__(self, retry_after: str = "1", error_detail: str | None = None):
        self.requests: list[dict] = []
        self.mode, self.script, self.retry_after = "ok", [], retry_after
        self.error_detail = error_detail  # replaces each failing mode's error message (say, with a key in it)
        self.closed = threading.Event()  # releases hanging requests
        self.server = _Server(("127.0.0.1", 0), _handler(self))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def next_mode(self) -> str:
        return self.script.pop(0) if self.script else self.mode

    def close(self) -> None:
        self.closed.set()
        self.server.shutdown()
        self.server.server_close()

    @staticmethod
    def answer(body: dict) -> dict:
        results = [{"title": f"Page {i}", "url": f"https://example.org/{i}", "content": f"About {body['query']} ({i}).",
                    "score": 0.9 - i / 10, "raw_content": None, "favicon": "https://example.org/favicon.ico"}
                   for i in range(body.get("max_results", 5))]
        return {"query": body["query"], "answer": None, "images": [], "results": results, "response_time": 0.01}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request, client_address):
        pass  # a client that gave up (slow, hang) leaves a broken pipe: expected


def _handler(fake: FakeTavily):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            mode = fake.next_mode()
            fake.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body,
                                  "mode": mode, "at": time.monotonic()})
            if mode == "hang":
                fake.closed.wait()
                return
            if mode == "slow":
                time.sleep(1.0)
            if mode == "garbage":
                return self._send(200, b"<html>upstream proxy error</html>", "text/html")
            status, payload = FAILING.get(mode, (200, None))
            if payload and fake.error_detail is not None:
                payload = {"detail": {"error": fake.error_detail}}
            payload = payload or fake.answer(body)
            if mode == "empty":
                payload["results"] = []
            if mode == "throttled":
                return self._send(status, json.dumps(payload).encode(), "application/json",
                                  {"Retry-After": fake.retry_after})
            send_json(self, status, payload)

        def _send(self, status: int, body: bytes, kind: str, headers: dict | None = None) -> None:
            self.send_response(status)
            for name, value in {"Content-Type": kind, "Content-Length": str(len(body)), **(headers or {})}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # keep test output clean
            pass

    return Handler
