"""A locked, corrupt, missing or unreachable store ends every entry point in one line naming the folder or URL,
exit 1, with nothing created: each fault made for real on a tiny store, each entry point a child process.
(`python bench/faults.py --only store` runs every fault against every entry point.)"""

from __future__ import annotations

import shutil

import pytest

from program.base.settings import Settings
from program.retrieval.edge_store import EdgeStore
from program.retrieval.ingest import ingest
from tests.reliability.children import CLOSED_URL, one_line_error, run

COLLECTION = "pages"


@pytest.fixture(scope="module")
def store_template(tmp_path_factory):
    """A data dir holding a small collection, released by this process."""
    folder = tmp_path_factory.mktemp("store-template")
    (folder / "docs").mkdir()
    (folder / "docs" / "valves.md").write_text("# Valves\n\nA relief valve opens above its set pressure.\n")
    settings = Settings(_env_file=None, data_dir=folder / "data", collection=COLLECTION)
    store = EdgeStore(settings.qdrant_path)
    ingest([folder / "docs"], settings, store=store)
    store.close()
    return folder / "data"


def ask(data_dir, **env):
    return run("-m", "program", "ask", "When does a relief valve open?", "--data-dir", str(data_dir),
               "--collection", COLLECTION, **env)


def test_a_store_held_by_another_process(store_template, tmp_path):
    shutil.copytree(store_template, tmp_path / "data")
    held = EdgeStore(tmp_path / "data" / "qdrant-edge")
    try:
        line = one_line_error(ask(tmp_path / "data"), str(tmp_path / "data" / "qdrant-edge"))
    finally:
        held.close()
    assert "in use by another process" in line


def test_a_store_whose_files_make_the_engine_panic(store_template, tmp_path):
    shutil.copytree(store_template, tmp_path / "data")
    status = next((tmp_path / "data" / "qdrant-edge" / COLLECTION).glob("segments/*/vector_storage-dense/deleted/status.dat"))
    status.write_bytes(b"")
    done = run("-m", "program", "mcp", "--data-dir", str(tmp_path / "data"), "--collection", COLLECTION,
               RUST_BACKTRACE="1")
    line = one_line_error(done, str(tmp_path / "data" / "qdrant-edge" / COLLECTION))
    assert "cannot be read" in line and "panicked" not in done.stderr


def test_a_missing_store_creates_nothing(tmp_path):
    one_line_error(run("-m", "program", "serve", "--port", "0", "--data-dir", str(tmp_path / "data"),
                       "--collection", COLLECTION), str(tmp_path / "data" / "qdrant-edge"))
    assert not (tmp_path / "data").exists()


def test_an_unreachable_qdrant_server(tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "When does a relief valve open?", "answer": "above its set pressure"}\n')
    done = run("-m", "optimize", "eval", "--dataset", str(questions), "--systems", "gated", "--no-progress",
               "--data-dir", str(tmp_path / "data"), "--collection", COLLECTION, QDRANT_URL=CLOSED_URL)
    assert "is unreachable" in one_line_error(done, CLOSED_URL)
    assert not (tmp_path / "data" / "runs").exists()
