"""The sufficiency model: its features read from hand-built signals, its probability, its JSON form and the shipped default."""

from __future__ import annotations

import json

import pytest

from program.judges.sufficiency import FEATURES, SufficiencyModel, features
from program.signals import Signals
from program.thresholds import Thresholds

T = Thresholds()
MODEL = SufficiencyModel(features=["best", "pending_bridge"], center=[0.5, 0.2], scale=[0.1, 0.4],
                         weights=[2.0, -1.0], intercept=0.3, fitted_on="hand")


def signals(**changes) -> Signals:
    base = dict(best=0.7, cliff=0.3, spread=0.2, min_coverage=0.6, entity_coverage=1.0, echoes=(-1.0, 0.99, 0.2),
                saturation=0.5, gain=0.1, term_coverage=0.5, sub_queries=(("a b", 0.1), ("c d", 0.9)))
    return Signals(**(base | changes))


def test_features_read_every_signal_the_issue_names():
    found = features(signals(bridges=("X",), unmet_bridges=("X",)), T, round=2)
    assert tuple(found) == FEATURES
    assert found["covered_share"] == 0.5  # one of two sub-queries under coverage_similarity
    assert found["pending_bridge"] == 1.0 and found["round"] == 2.0
    assert found["redundancy"] == pytest.approx(1 / 3)  # one near-duplicate of three passages


def test_a_bridge_with_a_page_is_not_pending():
    assert features(signals(bridges=("X", "Y"), unmet_bridges=("X",)), T, round=0)["pending_bridge"] == 0.0


def test_probability_follows_the_weights_and_a_missing_feature_reads_as_its_mean():
    low, high = MODEL.probability({"best": 0.4, "pending_bridge": 0.0}), MODEL.probability({"best": 0.8, "pending_bridge": 0.0})
    assert 0.0 < low < high < 1.0
    assert MODEL.probability({}) == pytest.approx(1 / (1 + 2.718281828 ** -0.3), rel=1e-6)


def test_the_model_round_trips_through_json():
    assert SufficiencyModel.model_validate(json.loads(MODEL.model_dump_json())) == MODEL


def test_effects_are_sorted_by_standardized_size():
    assert MODEL.effects() == [("best", 20.0, 2.0), ("pending_bridge", -2.5, -1.0)]


@pytest.mark.parametrize("bad", [{"features": ["mood"], "center": [0.0], "scale": [1.0], "weights": [1.0]},
                                 {"scale": [0.0, 1.0]}, {"weights": [1.0]}, {"kind": "pickle"}])
def test_a_malformed_model_is_refused(bad):
    with pytest.raises(ValueError):
        SufficiencyModel.model_validate(MODEL.model_dump() | bad)


def test_the_shipped_default_loads_and_reads_every_feature():
    model = SufficiencyModel.shipped()
    assert set(model.features) <= set(FEATURES)
    assert 0.0 < model.probability(features(signals(), T, round=0)) < 1.0
