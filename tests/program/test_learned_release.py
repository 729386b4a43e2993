"""The learned release (program/loop.py's `release` step, `program.gate.decide_release`): an acceptance model's
P(right) gives or withholds the final answer, where the rules would have refused a draft its passages do not use."""

import dspy
import pytest

from program.gate import decide_release
from program.judges.acceptance import AcceptanceModel
from program.loop import GatedRAG, LearnedGate
from program.thresholds import Thresholds
from tests.conftest import FakeSearch, scripted_lm
from tests.program.test_loop import FLAT, GUESS, QUESTION, actions, draft

# P(right) rises with support: about 0.12 at support 0, 0.88 at support 1
BY_SUPPORT = AcceptanceModel(features=["support"], center=[0.5], scale=[0.25], weights=[1.0], intercept=0.0)


def answer(program, lm):
    with dspy.context(lm=lm, adapter=lm.adapter):
        return program(question=QUESTION).result


def learned(model=BY_SUPPORT, **thresholds):
    program = LearnedGate(FakeSearch(FLAT), thresholds=Thresholds(**thresholds))
    program.acceptance = model
    return program


def test_the_rules_release_records_the_checks_and_adds_no_step():
    result = answer(GatedRAG(FakeSearch(FLAT)), scripted_lm(draft("Shirley Temple", "Shirley Temple [1].")))
    assert "release" not in actions(result)
    assert result.trace.draft_checks["support"] == 1.0 and 0.0 <= result.trace.draft_checks["sufficiency"] <= 1.0


def test_a_draft_the_rules_refuse_is_withheld_by_its_low_p_right_instead():
    result = answer(learned(), scripted_lm(GUESS))
    assert actions(result)[-1] == "release" and result.abstained
    release = result.trace.steps[-1]
    assert release.rule == "likely_wrong" and "P(right) 0.12" in release.reason
    assert result.confidence == 12 and result.trace.ended == "abstained"


def test_a_supported_draft_is_given_with_p_right_as_its_confidence():
    result = answer(learned(), scripted_lm(draft("Shirley Temple", "Shirley Temple [1].")))
    assert result.trace.steps[-1].rule == "likely_right" and not result.abstained
    assert result.short_answer == "Shirley Temple" and result.confidence == 88


def test_without_a_model_the_learned_release_gives_every_draft():
    result = answer(learned(model=None), scripted_lm(GUESS))
    assert result.trace.steps[-1].rule == "released_by_rules" and result.short_answer == "Prime Minister"


@pytest.mark.parametrize("p, cost, threshold, action", [
    (0.51, 1.0, None, "answer"), (0.5, 1.0, None, "abstain"),  # cost 1: answer when P(right) > 0.5
    (0.7, 3.0, None, "abstain"), (0.8, 3.0, None, "answer"),  # cost 3: > 0.75
    (0.3, 1.0, 0.3, "answer"), (0.29, 1.0, 0.3, "abstain"),  # a risk-controlled threshold: at least it
])
def test_the_release_answers_when_p_right_beats_the_wrong_answers_cost(p, cost, threshold, action):
    t = Thresholds(release="learned", wrong_answer_cost=cost)
    assert decide_release(p, t, threshold).action == action
    assert decide_release(p, Thresholds(), threshold).action == "answer"  # the rules' release weighs nothing


def test_a_saved_program_carries_its_acceptance_model(tmp_path):
    program = learned()
    program.save(tmp_path / "program.json")
    again = GatedRAG(FakeSearch(FLAT))
    again.load(tmp_path / "program.json")
    assert again.acceptance == BY_SUPPORT
