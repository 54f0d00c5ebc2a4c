"""The Poisson bootstrap over hosts (docs/definitions.md, "Bootstrap intervals").

Replicate b (1 .. B) counts each host as many times as its weight, a Poisson(1) draw that is
a function of (host, b) alone: h = the first 13 hex digits of md5("<host>:<b>"), a uniform
integer in [0, 2^52), and the weight is the k with P(K <= k - 1) <= h / 2^52 < P(K <= k),
K ~ Poisson(1) — the number of thresholds ceil(P(K <= k) 2^52) that h reaches. Replicate 0 is
the sample (every weight 1). The interval is the replicates' percentile interval (numpy's
linear quantiles), the standard error their sample standard deviation.

Written from the definition, not from macros/bootstrap.sql: the thresholds come from
scipy's Poisson CDF here, from integer literals there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from scipy import stats

__all__ = ["THRESHOLDS", "interval", "poisson_weights"]

# ceil(P(K <= k) * 2^52) for K ~ Poisson(1), k = 0, 1, ... while below 2^52
_SCALE = 2**52
THRESHOLDS = np.array(
    [t for t in np.ceil(stats.poisson.cdf(np.arange(40), 1) * _SCALE).astype(np.int64)
     if t < _SCALE]
)  # fmt: skip


def poisson_weights(keys: Sequence[str], replicates: int) -> np.ndarray:
    """The weights of ``keys`` (rows) in replicates 0 .. ``replicates`` (columns)."""
    weights = np.ones((len(keys), replicates + 1), dtype=np.int64)
    for b in range(1, replicates + 1):
        draws = np.array(
            [int(hashlib.md5(f"{key}:{b}".encode()).hexdigest()[:13], 16) for key in keys],
            dtype=np.int64,
        )
        weights[:, b] = np.searchsorted(THRESHOLDS, draws, side="right")
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
