"""program/retrieval/retriever.py: hybrid dense + BM25 search fused by RRF, on a small real index."""

import copy

import pytest

from program.base.settings import Settings
from program.retrieval.chunking import Document
from program.retrieval.edge_store import EdgeStore
from program.retrieval.embeddings import load_embedder
from program.retrieval.indexing import index_documents
from program.retrieval.passage import Passage
from program.retrieval.retriever import HybridSearch, distinct

PAGES = {
    "Shirley Temple": "Shirley Temple Black was an American actress who later served as Chief of Protocol of the United States.",
    "Eiffel Tower": "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France.",
    "Photosynthesis": "Photosynthesis is the process by which green plants convert light energy into chemical energy.",
    "Quorvex Valves": "Quorvex Valves is a manufacturer of industrial pressure valves based in Toledo, Ohio.",
    "Mount Kilimanjaro": "Mount Kilimanjaro is a dormant volcano in Tanzania and the highest mountain in Africa.",
}
LIGHTHOUSE = ("The Skerry lighthouse was lit in 1844.\n\nIts keeper rowed out every Monday.\n\n"
              "A diesel generator replaced the keepers in 1972.\n\nA museum now fills the keeper's cottage.")


@pytest.fixture(scope="module")
def search(tmp_path_factory):
    embedder = load_embedder(Settings())
    store = EdgeStore(tmp_path_factory.mktemp("retriever"))
    documents = [Document(doc_id=t.replace(" ", "_"), title=t, text=x, url=f"https://example.org/{t}") for t, x in PAGES.items()]
    documents.append(Document(doc_id="Lighthouse", title="Lighthouse", text=LIGHTHOUSE))
    index_documents(store, "pages", documents, progress=False, embedder=embedder)
    yield HybridSearch(store, "pages", "web", embedder=embedder)
    store.close()


def test_a_rare_keyword_finds_its_page(search):
    assert search("Quorvex", 3)[0].title == "Quorvex Valves"


def test_a_paraphrase_finds_its_page(search):
    assert search("how do plants turn sunlight into food", 3)[0].title == "Photosynthesis"
    assert search("tallest peak on the African continent", 3)[0].title == "Mount Kilimanjaro"


def test_passages_carry_ids_scores_and_cosine(search):
    passages = search("Eiffel Tower in Paris", 2)
    top = passages[0]
    assert len(passages) == 2
    assert (top.doc_id, top.url, top.source) == ("Eiffel_Tower", "https://example.org/Eiffel Tower", "web")
    assert top.text == PAGES["Eiffel Tower"] and top.chunk_id
    assert passages[0].score >= passages[1].score
    assert top.similarity > 0.5 > passages[1].similarity  # the dense cosine tells the true hit apart


def test_blank_query_returns_nothing(search):
    assert search("   ", 5) == []


def test_deep_copy_shares_the_store_and_models(search):
    assert copy.deepcopy({"search": search})["search"] is search


def test_from_settings_picks_the_collection_by_source(tmp_path):
    settings = Settings(data_dir=tmp_path, collection="local_c", web_collection="web_c")
    assert HybridSearch.from_settings(settings, "index").collection == "local_c"
    web = HybridSearch.from_settings(settings, "web")
    assert (web.collection, web.source) == ("web_c", "web")
    assert not (tmp_path / "qdrant-edge").exists()  # nothing opened until the first search


def test_excluding_hides_those_titles_from_a_copy_that_shares_the_store(search):
    hidden = search.excluding(["Quorvex Valves", "Eiffel Tower"])
    found = hidden("Quorvex valves in Toledo", 3)
    assert len(found) == 3 and {p.title for p in found}.isdisjoint({"Quorvex Valves", "Eiffel Tower"})
    assert search("Quorvex", 3)[0].title == "Quorvex Valves"  # the original still finds it
    assert hidden._store is search._store and copy.deepcopy(hidden) is hidden
    assert search.excluding([]) is search


def test_neighbours_are_the_adjacent_chunks_in_document_order(search):
    hit = search("diesel generator", 1)[0]
    assert (hit.doc_id, hit.chunk_index, hit.doc_chunks) == ("Lighthouse", 2, 4)
    near = search.neighbours(hit, 1)
    assert [(p.chunk_index, p.doc_id, p.source) for p in near] == [(1, "Lighthouse", "web"), (3, "Lighthouse", "web")]
    assert all(p.similarity is not None and p.vector for p in near)
    assert search.neighbours(hit.model_copy(update={"doc_chunks": 1, "chunk_index": 0}), 1) == []


def test_a_text_two_documents_hold_is_one_hit(tmp_path):
    # a documentation site's print page repeats its chapters: one text must not take two of the k hits
    embedder = load_embedder(Settings())
    store = EdgeStore(tmp_path)
    documents = [Document(doc_id=t.replace(" ", "_"), title=t, text=x) for t, x in PAGES.items()]
    documents.append(Document(doc_id="print", title="All pages", text=PAGES["Quorvex Valves"]))
    index_documents(store, "pages", documents, progress=False, embedder=embedder)
    try:
        found = HybridSearch(store, "pages", embedder=embedder)("Quorvex valves in Toledo", 3)
    finally:
        store.close()
    assert len(found) == 3 and [p.text for p in found].count(PAGES["Quorvex Valves"]) == 1


def _hit(chunk_id: str, text: str, score: float, doc_chunks: int) -> Passage:
    return Passage(chunk_id=chunk_id, doc_id=chunk_id, title=chunk_id, text=text, score=score, similarity=score,
                   doc_chunks=doc_chunks)


def test_distinct_keeps_the_most_specific_copy_at_its_best_copys_rank():
    profiles = "## Default profiles\n\nThe `dev` profile is the default for build commands like `cargo build`."
    kept = distinct([_hit("print.html#12", profiles, 0.70, 836), _hit("bench", "The bench profile.", 0.66, 4),
                     _hit("profiles.html#3", profiles.replace("\n\n", " "), 0.58, 12)])
    assert [p.chunk_id for p in kept] == ["profiles.html#3", "bench"]
    assert (kept[0].score, kept[0].similarity) == (0.70, 0.70)  # the text's relevance, whichever title it had
