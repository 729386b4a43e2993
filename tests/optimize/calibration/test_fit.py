"""Fitting: Platt and isotonic give what scikit-learn predicts, fix an overconfident judge, and refuse too little data."""

import re

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import StratifiedKFold

from optimize.calibration.fit import FitError, before_and_after, fit_calibrator
from optimize.eval.records import outcomes
from program.answer.calibrator import FEATURES, features
from tests.optimize.calibration.conftest import overconfident, record


def test_platt_applies_as_scikit_learn_predicts_over_the_standardized_features():
    results, rights = outcomes(overconfident())
    calibrator = fit_calibrator(results, rights, "platt", fitted_on="hand")
    x = np.array([[features(r)[name] for name in FEATURES] for r in results])
    center, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    model = LogisticRegressionCV(Cs=10, cv=folds, scoring="neg_log_loss", l1_ratios=(0.0,), max_iter=1000,
                                 use_legacy_attributes=False).fit((x - center) / scale, rights)
    expected = model.predict_proba((x - center) / scale)[:, 1]
    assert [calibrator.probability(r) for r in results] == pytest.approx(expected.tolist())
    assert calibrator.features == list(FEATURES)
    assert calibrator.fitted_on == f"hand; C {model.C_:.3g} by 5-fold cross-validation"


def test_isotonic_applies_as_scikit_learn_predicts_over_the_heuristic_confidence():
    results, rights = outcomes(overconfident())
    calibrator = fit_calibrator(results, rights, "isotonic")
    heuristic = [features(r)["heuristic"] for r in results]
    model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(heuristic, rights)
    assert [calibrator.probability(r) for r in results] == pytest.approx(model.predict(heuristic).tolist())
    assert calibrator.probability(record("x", 0.5, True).result) == pytest.approx(0.2)  # the low group's share right


# isotonic fits the two groups' shares exactly; Platt's regularization pulls them toward the base rate a little
@pytest.mark.parametrize("method, ece_after", [("platt", 0.15), ("isotonic", 0.01)])
def test_calibrating_an_overconfident_judge_shrinks_the_ece_and_keeps_its_ranking(method, ece_after):
    results, rights = outcomes(overconfident())
    before, after = before_and_after(results, rights, fit_calibrator(results, rights, method))
    # before: |0.5 - 0.2| and |0.9 - 0.6|, each for half the answers
    assert before.ece == pytest.approx(0.3) and after.ece < ece_after
    assert after.auroc == pytest.approx(before.auroc) and before.auroc > 0.5


def test_a_record_given_up_has_no_result_and_is_left_out():
    records = overconfident(20)
    records[0] = records[0].model_copy(update={"result": None})
    results, rights = outcomes(records)
    assert len(results) == len(rights) == 19


@pytest.mark.parametrize("records, says", [
    (overconfident(18), "too few records to fit a calibrator: 18"),
    ([record(f"q{i}", 0.9, True) for i in range(30)], "30 (30 right)"),  # all right: nothing to tell apart
    ([record(f"q{i}", 0.9, i < 2) for i in range(30)], "30 (2 right)"),
])
def test_too_few_records_or_outcomes_of_one_kind_are_refused(records, says):
    with pytest.raises(FitError, match=rf"{re.escape(says)}.*at least 20, with 3 right and 3 wrong"):
        fit_calibrator(*outcomes(records))
