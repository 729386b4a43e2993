"""A fake OpenAI chat-completions server on 127.0.0.1 that can be slow, and tells when a client hangs up.

`content`: the reply, or a function of the request body that gives it. `mode`: "fast" answers at once, "slow" after `slow_s` unless the client hangs up first, "error"
with a 400. A slow request watches its connection: when the client closes it, the request ends
and `hangups` gets the time. `in_flight` counts the requests being handled (llama.cpp's busy slot,
for the fake), and `closed` is set at the first hang-up. Shared by the deadline tests, the
reliability tests and `bench/fault_checks/deadlines.py`.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import dspy

from tests.conftest import send_json


class FakeOpenAI(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, slow_s: float = 30.0, content: str | Callable[[dict], str] = '{"answer": "Paris"}'):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode, self.slow_s, self.content = "fast", slow_s, content
        self.bodies, self.hangups, self.closed = [], [], threading.Event()
        self.in_flight, self._count = 0, threading.Lock()
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def lm(self, cache: bool = False, engine: str = "auto") -> dspy.LM:
        """A DSPy LM for this server (`engine`: DSPy's native lm15 engine, or "litellm")."""
        return dspy.LM("openai/fake", api_base=self.api_base, api_key="x", cache=cache, engine=engine)

    def idle_within(self, seconds: float) -> bool:
        """Whether no request is in flight, now or within `seconds`."""
        end = time.monotonic() + seconds
        while self.in_flight and time.monotonic() < end:
            time.sleep(0.01)
        return self.in_flight == 0

    def close(self) -> None:
        self.shutdown()
        self.server_close()

    def _counted(self, step: int) -> None:
        with self._count:
            self.in_flight += step


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.bodies.append(body)
        self.server._counted(+1)
        try:
            self._answer(body)
        finally:
            self.server._counted(-1)

    def _answer(self, body: dict) -> None:
        if self.server.mode == "error":
            return send_json(self, 400, {"error": {"message": "bad request", "type": "invalid_request_error"}})
        if self.server.mode == "slow" and self._hung_up_within(self.server.slow_s):
            self.server.hangups.append(time.monotonic())
            self.server.closed.set()
            self.close_connection = True
            return
        send_json(self, 200, {"id": "c1", "object": "chat.completion", "created": 0, "model": "fake",
                              "choices": [{"index": 0, "finish_reason": "stop",
                                           "message": {"role": "assistant", "content": self._content(body)}}],
                              "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})

    def _content(self, body: dict) -> str:
        content = self.server.content
        return content(body) if callable(content) else content

    def _hung_up_within(self, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([self.connection], [], [], 0.05)[0]:
                try:
                    return self.connection.recv(1, socket.MSG_PEEK) == b""
                except ConnectionError:
                    return True
        return False

    def log_message(self, *args):
        pass
