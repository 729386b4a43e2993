"""The learned release replayed on recorded answers: a withheld answer abstains, which is right on an
unanswerable question; the loop's own abstentions stand."""

from __future__ import annotations

from optimize.judges import release_replay
from optimize.judges.acceptance_fit import fit_acceptance, rows
from program.thresholds import Thresholds
from tests.optimize.judges.test_acceptance_fit import answered, by_support

MODEL = fit_acceptance(rows(by_support()), "hand-made answers")
LEARNED = Thresholds(release="learned")


def unanswerable(qid: str, support: float):
    made = answered(qid, support, False)
    return made.model_copy(update={"answerable": False})


def test_a_withheld_answer_scores_nothing_and_a_given_one_keeps_its_score():
    weak, strong = answered("w", 0.05, False), answered("s", 0.95, True)
    assert not release_replay.gives(weak, MODEL, LEARNED) and release_replay.gives(strong, MODEL, LEARNED)
    assert release_replay.released(weak, False) == 0.0
    assert release_replay.released(strong, True) == 1.0


def test_withholding_an_answer_to_an_unanswerable_question_is_a_right_abstention():
    made = unanswerable("u", 0.05)
    assert not release_replay.gives(made, MODEL, LEARNED)
    assert release_replay.released(made, False) == 1.0


def test_the_loops_own_abstention_stands_whatever_the_model_says():
    made = answered("a", 0.95, False)
    made.result.abstained = True
    made = made.model_copy(update={"scores": made.scores.model_copy(update={"net_right": 0.0})})
    assert not release_replay.gives(made, MODEL, LEARNED)
    assert release_replay.released(made, False) == 0.0
