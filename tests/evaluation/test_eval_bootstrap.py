from __future__ import annotations

import pytest

from embedstore.evaluation.bootstrap import paired_bootstrap_ci, reciprocal_ranks


def test_identical_systems_have_a_zero_width_interval() -> None:
    assert paired_bootstrap_ci([1.0, 0.5, 0.0], [1.0, 0.5, 0.0]) == (0.0, 0.0, 0.0)


def test_a_consistent_gain_has_an_interval_above_zero() -> None:
    a = [0.5 + 0.01 * (i % 7) for i in range(200)]
    b = [x - 0.1 for x in a]
    diff, low, high = paired_bootstrap_ci(a, b)
    assert diff == pytest.approx(0.1)
    assert 0 < low <= diff <= high


def test_a_noisy_difference_straddles_zero() -> None:
    a = [1.0, 0.0] * 50
    b = [0.0, 1.0] * 50
    _, low, high = paired_bootstrap_ci(a, b, seed=3)
    assert low < 0 < high


def test_unpaired_lists_are_refused() -> None:
    with pytest.raises(ValueError, match="equally long"):
        paired_bootstrap_ci([1.0], [1.0, 0.5])


def test_reciprocal_ranks_stop_at_the_cutoff() -> None:
    assert reciprocal_ranks([1, 4, 11, None], 10) == [1.0, 0.25, 0.0, 0.0]
