"""program/retrieval/indexing.py: idempotent indexing with the real embedding models on a handful of docs."""

from program.base.settings import Settings
from program.retrieval.chunking import Document
from program.retrieval.indexing import build_indexes, index_documents, point_id
from program.retrieval.open_store import open_store


def docs(**texts: str) -> list[Document]:
    return [Document(doc_id=name, title=name, text=text, url=f"https://example.org/{name}") for name, text in texts.items()]


def files(**texts: str) -> list[Document]:
    """Documents read from files, as ingest makes them: their chunks' hashes follow the whole document."""
    return [d.model_copy(update={"origin": f"/docs/{d.doc_id}.txt"}) for d in docs(**texts)]


CORPUS = docs(Alpha="Alpha is a lighthouse.", Beta="Beta is a bakery.\n\nIt sells bread.", Gamma="Gamma is a river.")


def index(store, documents, embedder, **kwargs):
    return index_documents(store, "c", documents, progress=False, embedder=embedder, **kwargs)


def test_indexing_twice_neither_duplicates_nor_re_embeds(edge_store, embedder):
    first = index(edge_store, CORPUS, embedder)
    assert (first.documents, first.chunks, first.embedded, first.skipped) == (3, 4, 4, 0)
    embedder.texts.clear()
    second = index(edge_store, CORPUS, embedder)
    assert (second.embedded, second.skipped, second.deleted) == (0, 4, 0)
    assert embedder.texts == []
    assert edge_store.count("c") == 4


def test_a_changed_document_is_the_only_one_re_embedded(edge_store, embedder):
    index(edge_store, CORPUS, embedder)
    embedder.texts.clear()
    changed = docs(Alpha="Alpha is a lighthouse.", Beta="Beta is a bakery.\n\nIt sells cakes.", Gamma="Gamma is a river.")
    stats = index(edge_store, changed, embedder)
    assert stats.embedded == 1 and embedder.texts == ["Beta\nIt sells cakes."]
    point = edge_store.fetch("c", [point_id("Beta", 1)])[0]
    assert point.payload["text"] == "It sells cakes."
    assert edge_store.count("c") == 4


def test_a_chunk_whose_hash_changed_but_not_its_text_keeps_its_dense_vector(edge_store, embedder, monkeypatch):
    index(edge_store, files(**{d.doc_id: d.text for d in CORPUS}), embedder)
    before = {h.id: h.dense for h in edge_store.fetch("c", [point_id("Beta", 0), point_id("Beta", 1)])}
    embedder.texts.clear()
    monkeypatch.setattr("program.retrieval.indexing.CHUNKING", -1)  # a new chunking: every document hash moves
    grown = files(Alpha="Alpha is a lighthouse.", Beta="Beta is a bakery.\n\nIt sells bread.\n\nIt opens at six.",
                 Gamma="Gamma is a river.")
    stats = index(edge_store, grown, embedder)
    assert (stats.embedded, stats.reused, stats.skipped) == (1, 4, 0)
    assert embedder.texts == ["Beta\nIt opens at six."]  # the model reads only the new text
    assert sorted(embedder.sparse_texts) == ["Alpha\nAlpha is a lighthouse.", "Beta\nBeta is a bakery.",
                                             "Beta\nIt sells bread.", "Gamma\nGamma is a river."]
    after = {h.id: h.dense for h in edge_store.fetch("c", list(before))}
    assert after == before
    # and the rewritten points search as the fresh ones did
    assert edge_store.fetch("c", [point_id("Beta", 1)])[0].payload["text"] == "It sells bread."


