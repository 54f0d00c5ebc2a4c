"""reference.kendall against scipy and a brute-force count, on many groups with heavy ties.

The reference's Kendall statistics are its own O(n log n) count (an MSD partition of x ranks);
here they are held to ``scipy.stats.kendalltau`` and ``scipy.stats.weightedtau`` (scipy 1.x,
defaults), group by group, on unequal group sizes, ties in x, in y and in both, constant
groups and single elements.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from reference.kendall import discordant_partners, grouped_kendall


def _brute_discordant(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    same = groups[:, None] == groups[None, :]
    sign = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    return ((sign < 0) & same).sum(axis=1)


def _groups(rng: np.random.Generator, levels: int) -> tuple[np.ndarray, ...]:
    sizes = rng.integers(1, 60, size=rng.integers(1, 8))
    groups = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(groups)
    n = len(groups)
    x = rng.integers(0, levels, n).astype(float) * rng.choice([1.0, -0.5, 3.25])
    y = rng.integers(0, levels, n).astype(float) + rng.normal(0, 1e-3, n) * (levels > 50)
    return x, y, groups


@pytest.mark.parametrize("levels", [1, 2, 3, 7, 40, 1000])
def test_discordant_partners_match_a_brute_force_count(levels):
    rng = np.random.default_rng(levels)
    for _ in range(60):
        x, y, groups = _groups(rng, levels)
        assert np.array_equal(discordant_partners(x, y, groups), _brute_discordant(x, y, groups))


def _scipy(function, x, y):
    if len(x) < 2:
        return np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(x, y).statistic


@pytest.mark.parametrize("levels", [1, 2, 3, 7, 40, 1000])
def test_grouped_taus_equal_scipys(levels):
    rng = np.random.default_rng(100 + levels)
    for _ in range(40):
        x, y, groups = _groups(rng, levels)
        tau_b, weighted = grouped_kendall(x, y, groups)
        assert len(tau_b) == len(weighted) == groups.max() + 1
        for group in range(groups.max() + 1):
            members = groups == group
            expected_b = _scipy(stats.kendalltau, x[members], y[members])
            expected_w = _scipy(stats.weightedtau, x[members], y[members])
            np.testing.assert_allclose(tau_b[group], expected_b, rtol=0, atol=1e-12)
            np.testing.assert_allclose(weighted[group], expected_w, rtol=0, atol=1e-12)


def test_a_large_group_equals_scipy_and_perfect_orders_are_one():
    rng = np.random.default_rng(7)
    x = rng.lognormal(size=20_000).round(2)
    y = 0.3 * np.log(x + 1) + rng.normal(size=len(x)).round(1)
    groups = np.zeros(len(x), dtype=np.int64)
    tau_b, weighted = grouped_kendall(x, y, groups)
    assert tau_b[0] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert weighted[0] == pytest.approx(stats.weightedtau(x, y).statistic, abs=1e-12)
    ordered = np.arange(50.0)
    both = np.r_[np.zeros(50, dtype=np.int64), np.ones(50, dtype=np.int64)]
    tau_b, weighted = grouped_kendall(np.r_[ordered, ordered], np.r_[ordered, -ordered], both)
    np.testing.assert_allclose(tau_b, [1.0, -1.0], atol=1e-15)
    np.testing.assert_allclose(weighted, [1.0, -1.0], atol=1e-15)
