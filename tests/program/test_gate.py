"""The gate's policy: every action it can choose, and when it stops for lack of budget."""

import pytest

from program.gate import Budget, Verdict, decide
from program.thresholds import Thresholds

T = Thresholds(answer_confidence=0.7)
FULL = Budget(doc_queries_left=2, web_searches_left=2)


@pytest.mark.parametrize("verdict, budget, action, ended", [
    (Verdict(True, 0.9, next_action="answer"), FULL, "answer", "answered"),
    (Verdict(True, 0.9, next_action="refine"), FULL, "refine", "answered"),
    (Verdict(True, 0.5, next_action="answer"), FULL, "query_docs", "answered"),
    (Verdict(False, 0.9, next_action="answer"), FULL, "query_docs", "answered"),
    (Verdict(False, 0.2, next_action="search_web"), FULL, "search_web", "answered"),
    (Verdict(False, 0.2, next_action="search_web"), Budget(2, 0), "query_docs", "answered"),
    (Verdict(False, 0.2, next_action="query_docs"), Budget(0, 1), "search_web", "answered"),
    (Verdict(False, 0.2, next_action="query_docs"), Budget(2, 1, docs_stale=True), "search_web", "answered"),
    (Verdict(False, 0.2, next_action="query_docs"), Budget(2, 0, docs_stale=True), "query_docs", "answered"),
    (Verdict(False, 0.2, next_action="query_docs"), Budget(0, 0), "answer", "budget_exhausted"),
])
def test_decide(verdict, budget, action, ended):
    decision = decide(verdict, budget, T)
    assert (decision.action, decision.ended) == (action, ended)
    assert decision.reason


def test_reason_names_what_is_missing():
    decision = decide(Verdict(False, 0.1, missing="her government post"), FULL, T)
    assert "her government post" in decision.reason


def test_an_uncovered_sub_query_goes_to_the_web_even_when_the_judge_is_confident():
    decision = decide(Verdict(True, 0.95, next_action="answer"), FULL, T, uncovered=("Ed Wood",))
    assert decision.action == "search_web" and decision.queries == ("Ed Wood",)


def test_uncovered_without_web_budget_falls_back_to_the_judge():
    decision = decide(Verdict(True, 0.95, next_action="answer"), Budget(2, 0), T, uncovered=("Ed Wood",))
    assert decision.action == "answer"
