"""A hostile web host on 127.0.0.1 for the fetch tests and `bench/fault_checks/fetches.py`.

Routes: `/trickle` sends a markdown page at `rate` bytes a second, forever; `/bomb` a gzip body that
inflates to `bomb_bytes` of zeros (made as it is sent, so the host holds only its compressed piece);
`/away` redirects to a public address; `/links.md` a 5 MB line of "[a]("; `/page` a markdown page
whose links are relative, after checking it got the credentials the URL carried. Every other path is
404. Fetch it with `GATEDRAG_FETCH_ALLOW_HOSTS=127.0.0.1` (the tests' `allowed` settings).
"""

from __future__ import annotations

import base64
import threading
import time
import zlib
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from program.base.settings import Settings

PAGE = "# Pumps\n\nA pump needs a yearly seal check. See [seals](seals.html) and [valves](/valves.html).\n"
PUBLIC = "http://93.184.216.34/elsewhere"


def allowed(folder: Path, **overrides) -> Settings:
    """Settings that fetch from 127.0.0.1 with the web backend off, as an internal docs host is fetched."""
    return Settings(_env_file=None, data_dir=folder, web_backend="none", fetch_allow_hosts=["127.0.0.1"], **overrides)


class _Handler(BaseHTTPRequestHandler):
    server: _Host

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        self.server.seen.append((self.path, self.headers.get("authorization", "")))
        route = {"/trickle": self._trickle, "/bomb": self._bomb, "/away": self._away,
                 "/links.md": self._links}.get(self.path.split("?")[0], self._page)
        try:
            route()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the fetch hung up: what a deadline or a cap does

    def _head(self, status: int, kind: str = "text/markdown", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()

    def _trickle(self) -> None:
        self._head(200)
        while not self.server.closing:
            self.wfile.write(b"x" * max(1, self.server.rate // 4))
            self.wfile.flush()
            time.sleep(0.25)

    def _bomb(self) -> None:
        self._head(200, Content_Encoding="gzip")
        pack, zeros, left = zlib.compressobj(9, zlib.DEFLATED, 31), bytes(1 << 20), self.server.bomb_bytes
        while left > 0 and not self.server.closing:
            self.wfile.write(pack.compress(zeros[:min(left, len(zeros))]))
            left -= len(zeros)
        self.wfile.write(pack.flush())

    def _away(self) -> None:
        self._head(302, Location=PUBLIC)

    def _links(self) -> None:
        self._head(200)
        self.wfile.write(b"# Links\n\n" + b"[a](" * 1_250_000 + b"\n")  # 5 MB, under the default 5 MiB cap

    def _page(self) -> None:
        if self.path.split("?")[0] != "/page":
            self._head(404)
            return
        self._head(200)
        self.wfile.write(PAGE.encode())

    def log_message(self, *args) -> None:
        pass


class _Host(ThreadingHTTPServer):
    daemon_threads = True
    closing = False

    def __init__(self, rate: int, bomb_bytes: int):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.rate, self.bomb_bytes, self.seen = rate, bomb_bytes, []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def basic(self) -> str:
        """The Authorization header a fetch of `user:pw@` sends."""
        return "Basic " + base64.b64encode(b"user:pw").decode()


@contextmanager
def hostile_host(rate: int = 8, bomb_bytes: int = 2**30):
    host = _Host(rate, bomb_bytes)
    thread = threading.Thread(target=host.serve_forever, daemon=True)
    thread.start()
    try:
        yield host
    finally:
        host.closing = True
        host.shutdown()
        host.server_close()
