"""The risk-coverage curve and AURC on hand-ranked answers."""

import pytest

from metrics.risk_coverage import risk_coverage


def test_a_confidence_that_ranks_the_wrong_answers_last_has_a_low_area():
    curve = risk_coverage([(0.9, True), (0.8, True), (0.3, False)], questions=4)
    assert curve.points == [(0.25, 0.0), (0.5, 0.0), (0.75, pytest.approx(1 / 3))]
    assert curve.aurc == pytest.approx((0 + 0 + 1 / 3) / 3) and curve.coverage == 0.75
    reversed_ = risk_coverage([(0.3, True), (0.8, True), (0.9, False)], questions=4)
    assert reversed_.aurc == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)


def test_tied_confidences_are_one_point_and_their_area_is_the_wrong_rate_in_any_order():
    curve = risk_coverage([(0.5, False), (0.5, True), (0.5, True), (0.5, False)], questions=4)
    assert curve.points == [(1.0, 0.5)] and curve.aurc == pytest.approx(0.5)
    assert risk_coverage([(0.5, True), (0.5, False)], 2).aurc == risk_coverage([(0.5, False), (0.5, True)], 2).aurc


def test_no_answers_have_no_area_and_more_answers_than_questions_are_refused():
    assert risk_coverage([], questions=3).aurc is None and risk_coverage([], 3).coverage == 0.0
    with pytest.raises(ValueError, match="2 answers to 1 questions"):
        risk_coverage([(0.1, True), (0.2, True)], questions=1)
