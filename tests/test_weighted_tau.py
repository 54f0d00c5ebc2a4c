"""The Kendall model's own weighted tau equals ``scipy.stats.weightedtau`` (its defaults).

The dbt Python model computes scipy's statistic with a vectorised merge sort (scipy's takes 5.7 s
per 531k hosts); these tests hold it to scipy on data with heavy ties, constant and NaN inputs,
and to a brute-force count of discordant partners.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

PROJECT = Path(__file__).resolve().parents[1]
MODEL = PROJECT / "models" / "intermediate" / "int_centrality_quality_kendall.py"


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


def test_weighted_tau_equals_scipy_on_data_with_ties(kendall_model):
    rng = np.random.default_rng(12)
    largest = 0.0
    for _ in range(600):
        n = int(rng.integers(2, 120))
        x, y = _samples(rng, n), _samples(rng, n)
        ours = kendall_model.weighted_tau(x, y)
        theirs = stats.weightedtau(x, y).statistic
        if np.isnan(theirs):
            assert np.isnan(ours), (x, y)
            continue
        largest = max(largest, abs(ours - theirs))
    assert largest < 1e-12


@pytest.mark.parametrize("n", [2, 3, 1000, 20000])
def test_weighted_tau_equals_scipy_at_size(kendall_model, n):
    rng = np.random.default_rng(n)
    x = rng.lognormal(size=n)
    y = np.round(rng.random(n) * 0.5 + 0.3 * (x > 1), 2)  # correlated, tied on a 0.01 grid
    assert kendall_model.weighted_tau(x, y) == pytest.approx(
        stats.weightedtau(x, y).statistic, abs=1e-12
    )


@pytest.mark.parametrize(
    ("x", "y"),
    [
        ([1.0], [2.0]),  # one element
        ([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]),  # constant x
        ([1.0, 2.0, 3.0], [5.0, 5.0, 5.0]),  # constant y
    ],
)
@pytest.mark.filterwarnings("ignore:One or more sample arguments is too small")
def test_weighted_tau_is_nan_where_scipy_is(kendall_model, x, y):
    assert np.isnan(kendall_model.weighted_tau(np.array(x), np.array(y)))
    assert np.isnan(stats.weightedtau(x, y).statistic)


def test_a_nan_value_gives_nan_as_kendalltau_does(kendall_model):
    # scipy's weightedtau sorts NaN somewhere and returns a number; kendalltau propagates it
    x, y = np.array([1.0, np.nan, 3.0, 4.0]), np.array([1.0, 2.0, 3.0, 1.0])
    assert np.isnan(kendall_model.weighted_tau(x, y))
    assert np.isnan(stats.kendalltau(x, y).statistic)
