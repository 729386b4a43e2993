"""The calibrator's features of a finished result, its two maps (Platt, isotonic), and what calibrating changes."""

import math

import pytest

from program.answer.calibrator import FEATURES, ConfidenceCalibrator, features
from program.contract.agent_metadata import agent_confidence, heuristic_confidence
from program.contract.result import Citation, Resources, Result, Step, Trace
from tests.conftest import passage

EVIDENCE = passage("Kiss and Tell", "Kiss and Tell is a 1945 film starring Shirley Temple.")


def judged(confidence=80, judge_step=0.8, rule="judge_sufficient", ended="answered") -> Result:
    steps = [Step(action="retrieve"), Step(action="judge", confidence=judge_step, rule="ambiguous",
                                           signals={"best": 0.5, "cliff": 0.05}),
             Step(action="answer", rule=rule, signals={"best": 0.7, "cliff": 0.2, "spread": 0.02, "term_coverage": 0.5})]
    trace = Trace(steps=steps, ended=ended, resources=Resources(judge_calls=1, web_searches=1, iterations=2),
                  query_similarity={"Kiss and Tell star": 0.7, "Shirley Temple office": 0.3}, coverage_similarity=0.45)
    cite = Citation(n=1, chunk_id=EVIDENCE.chunk_id, source="index", title=EVIDENCE.title, quote="...")
    return Result(question="q", answer="Chief of Protocol [1].", short_answer="Chief of Protocol", citations=[cite],
                  confidence=confidence, evidence=[EVIDENCE], trace=trace)


def platt(weights: dict[str, float], intercept=0.0) -> ConfidenceCalibrator:
    return ConfidenceCalibrator(method="platt", features=list(weights), center=[0.0] * len(weights),
                                scale=[1.0] * len(weights), weights=list(weights.values()), intercept=intercept)


def test_features_read_the_last_signals_the_judge_the_quality_and_the_ending():
    found = features(judged())
    assert list(found) == list(FEATURES)
    # the answer step's signals, not the judge step's; a signal it did not record reads 0
    assert (found["best"], found["cliff"], found["spread"], found["term_coverage"], found["entity_coverage"]) == (
        0.7, 0.2, 0.02, 0.5, 0.0)
    assert (found["judge_confidence"], found["judged"], found["covered_share"]) == (0.8, 1.0, 0.5)
    # medium quality (half the queries covered) caps the judge's 80 at 75
    assert found["heuristic"] == 0.75
    assert (found["rule_judged"], found["rule_covered"], found["answered"], found["cited"], found["web"]) == (1, 0, 1, 1, 1)
    assert (found["abstained"], found["iterations"]) == (0.0, 2.0)


def test_a_result_with_no_trace_has_every_feature_at_rest():
    found = features(Result(question="q", answer=""))
    assert set(found) == set(FEATURES) and found["best"] == 0.0 and found["judged"] == 0.0
    assert found["heuristic"] == 0.05  # the prior of "none" retrieval quality


def test_platt_is_a_logistic_over_the_standardized_features():
    assert platt({"judged": 0.0}).probability(judged()) == 0.5
    assert platt({"judged": math.log(3)}).probability(judged()) == pytest.approx(0.75)
    centered = ConfidenceCalibrator(method="platt", features=["iterations"], center=[1.0], scale=[0.5], weights=[1.0],
                                    intercept=-2.0)
    assert centered.probability(judged()) == pytest.approx(0.5)  # (2 - 1) / 0.5 - 2 = 0


def test_isotonic_interpolates_between_its_knots_and_clips_outside_them():
    curve = ConfidenceCalibrator(method="isotonic", features=["heuristic"], knots_x=[0.2, 0.6], knots_y=[0.1, 0.5])
    assert curve.probability(judged(confidence=40)) == pytest.approx(0.3)  # heuristic 0.4: halfway
    assert curve.probability(judged(confidence=10)) == 0.1  # under the first knot
    assert curve.probability(judged(confidence=100)) == 0.5  # over the last (capped at 0.75 by quality)


def test_calibrating_replaces_the_confidence_and_keeps_the_judges_in_the_trace():
    result = judged(confidence=80)
    calibrated = platt({"judged": math.log(3)}).calibrate(result)
    assert calibrated.confidence == 75 and calibrated.trace.uncalibrated_confidence == 80
    assert agent_confidence(calibrated) == 75 and heuristic_confidence(calibrated) == heuristic_confidence(result)
    again = platt({"judged": 0.0}).calibrate(calibrated)  # a second calibrator reads the same features
    assert again.confidence == 50 and again.trace.uncalibrated_confidence == 80
    assert result.confidence == 80 and result.trace.uncalibrated_confidence is None  # the original is untouched


def test_a_calibrated_confidence_is_not_capped_by_quality_or_the_fallback():
    budget_out = judged(confidence=90, ended="budget_exhausted")
    assert agent_confidence(budget_out) == 20  # the heuristic: the loop ended unfinished, so a fallback
    assert agent_confidence(platt({"judged": 3.0}).calibrate(budget_out)) == 95


@pytest.mark.parametrize("fields, says", [
    (dict(method="platt", features=["mood"], center=[0.0], scale=[1.0], weights=[1.0]), "not among"),
    (dict(method="platt", features=["judged", "web"], center=[0.0], scale=[1.0], weights=[1.0]), "one nonzero"),
    (dict(method="platt", features=["judged"], center=[0.0], scale=[0.0], weights=[1.0]), "one nonzero"),
    (dict(method="isotonic", features=["heuristic"], knots_x=[0.5, 0.2], knots_y=[0.1, 0.2]), "increasing"),
    (dict(method="isotonic", features=["heuristic"], knots_x=[], knots_y=[]), "increasing"),
    (dict(method="platt", features=["judged"], center=[0.0], scale=[1.0], weights=[1.0], slope=2), "Extra inputs"),
])
def test_a_malformed_calibrator_is_refused(fields, says):
    with pytest.raises(ValueError, match=says):
        ConfidenceCalibrator(**fields)


def test_a_calibrator_saved_with_a_retired_feature_loads_reads_it_as_0_and_says_to_refit():
    with pytest.warns(UserWarning, match="plateau.*refit it: python -m optimize calibrate"):
        old = ConfidenceCalibrator(method="platt", features=["heuristic", "plateau"], center=[0.5, 0.5],
                                   scale=[1.0, 1.0], weights=[1.0, 4.0])
    expected = 1 / (1 + math.exp(-((0.75 - 0.5) + 4.0 * (0.0 - 0.5))))
    assert old.probability(judged()) == pytest.approx(expected)
