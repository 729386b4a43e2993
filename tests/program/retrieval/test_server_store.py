"""program/retrieval/server_store.py against servers that fail: closed, refusing the key, not Qdrant.
(The schema and queries are in tests/program/retrieval/test_store.py, against qdrant-client's in-memory mode.)"""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from program.retrieval.server_store import ServerStore
from program.retrieval.store import StoreError, StoreUnreachableError
from tests.conftest import send_json


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_closed_port_is_one_line_naming_the_url_at_once():
    url = f"http://127.0.0.1:{closed_port()}"
    started = time.monotonic()
    with pytest.raises(StoreUnreachableError) as error:
        ServerStore.connect(url).require("c")
    assert time.monotonic() - started < 5
    assert str(error.value).startswith(f"the Qdrant server at {url} is unreachable (ConnectError")
    assert "QDRANT_URL" in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize("status, says", [(401, "answered 401 Unauthorized; check QDRANT_API_KEY"),
                                          (404, "answered 404 Not Found; is QDRANT_URL a Qdrant server?")])
def test_a_refusal_is_one_line_naming_the_url_and_the_remedy(status, says):
    class Refusing(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server API
            send_json(self, status, {"status": {"error": "no"}})

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with pytest.raises(StoreError) as error:
            ServerStore.connect(url).exists("c")
    finally:
        server.shutdown()
    assert str(error.value) == f"the Qdrant server at {url} {says}"
    assert not isinstance(error.value, StoreUnreachableError)


def test_a_url_that_is_not_one_is_one_line():
    with pytest.raises(StoreError, match="QDRANT_URL 'ftp://x' is not a Qdrant server URL"):
        ServerStore.connect("ftp://x")


def test_the_server_s_location_never_shows_its_credentials_or_query():

    store = ServerStore.connect("http://admin:pass@127.0.0.1:9/?token=abc")
    assert store.location == "http://127.0.0.1:9/"
    with pytest.raises(StoreError) as error:
        store.require("docs")  # unreachable: the message names the location
    assert "pass" not in str(error.value) and "token" not in str(error.value)
