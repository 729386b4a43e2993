"""The whole loop with the real local LM, a real (embedded) index and the offline web backend.

The collection lacks the paragraph about Ed Wood, which only the offline web corpus holds, as in
the HotpotQA web-holdout split.
"""

import dspy
import pytest

from program.base.settings import Settings
from program.lm.lm_profiles import build_lm
from program.loop import GatedRAG
from program.retrieval.chunking import Document
from program.retrieval.edge_store import EdgeStore
from program.retrieval.embeddings import load_embedder
from program.retrieval.indexing import index_documents
from program.retrieval.retriever import HybridSearch
from program.retrieval.web_search import OfflineWeb

LOCAL = [
    ("Scott Derrickson", "Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer.  He lives in Los Angeles, California."),
    ("Doctor Strange (2016 film)", "Doctor Strange is a 2016 American superhero film directed by Scott Derrickson."),
    ("Woodson, Arkansas", "Woodson is a census-designated place in Pulaski County, Arkansas."),
    ("Conrad Brooks", "Conrad Brooks is an American actor who appeared in films of the 1950s."),
]
WEB = [
    ("Ed Wood", "Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker, actor, writer, producer, and director."),
    ("Ed Wood (film)", "Ed Wood is a 1994 American biographical period comedy-drama film directed by Tim Burton."),
]


def _collection(store, name, pages, embedder):
    index_documents(store, name, [Document(doc_id=t, title=t, text=x) for t, x in pages], progress=False, embedder=embedder)
    return HybridSearch(store, name, source="web" if name == "web" else "index", embedder=embedder)


@pytest.mark.real_lm
def test_the_loop_searches_the_web_for_what_the_collection_lacks_and_cites_it(tmp_path):
    store, embedder = EdgeStore(tmp_path / "qdrant-edge"), load_embedder(Settings(data_dir=tmp_path))
    rag = GatedRAG(_collection(store, "docs", LOCAL, embedder), web=OfflineWeb(_collection(store, "web", WEB, embedder)))
    with build_lm(Settings(profile="local", data_dir=tmp_path), cache=False) as handle:
        with dspy.context(lm=handle.lm, adapter=dspy.JSONAdapter(), track_usage=True):
            result = rag(question="Were Scott Derrickson and Ed Wood of the same nationality?").result

    actions = [s.action for s in result.trace.steps]
    # the signals see the gap (a side of the comparison, Ed Wood, has no page of its own) and go to
    # the web for it before any LM call
    assert actions[:3] == ["decompose", "retrieve", "search_web"]
    web = result.trace.steps[2]
    assert web.rule == "no_page_to_web" and "Ed Wood" in " ".join(web.queries) and web.lm.calls == 0
    assert result.trace.ended in {"answered", "budget_exhausted", "max_iterations"}
    assert any(p.source == "web" and p.title.startswith("Ed Wood") for p in result.evidence)
    shown = {p.chunk_id for p in result.evidence}
    assert result.citations and all(c.chunk_id in shown for c in result.citations)
    assert 1 <= result.trace.resources.lm.calls <= 3 and result.trace.resources.lm.prompt > 0
    assert result.answer.strip()


@pytest.mark.real_lm
def test_a_follow_up_is_rewritten_with_the_sessions_topic_in_one_short_lm_call(tmp_path):
    from program.sessions.conversation import Turn
    from tests.conftest import FakeSearch, passage

    page = passage("Shirley Temple", "Shirley Temple was named Chief of Protocol of the United States in 1976.",
                   similarity=0.8)
    rag = GatedRAG(FakeSearch([page]))
    rag.sessions.record("chat", Turn.of("Who is Shirley Temple?", "Who is Shirley Temple?", "American actress"))
    with build_lm(Settings(profile="local", data_dir=tmp_path), cache=False) as handle:
        with dspy.context(lm=handle.lm, adapter=dspy.JSONAdapter(), track_usage=True):
            result = rag(question="What government position did she hold?", session_id="chat").result

    rewrite = result.trace.steps[0]
    assert rewrite.action == "contextualize" and rewrite.rule == "pronoun"
    assert "Shirley Temple" in result.standalone_question and result.standalone_question.endswith("?")
    assert rewrite.lm.calls == 1 and 0 < rewrite.lm.prompt < 400  # the cost of a follow-up: one short prompt
    assert result.question == "What government position did she hold?"
