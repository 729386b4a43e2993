"""program/retrieval/edge_store.py: what only the embedded store does: its folder lock and write times."""

import pytest

from program.retrieval.edge_store import EdgeStore
from program.retrieval.store import Point, SparseVector, StoreInUseError


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
