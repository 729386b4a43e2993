"""The HTTP service for real in tests: uvicorn on 127.0.0.1 in a thread, and an httpx client to it."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

import httpx
import uvicorn

from program.base.settings import Settings
from program.serving.answerer import Answerer
from program.serving.service import create_app


def settings(tmp_path, **overrides) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path, profile="local", web_backend="offline", **overrides)


@contextmanager
def serving(answerer: Answerer, config: Settings, wait_ready: bool = True, store_check=None):
    app = create_app(answerer, config, store_check)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            while wait_ready and client.get("/readyz").status_code != 200:
                time.sleep(0.01)
            yield client
    finally:
        server.should_exit = True
        thread.join(10)
