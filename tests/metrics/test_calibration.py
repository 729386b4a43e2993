"""ECE, AUROC and reliability bins on hand-built lists whose answers are known, and what counts as right."""

import pytest

from metrics import Scorecard
from metrics.calibration import (
    auroc,
    confidence_calibration,
    expected_calibration_error,
    is_right,
    measure_calibration,
    reliability_bins,
)
from program.contract.result import Resources, Result, Trace


@pytest.mark.parametrize("confidences, rights, ece", [
    ([0.25] * 4, [True, False, False, False], 0.0),  # a quarter right at 0.25: calibrated
    ([0.9] * 4, [True, True, True, False], 0.15),  # one bin: |0.9 - 0.75|
    ([0.1, 0.1, 0.9, 0.9], [False, False, True, True], 0.1),  # two bins, each 0.1 off, each half the weight
    ([1.0, 1.0], [True, False], 0.5),  # a confidence of 1 falls in the last bin, not an 11th
    ([0.05, 0.95, 0.95, 0.95], [False, True, True, False], 0.25 * 0.05 + 0.75 * (0.95 - 2 / 3)),
])
def test_expected_calibration_error(confidences, rights, ece):
    assert expected_calibration_error(confidences, rights) == pytest.approx(ece)


def test_no_answers_have_no_ece():
    assert expected_calibration_error([], []) is None


def test_reliability_bins_are_ten_equal_widths_with_counts_means_and_accuracy():
    bins = reliability_bins([0.05, 0.15, 0.15, 0.99, 1.0], [False, True, False, True, True])
    assert [(b.low, b.high) for b in bins][:2] == [(0.0, 0.1), (0.1, 0.2)] and len(bins) == 10
    assert [b.n for b in bins] == [1, 2, 0, 0, 0, 0, 0, 0, 0, 2]
    assert (bins[1].confidence, bins[1].accuracy) == (pytest.approx(0.15), 0.5)
    assert bins[2].confidence is None and bins[2].accuracy is None
    assert bins[9].confidence == pytest.approx(0.995) and bins[9].accuracy == 1.0


@pytest.mark.parametrize("confidences, rights, area", [
    ([0.1, 0.2, 0.8, 0.9], [False, False, True, True], 1.0),  # every right answer above every wrong one
    ([0.9, 0.8, 0.2, 0.1], [False, False, True, True], 0.0),
    ([0.5] * 4, [False, True, False, True], 0.5),  # ties count half
    ([0.1, 0.4, 0.35, 0.8], [False, False, True, True], 0.75),  # 3 of the 4 right-wrong pairs in order
])
def test_auroc(confidences, rights, area):
    assert auroc(confidences, rights) == pytest.approx(area)


def test_auroc_is_none_with_only_one_class():
    assert auroc([0.2, 0.9], [True, True]) is None and auroc([0.2], [False]) is None


def test_right_is_an_f1_of_at_least_a_half():
    assert is_right(Scorecard(f1=0.5)) and not is_right(Scorecard(f1=0.49))


def test_measure_calibration_counts_and_refuses_mismatched_lists():
    found = measure_calibration([0.1, 0.9, 0.8], [False, True, True])
    assert (found.n, found.right, found.auroc) == (3, 2, 1.0) and found.ece == pytest.approx((0.1 + 0.1 + 0.2) / 3)
    with pytest.raises(ValueError, match="2 confidences for 3 outcomes"):
        measure_calibration([0.1, 0.9], [False, True, True])


def test_confidence_calibration_reads_the_confidence_an_agent_reads():
    # no judge ran and nothing was found: the prior of "none" retrieval quality, 5, capped at the fallback's 20
    unjudged = Result(question="q", answer="a", confidence=99, trace=Trace(resources=Resources(judge_calls=0)))
    # a calibrated result reports its calibrated confidence as it is
    calibrated = Result(question="q", answer="a", confidence=70, trace=Trace(uncalibrated_confidence=99))
    found = confidence_calibration([unjudged, calibrated], [False, True])
    assert [b.confidence for b in found.bins if b.n] == [pytest.approx(0.05), pytest.approx(0.7)]
