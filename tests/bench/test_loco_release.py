"""bench/loco_release.py's scoring of the learned release on recorded answers: a withheld answer
abstains, which is right on an unanswerable question; the loop's own abstentions stand; with a
target wrong rate, the threshold the fit picked decides."""

from __future__ import annotations

from bench import loco_release
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
    assert not loco_release.gives(weak, MODEL, LEARNED) and loco_release.gives(strong, MODEL, LEARNED)
    assert loco_release.released(weak, False) == 0.0
    assert loco_release.released(strong, True) == 1.0


def test_withholding_an_answer_to_an_unanswerable_question_is_a_right_abstention():
    made = unanswerable("u", 0.05)
    assert not loco_release.gives(made, MODEL, LEARNED)
    assert loco_release.released(made, False) == 1.0


def test_the_loops_own_abstention_stands_whatever_the_model_says():
    made = answered("a", 0.95, False)
    made.result.abstained = True
    made = made.model_copy(update={"scores": made.scores.model_copy(update={"net_right": 0.0})})
    assert not loco_release.gives(made, MODEL, LEARNED)
    assert loco_release.released(made, False) == 0.0


def test_a_fold_with_a_target_wrong_rate_answers_only_at_its_threshold_and_reports_the_rate():
    train = by_support()
    held = [r.model_copy(update={"qid": f"held-{r.qid}"}) for r in by_support()]  # exchangeable with the training rows
    test = {name: [r.model_copy(update={"system": name}) for r in held] for name in loco_release.SYSTEMS}
    f = loco_release.fold(train, test, LEARNED, max_wrong_rate=0.2)
    assert f["threshold"] is not None
    assert f["wrong_rate_answered"] <= 0.2
    assert f["systems"]["learned"]["wrong"] < f["systems"]["single_pass"]["wrong"]
