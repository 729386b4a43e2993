"""Every branch of the loop, driven by a scripted fake LM."""

import dspy
import pytest

from program.hints import Hints
from program.loop import GatedRAG
from program.thresholds import Thresholds
from tests.conftest import FakeSearch, FakeWeb, passage, scripted_lm

DOCS = [
    passage("Kiss and Tell", "Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer."),
    passage("Meet Corliss Archer", "Meet Corliss Archer was a radio program."),
]
WEB = [passage("Shirley Temple", "Shirley Temple served as Chief of Protocol of the United States.", source="web")]

QUESTION = "Which office did the star of the film hold later?"  # shares only "film" with DOCS
PLAN = {"sub_queries": ["Kiss and Tell film"], "query_type": "factual", "key_concepts": ["Corliss Archer"]}


def verdict(sufficient, confidence, action, queries=(), missing=""):
    return {"sufficient": sufficient, "confidence": confidence, "missing": missing, "next_action": action,
            "queries": list(queries), "facts": ["Shirley Temple played Corliss Archer [1]"], "gaps": [] if sufficient else [missing]}


def run(lm, thresholds=None, web=None, search=None):
    rag = GatedRAG(search or FakeSearch(DOCS), web=web, thresholds=thresholds)
    with dspy.context(lm=lm):
        return rag(question=QUESTION).result


def actions(result):
    return [s.action for s in result.trace.steps]


def test_answers_at_once_when_the_judge_is_confident():
    result = run(scripted_lm(PLAN, {"answer": "Shirley Temple [1]."}, verdict(True, 0.9, "answer")))
    assert actions(result) == ["decompose", "retrieve", "draft", "answer"]
    assert result.trace.ended == "answered"
    assert result.confidence == 90
    assert result.citations[0].title == "Kiss and Tell" and result.citations[0].source == "index"
    assert result.trace.resources.lm.calls == 3


def test_low_confidence_rewrites_and_requeries_with_new_queries():
    search = FakeSearch(DOCS)
    lm = scripted_lm(PLAN, {"answer": "Unknown [1]."}, verdict(True, 0.4, "answer", missing="the role"),
                     {"queries": ["Meet Corliss Archer radio"]}, {"answer": "Shirley Temple [1]."}, verdict(True, 0.95, "answer"))
    result = run(lm, search=search)
    assert actions(result) == ["decompose", "retrieve", "draft", "query_docs", "answer"]
    requery = result.trace.steps[3]
    assert requery.queries == ["Meet Corliss Archer radio"] and requery.new_passages == 1
    assert search.queries == [QUESTION, "Kiss and Tell film", "Meet Corliss Archer radio"]
    assert result.trace.resources.doc_queries == 1


def test_rewrite_never_repeats_a_tried_query():
    search = FakeSearch(DOCS)
    lm = scripted_lm(PLAN, {"answer": "x"}, verdict(False, 0.2, "query_docs", missing="role"),
                     {"queries": ["Kiss and Tell film"]}, {"answer": "x"}, verdict(True, 0.9, "answer"))
    run(lm, search=search)
    assert search.queries[1] != search.queries[0]


def test_web_search_adds_web_evidence_and_refines():
    web = FakeWeb(WEB)
    lm = scripted_lm(PLAN, {"answer": "Not in evidence."}, verdict(False, 0.1, "search_web", ["Shirley Temple career"], "her position"),
                     {"answer": "Chief of Protocol [2]."}, verdict(True, 0.9, "answer"))
    result = run(lm, web=web)
    assert actions(result) == ["decompose", "retrieve", "draft", "search_web", "answer"]
    assert web.queries == ["Shirley Temple career"]
    assert result.citations[0].source == "web" and result.citations[0].title == "Shirley Temple"
    assert result.trace.resources.web_searches == 1


def test_refine_when_evidence_suffices_but_the_draft_is_wrong():
    lm = scripted_lm(PLAN, {"answer": "Wrong."}, verdict(True, 0.9, "refine", ["name the film"]),
                     {"answer": "Shirley Temple [1]."}, verdict(True, 0.9, "answer"))
    result = run(lm)
    assert actions(result) == ["decompose", "retrieve", "draft", "refine", "answer"]
    assert result.answer == "Shirley Temple [1]."


def test_doc_budget_spent_moves_to_the_web():
    lm = scripted_lm(PLAN, {"answer": "x"}, verdict(False, 0.1, "query_docs", missing="m"),
                     {"answer": "Chief of Protocol [3]."}, verdict(True, 0.9, "answer"))
    result = run(lm, thresholds=Thresholds(max_doc_queries=0), web=FakeWeb(WEB))
    assert actions(result)[3] == "search_web"