def test_a_moved_chunk_takes_the_vector_of_its_text_not_of_the_point_it_lands_on(edge_store, embedder, monkeypatch):
    index(edge_store, files(Beta="Beta is a bakery.\n\nIt sells bread."), embedder)
    embedder.texts.clear()
    # the bread paragraph moves from chunk 1 to chunk 2, and a shorter new one takes chunk 1, so it is written
    # first: the point that held the bread text is overwritten before the bread chunk looks for its vector
    monkeypatch.setattr("program.retrieval.indexing.BATCH_SIZE", 1)
    stats = index(edge_store, files(Beta="Beta is a bakery.\n\nIt is old.\n\nIt sells bread."), embedder)
    assert (stats.embedded, stats.reused) == (2, 1)
    assert embedder.texts == ["Beta\nIt is old.", "Beta\nIt sells bread."]
    moved = edge_store.fetch("c", [point_id("Beta", 2)])[0]
    fresh = embedder.embedder.documents(["Beta\nIt sells bread."])[0].dense
    assert moved.payload["text"] == "It sells bread."
    assert max(abs(a - b) for a, b in zip(moved.dense, fresh, strict=True)) < 1e-3


def test_a_vector_made_by_another_model_is_never_taken(edge_store, embedder, monkeypatch):
    index(edge_store, CORPUS, embedder)
    embedder.texts.clear()
    monkeypatch.setattr(embedder, "version", "another-model")
    stats = index(edge_store, CORPUS, embedder)
    assert (stats.embedded, stats.reused) == (4, 0) and len(embedder.texts) == 4


def test_a_shrunk_document_loses_its_stale_chunks(edge_store, embedder):
    index(edge_store, CORPUS, embedder)
    stats = index(edge_store, docs(Beta="Beta is a bakery."), embedder)
    assert (stats.deleted, stats.embedded) == (1, 0)
    assert edge_store.fetch("c", [point_id("Beta", 1)]) == []
    assert edge_store.count("c") == 3  # documents not passed are kept without prune


def test_prune_drops_documents_no_longer_in_the_corpus(edge_store, embedder):
    index(edge_store, CORPUS, embedder)
    stats = index(edge_store, docs(Gamma="Gamma is a river."), embedder, prune=True)
    assert stats.deleted == 3
    assert {p["doc_id"] for _, p in edge_store.payloads("c", ["doc_id"])} == {"Gamma"}


def test_payload_keeps_what_a_passage_needs(edge_store, embedder):
    index(edge_store, CORPUS, embedder)
    payload = edge_store.fetch("c", [point_id("Alpha", 0)])[0].payload
    assert payload["doc_id"] == "Alpha" and payload["title"] == "Alpha" and payload["chunk_index"] == 0
    assert payload["url"] == "https://example.org/Alpha" and payload["text"] == "Alpha is a lighthouse."
    assert len(payload["text_hash"]) == 64


def test_build_indexes_fills_both_collections_and_prunes(tmp_path, monkeypatch, real_embedder):
    settings = Settings(data_dir=tmp_path, collection="local_c", web_collection="web_c")
    local = docs(Alpha="Alpha is a lighthouse.", Beta="Beta is a bakery.")
    monkeypatch.setattr("program.retrieval.indexing.local_documents", lambda s: local)
    monkeypatch.setattr("program.retrieval.indexing.web_documents", lambda s: docs(Gamma="Gamma is a river."))
    monkeypatch.setattr("program.retrieval.indexing.load_embedder", lambda s: real_embedder)
    stats = build_indexes(settings, progress=False)
    assert (stats["local_c"].embedded, stats["web_c"].embedded) == (2, 1)
    local.pop()  # Beta is now held out: the next build must take it out of the local index
    stats = build_indexes(settings, progress=False)
    assert (stats["local_c"].embedded, stats["local_c"].deleted) == (0, 1)
    assert [p["doc_id"] for _, p in open_store(settings).payloads("local_c", ["doc_id"])] == ["Alpha"]


def test_the_progress_bar_shows_the_chunk_total_written_or_unchanged(edge_store, embedder, capsys):
    index_documents(edge_store, "c", CORPUS, embedder=embedder, progress=True)
    assert "4/4 [" in capsys.readouterr().err  # 3 documents, 4 chunks
    changed = docs(Alpha="Alpha is a lighthouse.", Beta="Beta is a bakery.\n\nIt sells cakes.", Gamma="Gamma is a river.")
    index_documents(edge_store, "c", changed, embedder=embedder, progress=True)
    assert "4/4 [" in capsys.readouterr().err  # one chunk embedded, three unchanged: the bar still ends full
