"""optimize/job/judges_refit.py: a refit ships only when it beats its default on held-out questions, and the
learned release only when its net right beats the program's own."""

from __future__ import annotations

import numpy as np

from optimize.job.judges_refit import acceptance_rows, judge_refit, judge_release, release_threshold
from program.judges.acceptance import AcceptanceModel
from program.thresholds import Thresholds
from tests.optimize.judges.test_acceptance_fit import answered
from tests.optimize.judges.test_prior_fit import BACKWARDS, table

MODEL = AcceptanceModel(features=["support"], center=[0.5], scale=[0.25], weights=[3.0], intercept=0.0, fitted_on="hand")


def rows_of(x: np.ndarray) -> list[dict[str, float]]:
    return [{"best": a, "cliff": b} for a, b in x]


def test_a_refit_of_a_backwards_default_ships_and_says_why():
    x, y, groups = table(120)
    fit = judge_refit("sufficiency", BACKWARDS, rows_of(x), [bool(v) for v in y], groups, "hand")
    assert fit.verdict.ships and fit.model.weights[0] > 0
    assert fit.verdict.line.startswith("sufficiency: shipping the refit (held-out log loss")


def test_a_default_that_already_fits_is_kept():
    x, y, groups = table(120)
    right = BACKWARDS.model_copy(update={"weights": [2.5, 0.0]})
    fit = judge_refit("sufficiency", right, rows_of(x), [bool(v) for v in y], groups, "hand")
    assert not fit.verdict.ships and fit.model is right
    assert "keeping the default model; the refit did not beat it" in fit.verdict.line


def test_too_few_labels_keep_the_default_untested():
    fit = judge_refit("acceptance", MODEL, [{"support": 0.9}, {"support": 0.1}], [True, False], ["a", "b"], "hand")
    assert not fit.verdict.ships and "too few to refit on" in fit.verdict.line and len(fit.held_out) == 2


def given(qid: str, right: bool, system: str):
    return answered(qid, 0.9 if right else 0.1, right, system)


def test_the_learned_release_ships_when_withholding_the_wrong_drafts_pays():
    learned = [given(f"q{i}", i % 3 == 0, "learned") for i in range(30)]
    current = [given(f"q{i}", i % 3 == 0, "baseline") for i in range(30)]  # the rules gave every draft
    p_right = {r.qid: 0.9 if r.scores.net_right == 1.0 else 0.1 for r in learned}
    verdict = judge_release(current, learned, p_right, MODEL, Thresholds())
    assert verdict.ships and verdict.line.startswith("release: shipping the learned release (net right +0.333 against")


def test_the_programs_release_stays_when_the_learned_one_withholds_right_drafts():
    learned = [given(f"q{i}", True, "learned") for i in range(20)]
    current = [given(f"q{i}", True, "baseline") for i in range(20)]
    verdict = judge_release(current, learned, {r.qid: 0.2 for r in learned}, MODEL, Thresholds())
    assert not verdict.ships and "keeping the program's release (rules)" in verdict.line


def test_acceptance_rows_leave_out_drafts_with_no_label():
    unlabelled = answered("u", 0.5, False)
    unlabelled.result.trace.draft_checks = {}
    kept, found, labels = acceptance_rows([answered("r", 0.9, True), unlabelled])
    assert [r.qid for r in kept] == ["r"] and labels == [True] and found[0]["support"] == 0.9


def test_a_target_wrong_rate_no_threshold_meets_answers_nothing():
    assert release_threshold([0.9, 0.8], [False, False], 0.1) == 1.0
    assert release_threshold([0.9, 0.8], [True, False], None) is None




def test_a_release_that_ships_by_answering_nothing_says_so():
    learned = [given(f"q{i}", False, "learned").model_copy(update={"answerable": False}) for i in range(20)]
    current = [given(f"q{i}", False, "baseline") for i in range(20)]  # the rules answered each, wrongly
    verdict = judge_release(current, learned, {r.qid: 0.1 for r in learned}, MODEL, Thresholds())
    assert verdict.ships and verdict.line.endswith("it answers 0 of them): abstaining beat every draft the reader "
                                                   "wrote here")
