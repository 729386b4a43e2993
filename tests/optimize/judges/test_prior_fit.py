"""optimize/judges/prior_fit.py: a judge refitted toward its prior, and scored on questions it never saw."""

from __future__ import annotations

import numpy as np

from optimize.judges.prior_fit import features, held_out, log_loss, refit
from program.judges.sufficiency import SufficiencyModel

# a prior that reads "best" the wrong way round: high similarity, low P
BACKWARDS = SufficiencyModel(features=["best", "cliff"], center=[0.5, 0.1], scale=[0.2, 0.1], weights=[-2.0, 0.0],
                             intercept=0.0, fitted_on="hand")


def table(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Sufficient when best is high, one in eight flipped; two rows a question."""
    rng = np.random.default_rng(seed)
    best = rng.uniform(0.1, 0.9, n)
    y = ((best > 0.5) != (np.arange(n) % 8 == 0)).astype(float)
    return np.column_stack([best, rng.uniform(0, 0.2, n)]), y, [f"q{i // 2}" for i in range(n)]


def test_with_many_labels_the_refit_follows_them_against_its_prior():
    x, y, groups = table(200)
    model = refit(BACKWARDS, x, y, groups, "hand table")
    assert model.weights[0] > 0 and "refitted from hand" in model.fitted_on
    assert model.features == BACKWARDS.features and model.center == BACKWARDS.center


def test_with_a_few_labels_the_refit_stays_nearer_its_prior_than_with_many():
    few, many = table(8), table(400)
    moved = lambda t: abs(refit(BACKWARDS, *t, "hand").weights[0] - BACKWARDS.weights[0])  # noqa: E731
    assert moved(few) < moved(many)


def test_a_held_out_probability_does_not_depend_on_its_own_questions_labels():
    x, y, groups = table(60)
    flipped = y.copy()
    flipped[:2] = 1 - flipped[:2]  # question q0's labels
    before, after = held_out(BACKWARDS, x, y, groups), held_out(BACKWARDS, x, flipped, groups)
    assert np.allclose(before.refit[:2], after.refit[:2])
    assert log_loss(before.refit, y) < log_loss(before.prior, y)


def test_a_feature_a_row_lacks_reads_as_the_models_mean():
    assert features(BACKWARDS, [{"best": 0.9}]).tolist() == [[0.9, 0.1]]
