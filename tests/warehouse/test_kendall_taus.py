"""The Kendall model's statistics equal scipy's: ``kendalltau`` (tau-b) and ``weightedtau``.

The dbt Python model computes both from one vectorised count of discordant partners (scipy's
weightedtau takes 5.7 s per 531k hosts); these tests hold them to scipy on data with heavy ties,
constant and NaN inputs, and the count to a brute-force one.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from scipy import stats

from hostaware.paths import PROJECT

MODEL = PROJECT / "models" / "intermediate" / "centrality" / "int_centrality_quality_kendall.py"


@pytest.fixture(scope="module")
def kendall_model():
    spec = importlib.util.spec_from_file_location("int_centrality_quality_kendall", MODEL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _brute_discordant(ranks: np.ndarray) -> np.ndarray:
    return np.array(
        [
            np.sum(ranks[:index] > rank) + np.sum(ranks[index + 1 :] < rank)
            for index, rank in enumerate(ranks)
        ]
    )


def test_discordant_counts_match_a_brute_force_count(kendall_model):
    rng = np.random.default_rng(11)
    for _ in range(400):
        n = int(rng.integers(1, 90))
        ranks = rng.integers(0, rng.integers(1, 12), n)
        assert (kendall_model.discordant_counts(ranks) == _brute_discordant(ranks)).all(), ranks


def _samples(rng: np.random.Generator, n: int) -> np.ndarray:
    """Continuous, or integers from a small range (many ties), or a few repeated values."""
    kind = rng.integers(0, 3)
    if kind == 0:
        return rng.random(n)
    if kind == 1:
        return rng.integers(0, rng.integers(2, 9), n).astype(float)
    return rng.choice([0.1, 0.25, 0.25, 7.0], n)


def test_both_taus_equal_scipy_on_data_with_ties(kendall_model):
    rng = np.random.default_rng(12)
    largest = 0.0
    for _ in range(600):
        n = int(rng.integers(2, 120))
        x, y = _samples(rng, n), _samples(rng, n)
        ours = kendall_model.kendall_taus(x, y)
        theirs = (stats.kendalltau(x, y).statistic, stats.weightedtau(x, y).statistic)
        for mine, scipys in zip(ours, theirs, strict=True):
            if np.isnan(scipys):
                assert np.isnan(mine), (x, y)
                continue
            largest = max(largest, abs(mine - scipys))
    assert largest < 1e-12


@pytest.mark.parametrize("n", [2, 3, 1000, 20000])
def test_both_taus_equal_scipy_at_size(kendall_model, n):
    rng = np.random.default_rng(n)
    x = rng.lognormal(size=n)
    y = np.round(rng.random(n) * 0.5 + 0.3 * (x > 1), 2)  # correlated, tied on a 0.01 grid
    tau_b, weighted = kendall_model.kendall_taus(x, y)
    assert tau_b == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert weighted == pytest.approx(stats.weightedtau(x, y).statistic, abs=1e-12)


@pytest.mark.parametrize(
    ("x", "y"),
    [
        ([1.0], [2.0]),  # one element
        ([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]),  # constant x
        ([1.0, 2.0, 3.0], [5.0, 5.0, 5.0]),  # constant y
    ],
)
@pytest.mark.filterwarnings("ignore:One or more sample arguments is too small")
def test_both_taus_are_nan_where_scipy_is(kendall_model, x, y):
    assert np.isnan(kendall_model.kendall_taus(np.array(x), np.array(y))).all()
    assert np.isnan(stats.kendalltau(x, y).statistic)
    assert np.isnan(stats.weightedtau(x, y).statistic)


def test_a_nan_value_gives_nan_as_kendalltau_does(kendall_model):
    # scipy's weightedtau sorts NaN somewhere and returns a number; kendalltau propagates it
    x, y = np.array([1.0, np.nan, 3.0, 4.0]), np.array([1.0, 2.0, 3.0, 1.0])
    assert np.isnan(kendall_model.kendall_taus(x, y)).all()
    assert np.isnan(stats.kendalltau(x, y).statistic)
