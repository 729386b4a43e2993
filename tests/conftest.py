"""Shared fixtures: DSPy settings reset around every test, a scripted fake LM, fake search and web,
and an embedded store on a temporary folder."""

from __future__ import annotations

import copy
import importlib
import json
import logging
from http.server import BaseHTTPRequestHandler

import pytest
from dspy.utils import DummyLM

import program  # noqa: F401  (sets the offline env vars before anything else imports litellm)
from program.retrieval.edge_store import EdgeStore
from program.retrieval.passage import Passage
from program.retrieval.web_search import WebResult, WebSearchError

# the module, not the `dspy.settings` object that shadows its name
dspy_settings = importlib.import_module("dspy.dsp.utils.settings")


@pytest.fixture(autouse=True)
def reset_dspy_settings():
    saved = copy.deepcopy(dict(dspy_settings.main_thread_config))
    yield
    dspy_settings.main_thread_config.clear()
    dspy_settings.main_thread_config.update(saved)


@pytest.fixture
def edge_store(tmp_path):
    """An empty embedded store of its own, closed (lock released) after the test."""
    store = EdgeStore(tmp_path / "qdrant-edge")
    yield store
    store.close()


def scripted_lm(*outputs: dict) -> DummyLM:
    """A fake LM that answers each call with the next dict of output fields, in order."""
    return DummyLM(list(outputs))


def passage(title: str, text: str, source: str = "index", score: float = 0.5, similarity: float | None = 0.6) -> Passage:
    return Passage(chunk_id=f"{source}:{title}", doc_id=title, title=title, text=text, url=f"https://example.org/{title}",
                   score=score, source=source, similarity=similarity)


class FakeSearch:
    """Returns the passages whose title or text shares a word with the query; records queries."""

    def __init__(self, passages: list[Passage]):
        self.passages, self.queries = passages, []

    def __call__(self, query: str, k: int) -> list[Passage]:
        self.queries.append(query)
        words = set(query.lower().split())
        return [p for p in self.passages if words & set(f"{p.title} {p.text}".lower().split())][:k]


class FakeWeb:
    """A web backend returning fixed results, or failing like a real one does."""

    label = "fake web"

    def __init__(self, passages: list[Passage], fail: bool = False):
        self.passages, self.fail, self.queries, self.seconds_left = passages, fail, [], []

    def search(self, query: str, max_results: int | None = None, seconds_left: float | None = None) -> list[WebResult]:
        self.queries.append(query)
        self.seconds_left.append(seconds_left)
        if self.fail:
            raise WebSearchError("backend down")
        return [WebResult(title=p.title, url=p.url, content=p.text, score=p.score) for p in self.passages[: max_results or 5]]


def send_json(handler: BaseHTTPRequestHandler, status: int, payload) -> None:
    """Answer a fake server's request with a JSON body."""
    body = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture
def restore_logging():
    """Puts back the log-record factory a test's log redaction replaced."""
    make = logging.getLogRecordFactory()
    yield
    logging.setLogRecordFactory(make)


@pytest.fixture
def mlflow_left_clean(monkeypatch):
    """Undoes what logging or loading an MLflow model leaves in the process."""
    # subtle: mlflow.set_tracking_uri exports MLFLOW_TRACKING_URI, which later tests' Settings would read
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "")
    monkeypatch.delenv("MLFLOW_TRACKING_URI")
    yield
    # subtle: loading a model makes it "active" for the process, and MLflow then links every later
    # metric, in any store, to it: later tests would hit a foreign-key error
    import mlflow  # deferred: seconds to import, and only MLflow tests need it

    mlflow.clear_active_model()
