"""A sealed network for fetch tests: every socket connect is recorded, and only one public address works.

`PUBLIC` (a global address) is served by a local HTTP(S) server on 127.0.0.1, so a fetch can reach
"the internet" without leaving this machine; a connect to any other address is refused and recorded,
and name lookups through `socket.getaddrinfo` are refused, so nothing here uses real DNS.
Names reach `fetch` only through an injected resolver (`Resolver`).
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from program.retrieval.addresses import is_public

PUBLIC = "93.184.216.34"


class Handler(BaseHTTPRequestHandler):
    """/page: a text page; /to?u=URL: a 302 to URL; /loop: a 302 to itself; anything else (/secret): a page too."""

    def do_GET(self):
        self.server.paths.append(self.path)
        parts = urlsplit(self.path)
        if parts.path in ("/to", "/loop"):
            target = parse_qs(parts.query)["u"][0] if parts.path == "/to" else "/loop"
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = f"page {parts.path} for {self.headers['Host']}".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # keep test output clean
        pass


@dataclass
class Network:
    port: int
    paths: list[str]  # requested on the server, in order
    connects: list[tuple] = field(default_factory=list)  # every socket.connect target, as asked
    lookups: list[str] = field(default_factory=list)  # names given to socket.getaddrinfo

    def private_connects(self) -> list[tuple]:
        return [target for target in self.connects if not is_public(str(target[0]))]


@contextmanager
def sealed_network(monkeypatch, tls: ssl.SSLContext | None = None) -> Iterator[Network]:
    """Serve `PUBLIC` from 127.0.0.1 (over TLS with `tls`), record and seal every other connect."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    server.paths = []
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    network = Network(port=server.server_address[1], paths=server.paths)
    real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def connect(sock, address):
        network.connects.append(address)
        if address[0] != PUBLIC:
            raise ConnectionRefusedError(f"sealed network: {address[0]} is not reachable")
        return real_connect(sock, ("127.0.0.1", network.port))

    def getaddrinfo(host, *args, **kwargs):
        if host not in (PUBLIC, "127.0.0.1"):
            network.lookups.append(host)
            raise socket.gaierror(f"sealed network: no DNS for {host}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    try:
        yield network
    finally:
        server.shutdown()
        server.server_close()


class Resolver:
    """A DNS that answers from `names`, and `PUBLIC` for any other name, counting its calls.

    Answering PUBLIC for unknown names means a numeric host that fetch failed to read as an
    address would be fetched, not refused: the refusal must come from fetch's own checks.
    `then` is answered instead from call number `flip_after + 1` on (a rebinding DNS)."""

    def __init__(self, names: dict[str, list[str]] | None = None, then: list[str] | None = None, flip_after: int = 0):
        self.names, self.then, self.flip_after, self.calls = names or {}, then, flip_after, 0

    def __call__(self, host: str) -> list[str]:
        self.calls += 1
        if self.then is not None and self.calls > self.flip_after:
            return self.then
        return self.names.get(host, [PUBLIC])
