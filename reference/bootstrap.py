"""The Poisson bootstrap over hosts (docs/definitions.md, "Bootstrap intervals").

Replicate b (1 .. B) counts each host as many times as its weight, a Poisson(1) draw that is
a function of (host, b) alone. md5("<host>") gives two seeds, its hex digits 1-15 and 16-30
read as integers and reduced mod p = 2^31 - 1; replicate b's uniform is
u = (seed_0 + b * seed_1) mod p, and the weight is the k with
P(K <= k - 1) <= u / p < P(K <= k), K ~ Poisson(1) — the number of thresholds
ceil(P(K <= k) p) that u reaches. Replicate 0 is the sample (every weight 1). The interval is
the replicates' percentile interval (numpy's linear quantiles), the standard error their
sample standard deviation.

Written from the definition, not from macros/bootstrap.sql: the thresholds come from
scipy's Poisson CDF here, from integer literals there.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

__all__ = [
    "MODULUS",
    "THRESHOLDS",
    "host_seeds",
    "interval",
    "normal_interval",
    "poisson_weights",
    "seed_mean_spearman_influence",
    "spearman_influence",
]

MODULUS = 2**31 - 1  # a prime: two replicates' uniforms of one host are independent
# ceil(P(K <= k) * p) for K ~ Poisson(1), k = 0, 1, ... while below p
THRESHOLDS = np.array(
    [t for t in np.ceil(stats.poisson.cdf(np.arange(40), 1) * MODULUS).astype(np.int64)
     if t < MODULUS]
)  # fmt: skip


def host_seeds(keys: Sequence[str]) -> np.ndarray:
    """Each key's two seeds (rows of two integers in 0 .. p - 1)."""
    digests = [hashlib.md5(key.encode()).hexdigest() for key in keys]
    return np.array(
        [[int(digest[:15], 16) % MODULUS, int(digest[15:30], 16) % MODULUS]
         for digest in digests],
        dtype=np.int64,
    ).reshape(len(keys), 2)  # fmt: skip


def poisson_weights(keys: Sequence[str], replicates: int) -> np.ndarray:
    """The weights of ``keys`` (rows) in replicates 0 .. ``replicates`` (columns)."""
    seeds = host_seeds(keys)
    weights = np.ones((len(keys), replicates + 1), dtype=np.int64)
    for b in range(1, replicates + 1):
        uniforms = (seeds[:, 0] + b * seeds[:, 1]) % MODULUS
        weights[:, b] = np.searchsorted(THRESHOLDS, uniforms, side="right")
    return weights


def interval(values: np.ndarray, level: float) -> tuple[float, float, float]:
    """(low, high, standard error) of a statistic's bootstrap replicates (NaN when none)."""
    values = np.asarray(values, dtype=float)
    if len(values) == 0:
        return (np.nan, np.nan, np.nan)
    lower = (1 - level) / 2
    low, high = np.quantile(values, [lower, 1 - lower])
    se = float(np.std(values, ddof=1)) if len(values) > 1 else np.nan
    return float(low), float(high), se


def normal_interval(
    value: float,
    variance: float,
    name: str,
    config: dict,
    bounds: tuple[float | None, float | None] = (None, None),
) -> dict[str, float]:
    """``<name>_ci_low``, ``_ci_high``, ``_se``: value -/+ z sqrt(variance), within ``bounds``.

    The first-order bootstrap's normal limit (macros/bootstrap.sql ``normal_interval``): z is
    the standard normal quantile at (1 + ``bootstrap_level``) / 2 (scipy); NaN when the
    intervals are off (``bootstrap_replicates`` 0) or the value or variance is.
    """
    columns = [f"{name}_ci_low", f"{name}_ci_high", f"{name}_se"]
    if not int(config["bootstrap_replicates"]) or math.isnan(value) or math.isnan(variance):
        return dict.fromkeys(columns, math.nan)
    se = math.sqrt(variance)
    z = float(stats.norm.ppf((1 + float(config["bootstrap_level"])) / 2))
    low, high = value - z * se, value + z * se
    if bounds[0] is not None:
        low = max(bounds[0], low)
    if bounds[1] is not None:
        high = min(bounds[1], high)
    return dict(zip(columns, (low, high, se), strict=True))


def _above_and_half_ties(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """sum_i K(k_h, k_i) v_i for each h, K(s, t) = 1 if s < t, 1/2 if s = t, else 0."""
    unique, position = np.unique(keys, return_inverse=True)
    tied = np.bincount(position, weights=values, minlength=len(unique))
    above = tied[::-1].cumsum()[::-1] - tied  # the tie groups after each one
    return above[position] + tied[position] / 2


def spearman_influence(x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Spearman's rho of (x, y) and each point's influence on it (docs/definitions.md B).

    Weighting point h by w_h, its mid-rank less 1/2 is a_h = sum_i w_i K(x_i, x_h); rho is the
    w-weighted Pearson correlation of a and b (y's). psi_h is d rho / d w_h at w = 1, so a
    bootstrap replicate's rho is rho + sum_h (w_h - 1) psi_h to first order. NaN (and NaNs)
    when x or y is constant.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    n = len(x)
    a = _above_and_half_ties(-x, np.ones(n))  # points below x_h and half its ties
    b = _above_and_half_ties(-y, np.ones(n))
    # C = sum w a b - W^3 / 4 (the sums of a and of b are W^2 / 2), and its derivatives
    c_ab, c_aa, c_bb = a @ b - n**3 / 4, a @ a - n**3 / 4, b @ b - n**3 / 4
    if c_aa <= 0 or c_bb <= 0:
        return np.nan, np.full(n, np.nan)
    d_ab = a * b + _above_and_half_ties(x, b) + _above_and_half_ties(y, a) - 3 * n**2 / 4
    d_aa = a * a + 2 * _above_and_half_ties(x, a) - 3 * n**2 / 4
    d_bb = b * b + 2 * _above_and_half_ties(y, b) - 3 * n**2 / 4
    scale = np.sqrt(c_aa * c_bb)
    rho = c_ab / scale
    return float(rho), d_ab / scale - rho / 2 * (d_aa / c_aa + d_bb / c_bb)


def seed_mean_spearman_influence(
    pairs: Sequence[tuple[np.ndarray, np.ndarray]],
) -> tuple[float, np.ndarray]:
    """The mean over seeds of Spearman's rho, and each host's influence on that mean.

    ``pairs`` holds one (x, y) per seed, host h at index h in every one: the seeds share their
    hosts, so a host's influence is the mean of its influences seed by seed (weighting host h
    moves every seed's rho at once), not a seed's alone. Seeds where rho is undefined are
    left out, as the mean leaves them; (NaN, NaNs) when every seed's is.
    """
    defined = [spearman_influence(x, y) for x, y in pairs]
    defined = [(rho, psi) for rho, psi in defined if not math.isnan(rho)]
    if not defined:
        hosts = len(pairs[0][0]) if len(pairs) else 0
        return math.nan, np.full(hosts, np.nan)
    rhos, influences = zip(*defined, strict=True)
    return math.fsum(rhos) / len(rhos), np.mean(influences, axis=0)