def test_all_budgets_spent_ends_budget_exhausted():
    lm = scripted_lm(PLAN, {"answer": "x [1]"}, verdict(False, 0.1, "query_docs", missing="m"))
    result = run(lm, thresholds=Thresholds(max_doc_queries=0, max_web_searches=0))
    assert result.trace.ended == "budget_exhausted"
    assert actions(result)[-1] == "answer"
    assert result.confidence <= 50


def test_max_iterations_ends_the_loop():
    lm = scripted_lm(PLAN, {"answer": "x"}, verdict(False, 0.1, "query_docs", missing="m"), {"queries": ["q2"]}, {"answer": "y"})
    result = run(lm, thresholds=Thresholds(max_iterations=1))
    assert result.trace.ended == "max_iterations"
    assert result.trace.resources.iterations == 1


def test_web_budget_spent_is_never_exceeded():
    lm = scripted_lm(PLAN, {"answer": "x"}, *[item for _ in range(3) for item in
                     (verdict(False, 0.1, "search_web", ["w"], "m"), {"answer": "y"})])
    web = FakeWeb(WEB)
    result = run(lm, thresholds=Thresholds(max_web_searches=1, max_doc_queries=0, max_iterations=3), web=web)
    assert result.trace.resources.web_searches == 1 and len(web.queries) == 1
    assert result.trace.ended == "budget_exhausted"


def test_malformed_judge_output_falls_back_to_not_sufficient_with_a_warning():
    garbage = {"nonsense": "???"}
    lm = scripted_lm(PLAN, {"answer": "x [1]"}, garbage, garbage)
    result = run(lm, thresholds=Thresholds(max_doc_queries=0, max_web_searches=0, max_iterations=1))
    assert any("JudgeSufficiency: malformed" in w for w in result.warnings)
    assert result.trace.ended == "budget_exhausted" and result.answer == "x [1]"


def test_failing_web_backend_becomes_a_warning_and_the_loop_goes_on():
    lm = scripted_lm(PLAN, {"answer": "x [1]"}, verdict(False, 0.1, "search_web", ["w"], "m"),
                     {"answer": "Shirley Temple [1]."}, verdict(True, 0.8, "answer"))
    result = run(lm, web=FakeWeb(WEB, fail=True), thresholds=Thresholds(max_doc_queries=0))
    assert any("web search failed" in w for w in result.warnings)
    assert result.trace.ended == "answered" and result.answer == "Shirley Temple [1]."


def test_a_citation_outside_the_evidence_is_dropped_with_a_warning():
    result = run(scripted_lm(PLAN, {"answer": "Shirley Temple [9]."}, verdict(True, 0.9, "answer")))
    assert result.citations == []
    assert any("[9]" in w for w in result.warnings)


def test_lm_failure_ends_with_error_not_a_crash():
    class Boom:
        def __call__(self, query, k):
            raise RuntimeError("store closed")

    result = run(scripted_lm(PLAN), search=Boom())
    assert result.trace.ended == "error" and "store closed" in result.warnings[-1]


def test_save_and_load_round_trip_thresholds_and_demos(tmp_path):
    rag = GatedRAG(FakeSearch(DOCS), thresholds=Thresholds(answer_confidence=0.55, top_k=7))
    rag.judge.demos = [dspy.Example(question="q", evidence="[1] e", draft="d", known_facts=[], sufficient=True,
                                    confidence=0.9, missing="", next_action="answer", queries=[], facts=[], gaps=[])]
    path = tmp_path / "program.json"
    rag.save(path)
    loaded = GatedRAG(FakeSearch(DOCS))
    loaded.load(path)
    assert loaded.thresholds == Thresholds(answer_confidence=0.55, top_k=7)
    assert loaded.judge.demos[0]["next_action"] == "answer"


def test_loading_bad_thresholds_fails_and_leaves_the_program_unchanged(tmp_path):
    rag = GatedRAG(FakeSearch(DOCS))
    state = rag.dump_state() | {"thresholds": {"top_k": -3}}
    with pytest.raises(ValueError):
        rag.load_state(state)
    assert rag.thresholds == Thresholds()


def test_a_sub_query_the_collection_does_not_cover_is_searched_on_the_web():
    weak = [passage("Ed Wood Sr.", "Ed Wood Sr. was a plantation owner.", similarity=0.3)]
    web = FakeWeb([passage("Ed Wood", "Ed Wood was an American filmmaker.", source="web")])
    plan = {"sub_queries": ["Ed Wood"], "query_type": "factual", "key_concepts": ["Ed Wood"]}
    lm = scripted_lm(plan, {"answer": "A plantation owner [1]."}, verdict(True, 0.95, "answer"),
                     {"answer": "American [2]."}, verdict(True, 0.95, "answer"))
    result = run(lm, web=web, search=FakeSearch(weak))
    assert actions(result) == ["decompose", "retrieve", "draft", "search_web", "answer"]
    assert web.queries == ["Ed Wood"] and "similarity under 0.55" in result.trace.steps[3].reason
    assert result.citations[0].title == "Ed Wood"


