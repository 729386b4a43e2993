"""program/retrieval/store.py: the store contract, run over both implementations.

`edge` is the embedded Qdrant Edge store on a temporary folder; `server` is the qdrant-client
code path, with qdrant-client's local mode standing in for a server (in memory, or on a folder
where a test reopens it).
"""

import numpy as np
import pytest
from qdrant_client import QdrantClient

from program.retrieval import store as store_module
from program.retrieval.edge_store import EdgeStore
from program.retrieval.server_store import ServerStore
from program.retrieval.store import (
    DENSE_SIZE,
    CollectionMissingError,
    Point,
    SparseVector,
)

TITLES = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon"]


def dense(i: int, scale: float = 1.0) -> list[float]:
    """Point i's direction: mostly axis i, a little of every axis, so all cosines differ."""
    vector = np.full(DENSE_SIZE, 0.01)
    vector[i] = 1.0 + i / 100
    return (scale * vector).tolist()


def points() -> list[Point]:
    # sparse term 100 + i is point i's own term; term 7 is shared by all of them
    return [Point(id=f"00000000-0000-0000-0000-00000000000{i}", dense=dense(i, scale=3.0),
                  sparse=SparseVector([7, 100 + i], [1.0, 1.0]), payload={"title": t, "doc_id": t, "chunk_index": i})
            for i, t in enumerate(TITLES)]


def open_store(kind: str, folder):
    if kind == "edge":
        return EdgeStore(folder / "edge")
    return ServerStore(QdrantClient(path=str(folder / "local")), "local")


@pytest.fixture(params=["edge", "server"])
def reopen(request, tmp_path):
    """Opens a store on one folder; opened again after a close, it must hold what was written."""
    opened = []

    def open_again():
        opened.append(open_store(request.param, tmp_path))
        return opened[-1]

    yield open_again
    for store in opened:
        store.close()


@pytest.fixture(params=["edge", "server"])
def store(request, tmp_path):
    store = EdgeStore(tmp_path / "edge") if request.param == "edge" else ServerStore(QdrantClient(":memory:"), ":memory:")
    store.ensure("c")
    store.upsert("c", points())
    yield store
    store.close()


def test_ensure_creates_once_and_a_missing_collection_names_the_remedy(reopen):
    store = reopen()
    assert not store.exists("c")
    with pytest.raises(CollectionMissingError, match="python -m program index"):
        store.require("c")
    store.ensure("c")
    store.ensure("c")  # a second call keeps the existing collection
    assert store.exists("c") and store.count("c") == 0
    with pytest.raises(ValueError, match="bad collection name"):
        store.ensure("../elsewhere")


def test_fetch_returns_payload_and_the_unit_length_dense_vector(store):
    hits = store.fetch("c", [points()[1].id, "00000000-0000-0000-0000-0000000000ff"])
    assert [(h.id, h.payload["title"], h.score) for h in hits] == [(points()[1].id, "Beta", 0.0)]
    assert np.linalg.norm(hits[0].dense) == pytest.approx(1.0, abs=1e-5)  # stored at 3x length, normalised
    assert np.dot(hits[0].dense, dense(1)) / np.linalg.norm(dense(1)) == pytest.approx(1.0, abs=1e-5)


def test_hybrid_fuses_dense_and_sparse_ranks_with_rrf(store):
    # dense points at Gamma, the sparse query at Beta's own term: each tops its side, the only candidate there
    hits = store.hybrid("c", dense(2), SparseVector([101], [1.0]), limit=5, candidates=1)
    assert {h.payload["title"] for h in hits} == {"Gamma", "Beta"}
    assert [h.score for h in hits] == pytest.approx([0.5, 0.5], abs=1e-6)  # rank 1 on one side: 1 / (1 + RRF_K - 1)
    assert np.dot(hits[0].dense, dense(2 if hits[0].payload["title"] == "Gamma" else 1)) > 0.9
    both = store.hybrid("c", dense(3), SparseVector([103], [1.0]), limit=1, candidates=5)
    assert both[0].payload["title"] == "Delta" and both[0].score == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("kind", ["edge", "server"])
def test_a_tie_at_the_cut_is_broken_by_id_whatever_order_the_points_were_written_in(kind, tmp_path):
    # every point holds only the shared sparse term 7, so the BM25 side is one five-way tie
    found = []
    for written in (points(), points()[::-1]):
        folder = tmp_path / str(len(found))
        store = open_store(kind, folder)
        store.ensure("c")
        for point in written:  # one point per write: the engine's internal order follows the writes
            store.upsert("c", [point])
        found.append([h.id for h in store.hybrid("c", dense(0), SparseVector([7], [1.0]), limit=3, candidates=2)])
        store.close()
    assert found[0] == found[1]


def test_excluded_titles_are_dropped_before_each_side_is_cut(store):
    hidden = ["Delta", "Alpha"]
    hits = store.hybrid("c", dense(3), SparseVector([103, 100], [1.0, 1.0]), limit=2, candidates=2, exclude_titles=hidden)
    # with the filter only after the cut, the two candidates of each side would be the hidden ones
    assert len(hits) == 2 and not {h.payload["title"] for h in hits} & set(hidden)


def test_delete_removes_points_from_every_read(store):
    gone = [points()[0].id, points()[4].id]
    store.delete("c", gone)
    assert store.count("c") == 3 and store.fetch("c", gone) == []
    assert {pid for pid, _ in store.payloads("c", ["title"])} == {p.id for p in points()[1:4]}


def test_payloads_scan_every_page_and_only_the_fields_asked_for(store, monkeypatch):
    monkeypatch.setattr(store_module, "SCROLL_PAGE", 2)
    found = dict(store.payloads("c", ["doc_id"]))
    assert found == {p.id: {"doc_id": p.payload["doc_id"]} for p in points()}


def test_upsert_overwrites_by_id_and_finish_bulk_keeps_the_collection_searchable(store):
    changed = points()[2]
    store.upsert("c", [Point(changed.id, changed.dense, changed.sparse, {**changed.payload, "title": "Gamma II"})])
    store.finish_bulk("c")
    assert store.count("c") == 5
    assert store.hybrid("c", dense(2), SparseVector([102], [1.0]), limit=1, candidates=5)[0].payload["title"] == "Gamma II"


def test_a_reopened_store_holds_what_was_written(reopen):
    store = reopen()
    store.ensure("c")
    store.upsert("c", points())
    store.delete("c", [points()[0].id])
    store.close()
    again = reopen()
    assert again.exists("c") and again.count("c") == 4
    assert again.hybrid("c", dense(1), SparseVector([101], [1.0]), limit=1, candidates=5)[0].payload["title"] == "Beta"
