"""One row per classifier × centrality metric × stratum: Kendall's tau-b and weighted tau.

Kendall-type statistics compare every pair of hosts: O(n²) pairs in SQL (1.4e11 for the paper's
532,628 hosts). scipy computes them in O(n log n): ``kendalltau`` (tau-b, ties corrected on both
sides) and ``weightedtau`` (its defaults: hyperbolic weigher, ranks by decreasing importance,
so agreement among the most central hosts counts most). This is the one computation here that
SQL cannot express at scale, hence a Python model.
"""

import numpy as np
import pandas as pd
from scipy import stats

KEYS = ["classifier", "centrality_metric", "stratum_type", "stratum"]


def _group_statistics(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None]:
    """Both statistics; None where undefined (fewer than two hosts, or no variance)."""
    if len(x) < 2:
        return None, None
    tau = float(stats.kendalltau(x, y).statistic)
    weighted = float(stats.weightedtau(x, y).statistic)
    return (None if np.isnan(tau) else tau), (None if np.isnan(weighted) else weighted)


def model(dbt, session):
    """Kendall's tau-b and weighted tau of each stratum's centrality-quality pairs."""
    dbt.config(materialized="table")
    pairs = dbt.ref("int_centrality_quality_pairs")
    keys = ", ".join(KEYS)
    groups = pairs.query(
        "pairs",
        f"select {keys}, count(*) as host_count from pairs group by all order by {keys}",
    ).df()
    # Only numbers cross into Python: the groups' rows in the same order, as numpy arrays.
    values = pairs.query(
        "pairs",
        f"select centrality_value, quality_score_median from pairs order by {keys}",
    ).fetchnumpy()
    # the pairs hold no nulls (a masked value would read as 0 here)
    x = np.ma.filled(np.ma.asarray(values["centrality_value"], dtype=float), np.nan)
    y = np.ma.filled(np.ma.asarray(values["quality_score_median"], dtype=float), np.nan)
    ends = np.cumsum(groups["host_count"].to_numpy())
    starts = ends - groups["host_count"].to_numpy()
    taus = [_group_statistics(x[a:b], y[a:b]) for a, b in zip(starts, ends, strict=True)]
    # nullable floats, so that an undefined statistic lands as NULL rather than NaN
    groups["kendall_tau_b"] = pd.array([tau for tau, _ in taus], dtype="Float64")
    groups["weighted_tau"] = pd.array([weighted for _, weighted in taus], dtype="Float64")
    return pd.DataFrame(groups)