def test_a_spent_time_limit_returns_the_draft_as_budget_exhausted():
    lm = scripted_lm(PLAN, {"answer": "Shirley Temple [1]."})
    rag = GatedRAG(FakeSearch(DOCS))
    with dspy.context(lm=lm):
        result = rag(question="Who played Corliss Archer?", time_limit_s=0).result
    assert actions(result) == ["decompose", "retrieve", "draft"]
    assert result.trace.ended == "budget_exhausted" and result.answer == "Shirley Temple [1]."
    assert any("time limit" in w for w in result.warnings)


def test_the_trace_carries_the_compressed_memory():
    result = run(scripted_lm(PLAN, {"answer": "x [1]"}, verdict(True, 0.3, "answer", missing="her later career"),
                             {"queries": ["q2"]}, {"answer": "y [1]"}),
                 thresholds=Thresholds(max_iterations=1))
    assert result.trace.key_concepts == ["Corliss Archer"]
    assert result.trace.summary == "her later career"
    assert result.trace.known_facts == ["Shirley Temple played Corliss Archer [1]"]


def test_a_rewrite_the_collection_does_not_cover_goes_straight_to_the_web():
    docs = DOCS + [passage("Temple Bar", "Temple Bar is a street in Dublin.", similarity=0.3)]
    web = FakeWeb(WEB)
    lm = scripted_lm(PLAN, {"answer": "Unknown [1]."}, verdict(False, 0.2, "query_docs", missing="her office"),
                     {"queries": ["Bar office"]}, {"answer": "Chief of Protocol [3]."}, verdict(True, 0.9, "answer"))
    result = run(lm, web=web, search=FakeSearch(docs))
    assert actions(result) == ["decompose", "retrieve", "draft", "query_docs", "search_web", "answer"]
    assert web.queries == ["Bar office"] and "rewritten 'Bar office'" in result.trace.steps[4].reason
    assert result.trace.resources.lm.calls == 6  # no draft between the doc query and the web round
    assert result.citations[0].source == "web"


def test_hints_steer_the_loop_without_changing_the_program():
    search = FakeSearch(DOCS)
    rag = GatedRAG(search)
    lm = scripted_lm({**PLAN, "query_type": "exploratory"}, {"answer": "Shirley Temple [1]."})
    hints = Hints(intent="comparison", constraints="in 1945", expansion_budget=0)
    with dspy.context(lm=lm):
        result = rag(question=QUESTION, hints=hints).result
    assert actions(result) == ["decompose", "retrieve", "draft"]  # expansion budget 0: one retrieval pass
    assert result.trace.query_type == "comparison"
    assert all(q.endswith(" in 1945") for q in search.queries)
    assert rag.thresholds == Thresholds()


def test_known_context_and_constraints_reach_the_prompts():
    lm = scripted_lm(PLAN, {"answer": "Shirley Temple [1]."}, verdict(True, 0.9, "answer"))
    rag = GatedRAG(FakeSearch(DOCS))
    with dspy.context(lm=lm):
        rag(question=QUESTION, hints=Hints(known_context="She was an actress.", constraints="cite the film"))
    prompts = [str(entry["messages"]) for entry in lm.history]
    assert "She was an actress." in prompts[0] and "cite the film" in prompts[2]


def test_a_one_word_sub_query_never_sends_the_loop_to_the_web():
    weak = [passage("Government", "Government is a system.", similarity=0.3)]
    plan = {"sub_queries": ["Government"], "query_type": "factual", "key_concepts": []}
    web = FakeWeb(WEB)
    result = run(scripted_lm(plan, {"answer": "x [1]."}, verdict(True, 0.95, "answer")), web=web, search=FakeSearch(weak))
    assert actions(result)[-1] == "answer" and web.queries == []


def test_a_second_web_search_never_repeats_a_query_the_web_already_answered():
    lm = scripted_lm(PLAN, {"answer": "x"}, *[item for _ in range(2) for item in
                     (verdict(False, 0.1, "search_web", ["w"], "m"), {"answer": "y"})], verdict(True, 0.9, "answer"))
    web = FakeWeb(WEB)
    run(lm, thresholds=Thresholds(max_web_searches=2, max_doc_queries=0, max_iterations=3), web=web)
    assert web.queries == ["w", "Corliss Archer"]  # then the key concepts, not "w" again
