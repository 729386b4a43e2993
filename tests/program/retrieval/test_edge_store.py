"""program/retrieval/edge_store.py: what only the embedded store does: its folder lock, write times, damaged
files as one line, and reads beside writes from many threads."""

import threading
import time

import pytest

from program.retrieval.edge_store import EdgeStore
from program.retrieval.store import (
    CollectionMissingError,
    Point,
    SparseVector,
    StoreCorruptError,
    StoreInUseError,
)


def test_a_second_open_of_the_same_folder_is_refused_until_the_first_closes(edge_store):
    edge_store.ensure("c")
    with pytest.raises(StoreInUseError, match="QDRANT_URL"):
        EdgeStore(edge_store.folder)
    edge_store.close()
    again = EdgeStore(edge_store.folder)
    assert again.exists("c")
    again.close()


def test_each_collection_is_a_shard_folder_and_writes_move_last_write(edge_store):
    assert edge_store.last_write("c") is None
    edge_store.ensure("c")
    assert (edge_store.folder / "c").is_dir()
    before = edge_store.last_write("c")
    edge_store.upsert("c", [Point("00000000-0000-0000-0000-000000000001", [1.0] * 384, SparseVector([1], [1.0]),
                                  {"title": "A"})])
    assert edge_store.last_write("c") >= before


def test_reopening_a_store_does_not_move_last_write_and_a_missing_collection_lists_those_there_are(edge_store):
    edge_store.ensure("hotpotqa")
    edge_store.upsert("hotpotqa", [point(1)])
    edge_store.ensure("aws_docs")
    written = edge_store.last_write("hotpotqa")
    edge_store.close()
    time.sleep(0.05)
    again = EdgeStore(edge_store.folder)
    again.count("hotpotqa")
    assert again.last_write("hotpotqa") == written
    with pytest.raises(CollectionMissingError, match=r"'hotpotq' in .* \(it holds: aws_docs, hotpotqa\); build it"):
        again.require("hotpotq")
    again.close()
    with pytest.raises(CollectionMissingError, match="it holds no collection yet"):
        EdgeStore(edge_store.folder.parent / "empty").require("x")


def point(n: int, title: str = "A") -> Point:
    return Point(f"00000000-0000-0000-0000-{n:012d}", [1.0] * 384, SparseVector([n % 7], [1.0]), {"title": title})


def test_a_missing_folder_is_neither_made_nor_locked_until_a_collection_is(tmp_path):
    store = EdgeStore(tmp_path / "qdrant-edge")
    with pytest.raises(CollectionMissingError):
        store.require("c")
    assert not (tmp_path / "qdrant-edge").exists()
    other = EdgeStore(tmp_path / "qdrant-edge")  # nothing is held yet
    store.ensure("c")
    with pytest.raises(StoreInUseError):
        other.count("c")  # the first touch of the folder takes its lock
    store.close()
    other.close()


@pytest.mark.parametrize("damaged, how", [
    ("edge_config.json", "garbage"),
    ("wal/open-1", "garbage"),
    ("segments/*/vector_storage-dense/vectors/chunk_0.mmap", "garbage"),  # only a read finds it
    ("segments/*/vector_storage-dense/deleted/status.dat", "truncate"),  # the engine panics
])
def test_damaged_files_are_one_line_naming_the_shard_and_nothing_on_stderr(tmp_path, capfd, damaged, how):
    store = EdgeStore(tmp_path / "qdrant-edge")
    store.ensure("c")
    store.upsert("c", [point(1)])
    store.close()
    path = next((tmp_path / "qdrant-edge" / "c").glob(damaged))
    path.write_bytes(path.read_bytes()[:path.stat().st_size // 2] if how == "truncate" else b"\x93garbage" * 50)
    capfd.readouterr()
    again = EdgeStore(tmp_path / "qdrant-edge")
    with pytest.raises(StoreCorruptError) as error:
        again.require("c")
    again.close()
    message = str(error.value)
    assert message.startswith(f"the embedded store {tmp_path / 'qdrant-edge' / 'c'} cannot be read (")
    assert "\n" not in message and capfd.readouterr().err == ""


def test_reads_beside_writes_from_many_threads_never_fail(edge_store):
    edge_store.ensure("c")
    edge_store.upsert("c", [point(n) for n in range(50)])
    errors, stop = [], threading.Event()

    def read():
        while not stop.is_set():
            try:
                edge_store.hybrid("c", [1.0] * 384, SparseVector([1], [1.0]), limit=3, candidates=10)
                edge_store.last_write("c")
            except Exception as error:  # noqa: BLE001 - any failure fails the test
                errors.append(error)

    readers = [threading.Thread(target=read) for _ in range(8)]
    for thread in readers:
        thread.start()
    for n in range(50, 80):
        edge_store.upsert("c", [point(n)])
        edge_store.delete("c", [point(n - 50).id])
        edge_store.finish_bulk("c")
    stop.set()
    for thread in readers:
        thread.join()
    assert errors == [] and edge_store.count("c") == 50
