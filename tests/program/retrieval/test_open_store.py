"""program/retrieval/open_store.py: which store the settings name, one per folder, and the errors a user
meets: an index left by the older local mode, and a folder another process holds."""

import subprocess
import sys
import threading

import pytest

from program.assembly.factory import build_program
from program.base.settings import PROJECT_ROOT, Settings
from program.retrieval import server_store
from program.retrieval.edge_store import EdgeStore
from program.retrieval.open_store import open_store
from program.retrieval.server_store import ServerStore
from program.retrieval.store import CollectionMissingError


def test_the_embedded_store_is_shared_per_folder(tmp_path):
    store = open_store(Settings(_env_file=None, data_dir=tmp_path))
    assert isinstance(store, EdgeStore) and open_store(Settings(_env_file=None, data_dir=tmp_path)) is store
    assert store.folder == (tmp_path / "qdrant-edge").resolve()


def test_a_url_opens_the_server_store_with_its_key(monkeypatch):
    monkeypatch.setattr(server_store, "QdrantClient", lambda **kwargs: kwargs)  # no server to reach
    store = open_store(Settings(_env_file=None, qdrant_url="http://127.0.0.1:9", qdrant_api_key="k"))
    assert isinstance(store, ServerStore) and store.location == "http://127.0.0.1:9"
    assert store.client == {"url": "http://127.0.0.1:9", "api_key": "k", "timeout": 5, "check_compatibility": False}


def test_an_index_of_the_older_local_mode_is_named_with_the_rebuild(tmp_path):
    legacy = tmp_path / "qdrant" / "collection" / "hotpotqa"
    legacy.mkdir(parents=True)
    (legacy / "storage.sqlite").write_bytes(b"")
    settings = Settings(_env_file=None, data_dir=tmp_path)
    with pytest.raises(CollectionMissingError) as missing:
        build_program(settings)
    message = str(missing.value)
    assert "python -m program index" in message and str(tmp_path / "qdrant") in message and "deleted" in message
    assert "\n" not in message


def test_without_an_old_index_the_error_only_says_how_to_build(tmp_path):
    with pytest.raises(CollectionMissingError) as missing:
        open_store(Settings(_env_file=None, data_dir=tmp_path)).require("hotpotqa")
    assert "python -m program index" in str(missing.value) and "older" not in str(missing.value)


def test_a_second_process_gets_one_line_naming_the_remedy(tmp_path):
    held = EdgeStore(tmp_path / "qdrant-edge")
    held.ensure("hotpotqa")  # the folder is made and locked by this process, until it is closed
    done = subprocess.run([sys.executable, "-m", "program", "ask", "Who built the Eiffel Tower?",
                           "--data-dir", str(tmp_path)], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=300)
    held.close()
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "in use by another process" in done.stderr and "QDRANT_URL" in done.stderr


def test_threads_opening_the_store_at_once_share_one(tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path)
    EdgeStore(settings.qdrant_path).close()  # the folder exists, so the first open locks it
    start, opened, errors = threading.Barrier(16), [], []

    def open_one():
        start.wait()
        try:
            opened.append(open_store(settings))
        except Exception as error:  # noqa: BLE001 - any failure fails the test
            errors.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len({id(store) for store in opened}) == 1
