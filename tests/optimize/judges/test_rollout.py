"""A retrieval-only rollout: states before and after each expansion, labelled on the evidence shown, with no LM."""

from __future__ import annotations

import dspy

from optimize.eval.example_schema import make_example
from optimize.judges.evidence_label import answer_in_evidence
from optimize.judges.rollout import roll_out
from program.evidence import Shown
from program.judges.sufficiency import FEATURES
from program.loop import GatedRAG
from tests.conftest import FakeSearch, passage

QUESTION = "Where is the company that Sachin Warrier worked for as a software engineer headquartered?"
WARRIER = passage("Sachin Warrier", "Sachin Warrier is a singer. He was working as a software engineer in "
                  "Tata Consultancy Services in Kochi.", similarity=0.8)
KERALA = passage("Kerala", "Kerala is a state of India.", similarity=0.3)
TCS = passage("Tata Consultancy Services", "Tata Consultancy Services: offices in Mumbai.", similarity=0.7)
EXAMPLE = make_example("q1", QUESTION, ["Mumbai"], ["Sachin Warrier", "Tata Consultancy Services"])


class NoLM(dspy.LM):
    def __init__(self):
        super().__init__("no-lm")

    def __call__(self, *args, **kwargs):
        raise AssertionError("a retrieval-only rollout called the LM")


def test_the_second_page_arrives_by_an_expansion_and_the_label_follows_it():
    with dspy.context(lm=NoLM()):
        states = roll_out(GatedRAG(FakeSearch([WARRIER, KERALA, TCS])), EXAMPLE, rounds=3)
    assert [s.round for s in states] == list(range(len(states))) and 2 <= len(states) <= 4
    assert states[0].action == "retrieve" and not states[0].sufficient
    assert states[-1].sufficient and states[-1].action == "query_docs"
    assert all(tuple(s.features) == FEATURES and s.features["round"] == s.round for s in states)
    assert states[0].features["pending_bridge"] == 1.0


def test_nothing_left_to_try_ends_the_rollout():
    states = roll_out(GatedRAG(FakeSearch([WARRIER, KERALA])), EXAMPLE, rounds=0)
    assert len(states) == 1


def shown(*passages) -> list[Shown]:
    return [Shown(n=i, passage=p, text=p.text) for i, p in enumerate(passages, 1)]


def test_the_label_needs_every_gold_source_shown():
    assert not answer_in_evidence(EXAMPLE, shown(WARRIER, KERALA))
    assert answer_in_evidence(EXAMPLE, shown(KERALA, TCS, WARRIER))


def test_without_gold_sources_the_label_is_the_normalized_answer_in_the_shown_text():
    example = make_example("q2", QUESTION, ["The Mumbai"], [])
    assert answer_in_evidence(example, shown(TCS))
    assert not answer_in_evidence(example, shown(WARRIER))


def test_an_unanswerable_question_is_never_sufficient():
    example = make_example("q3", QUESTION, [], ["Tata Consultancy Services"], answerable=False)
    assert not answer_in_evidence(example, shown(TCS, WARRIER))
