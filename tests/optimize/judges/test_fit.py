"""Fitting the sufficiency model on a small hand-made table of states."""

from __future__ import annotations

import json

import pytest

from optimize.judges.fit import FitError, fit_sufficiency, monotone_boosting, read_table
from program.judges.sufficiency import FEATURES, SufficiencyModel


def row(best: float, sufficient: bool, corpus: str = "c", qid: str = "q") -> dict:
    found = {name: 0.5 for name in FEATURES} | {"best": best, "round": 0.0}
    return {"corpus": corpus, "split": "dev", "qid": qid, "round": 0, "action": "retrieve", "sufficient": sufficient,
            "features": found, "passages": 3, "shown": 3}


# sufficient when the best similarity is high, with two exceptions each way so the classes overlap
TABLE = ([row(0.3 + i / 100, False) for i in range(20)] + [row(0.6 + i / 100, True) for i in range(20)]
         + [row(0.35, True), row(0.4, True), row(0.7, False), row(0.75, False)])


def test_a_model_fitted_on_a_hand_made_table_ranks_by_the_feature_that_decides():
    model = fit_sufficiency(TABLE, "hand")
    assert model.features == list(FEATURES) and "hand" in model.fitted_on
    base = {name: 0.5 for name in FEATURES}
    assert model.probability(base | {"best": 0.8}) > 0.7 > 0.3 > model.probability(base | {"best": 0.3})
    assert model.effects()[0][0] == "best"  # the one feature that varies carries the largest effect


def test_the_fitted_model_survives_json(tmp_path):
    model = fit_sufficiency(TABLE, "hand")
    path = tmp_path / "sufficiency.json"
    path.write_text(model.model_dump_json())
    assert SufficiencyModel.model_validate(json.loads(path.read_text())) == model


def test_one_class_is_refused_in_one_line():
    with pytest.raises(FitError, match="too few states"):
        fit_sufficiency([row(0.5, True)] * 10, "hand")


def test_the_monotone_trees_rise_with_the_best_similarity():
    trees = monotone_boosting(TABLE)
    x = [[0.5] * len(FEATURES) for _ in range(2)]
    x[0][0], x[1][0] = 0.3, 0.9
    low, high = trees.predict_proba(x)[:, 1]
    assert low < high


def test_a_table_reads_back_its_rows(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in TABLE[:3]))
    assert read_table(path) == TABLE[:3]
