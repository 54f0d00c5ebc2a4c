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


def _group_statistics(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    if len(x) < 2:
        return float("nan"), float("nan")
    return float(stats.kendalltau(x, y).statistic), float(stats.weightedtau(x, y).statistic)


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
    x = np.asarray(values["centrality_value"], dtype=float)
    y = np.asarray(values["quality_score_median"], dtype=float)
    ends = np.cumsum(groups["host_count"].to_numpy())
    starts = ends - groups["host_count"].to_numpy()
    taus = [_group_statistics(x[a:b], y[a:b]) for a, b in zip(starts, ends, strict=True)]
    groups["kendall_tau_b"] = [tau for tau, _ in taus]
    groups["weighted_tau"] = [weighted for _, weighted in taus]
    return pd.DataFrame(groups)
