"""Bootstrap intervals on hand cases."""

import pytest

from optimize.eval.stats import mean_ci, paired_delta_ci, percentile


def test_a_half_and_half_sample_has_an_interval_around_its_mean():
    estimate = mean_ci([0.0, 1.0] * 20)
    assert estimate.mean == 0.5 and estimate.n == 40
    assert 0.25 < estimate.low < 0.5 < estimate.high < 0.75


def test_the_interval_is_reproducible_and_narrows_with_more_data():
    small, large = mean_ci([0.0, 1.0] * 5), mean_ci([0.0, 1.0] * 50)
    assert small == mean_ci([0.0, 1.0] * 5)
    assert large.high - large.low < small.high - small.low


def test_constant_single_and_empty_samples():
    constant = mean_ci([0.7, 0.7, 0.7])
    assert constant.low == constant.mean == constant.high == pytest.approx(0.7) and constant.n == 3
    assert mean_ci([0.3]).low == 0.3
    assert mean_ci([]).n == 0


def test_a_paired_delta_sees_a_consistent_gain_that_unpaired_means_would_hide():
    a = [0.1, 0.9, 0.2, 0.8, 0.5, 0.4]
    delta = paired_delta_ci(a, [x + 0.1 for x in a])
    assert delta.mean == pytest.approx(0.1) and delta.low == pytest.approx(0.1) and delta.high == pytest.approx(0.1)
    mixed = paired_delta_ci([0, 1, 0, 1, 0, 1, 0, 1], [1, 0, 1, 0, 1, 0, 1, 0])
    assert mixed.low < 0 < mixed.high


def test_unpaired_lengths_are_refused_and_percentiles_are_plain():
    with pytest.raises(ValueError, match="differ in length"):
        paired_delta_ci([1.0], [1.0, 2.0])
    assert percentile([1, 2, 3, 4, 5], 50) == 3.0
