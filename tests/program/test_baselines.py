"""The baselines, driven by a scripted fake LM over a fake search."""

from typing import get_args

import dspy

from program.base.settings import Settings
from program.baselines import SYSTEMS, UNREAD, FixedHops, SinglePass
from program.hints import Hints
from program.loop import GatedRAG
from program.thresholds import Thresholds
from tests.conftest import FakeSearch, passage, scripted_lm

DOCS = [
    passage("Kiss and Tell", "Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer."),
    passage("Shirley Temple", "Shirley Temple served as Chief of Protocol."),
]
QUESTION = "What position did the actress in Kiss and Tell hold?"


def ask(program, lm, **kwargs):
    with dspy.context(lm=lm):
        return program(question=QUESTION, **kwargs)


def test_single_pass_retrieves_once_and_answers_with_one_lm_call():
    search = FakeSearch(DOCS)
    pred = ask(SinglePass(search), scripted_lm({"short_answer": "Shirley Temple", "answer": "Shirley Temple [1]."}))
    result = pred.result
    assert [s.action for s in result.trace.steps] == ["retrieve", "draft"]
    assert search.queries == [QUESTION]
    assert result.trace.resources.lm.calls == 1 and result.trace.ended == "answered"
    assert result.citations[0].title in {"Kiss and Tell", "Shirley Temple"}
    assert pred.answer == result.answer and pred.evidence == result.evidence
    assert result.short_answer == pred.short_answer == "Shirley Temple"


def test_fixed_hops_always_rewrites_and_retrieves_a_second_time():
    search = FakeSearch(DOCS)
    lm = scripted_lm({"short_answer": "Shirley Temple", "answer": "Shirley Temple starred [1]."},
                     {"queries": ["Shirley Temple position"]},
                     {"short_answer": "Chief of Protocol", "answer": "Chief of Protocol [2]."})
    result = ask(FixedHops(search), lm).result
    assert [s.action for s in result.trace.steps] == ["retrieve", "draft", "query_docs", "draft"]
    assert search.queries == [QUESTION, "Shirley Temple position"]
    assert result.answer == "Chief of Protocol [2]." and result.short_answer == "Chief of Protocol"
    assert result.trace.resources.lm.calls == 3 and result.trace.resources.doc_queries == 1
    assert result.trace.steps[2].queries == ["Shirley Temple position"]


def test_fixed_hops_stops_when_out_of_time():
    search = FakeSearch(DOCS)
    result = ask(FixedHops(search), scripted_lm(), time_limit_s=0).result
    assert [s.action for s in result.trace.steps] == ["retrieve", "draft"]  # no time for its LM call
    assert result.trace.ended == "budget_exhausted" and any("time limit" in w for w in result.warnings)


def test_a_failing_search_ends_with_an_error_result_not_a_crash():
    def broken(query, k):
        raise ConnectionError("store down")

    result = ask(SinglePass(broken), scripted_lm()).result
    assert result.trace.ended == "error" and "store down" in result.warnings[0]


def test_save_load_round_trip_keeps_thresholds(tmp_path):
    program = FixedHops(FakeSearch(DOCS), thresholds=Thresholds(top_k=7))
    program.save(tmp_path / "fixed.json")
    loaded = FixedHops(FakeSearch(DOCS))
    loaded.load(tmp_path / "fixed.json")
    assert loaded.thresholds.top_k == 7


def test_single_pass_is_called_as_the_loop_is_and_says_what_it_does_not_read():
    search = FakeSearch(DOCS)
    lm = scripted_lm({"short_answer": "Chief of Protocol", "answer": "Chief of Protocol [2]."})
    hints = Hints(constraints="in the 1970s", expansion_budget=0)
    result = ask(SinglePass(search), lm, hints=hints, time_limit_s=60, session_id="s1", url="https://example.com/").result
    assert search.queries == [f"{QUESTION} in the 1970s"]  # the constraints ride along, as in the loop
    assert [s.action for s in result.trace.steps] == ["retrieve", "draft"]
    assert any(UNREAD in w for w in result.warnings)


def test_every_system_a_user_may_serve_is_named_as_the_setting_names_it():
    assert tuple(SYSTEMS) == get_args(Settings.model_fields["system"].annotation)
    assert SYSTEMS["gated"] is GatedRAG and SYSTEMS["single_pass"] is SinglePass
