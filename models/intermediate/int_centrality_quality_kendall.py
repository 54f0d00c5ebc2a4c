"""One row per classifier × centrality metric × stratum: Kendall's tau-b and weighted tau.

Kendall-type statistics compare every pair of hosts: O(n²) pairs in SQL (1.4e11 for the paper's
532,628 hosts). scipy computes them in O(n log n): ``kendalltau`` (tau-b, ties corrected on both
sides) and ``weightedtau`` (its defaults: hyperbolic weigher, ranks by decreasing importance,
so agreement among the most central hosts counts most). This is the one computation here that
SQL cannot express at scale, hence a Python model.

``weightedtau`` is the slow one (about 5 s for 500k hosts, against 0.15 s for ``kendalltau``):
the groups go to worker processes, the largest first. A dbt Python model is not an importable
module, so the workers are handed scipy's function itself.
"""

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
from scipy import stats

KEYS = ["classifier_id", "centrality_metric", "stratum_id"]
NAMES = ["classifier", "centrality_metric", "stratum_type", "stratum"]
MAX_WORKERS = 4


def _defined(value: float) -> float | None:
    return None if np.isnan(value) else value


def _weighted_taus(groups: list[tuple[np.ndarray, np.ndarray]]) -> list[float]:
    """The weighted tau of each (x, y) by scipy, in worker processes when there are two or more."""
    workers = min(MAX_WORKERS, len(os.sched_getaffinity(0)), len(groups))
    if workers < 2:
        return [float(stats.weightedtau(x, y).statistic) for x, y in groups]
    # largest first, so that no worker is left with a big group at the end
    order = sorted(range(len(groups)), key=lambda i: -len(groups[i][0]))
    results: list[float] = [float("nan")] * len(groups)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {i: pool.submit(stats.weightedtau, *groups[i]) for i in order}
        for i, future in futures.items():
            results[i] = float(future.result().statistic)
    return results


def model(dbt, session):
    """Kendall's tau-b and weighted tau of each stratum's centrality-quality pairs."""
    dbt.config(materialized="table")
    pairs = dbt.ref("int_centrality_quality_pairs")
    keys = ", ".join(KEYS)
    names = ", ".join(f"any_value({name}) as {name}" for name in NAMES if name not in KEYS)
    groups = pairs.query(
        "pairs",
        f"select {keys}, {names}, count(*) as host_count from pairs group by all order by {keys}",
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
    # both statistics are undefined for fewer than two hosts (and None where a side is constant)
    defined = [(x[a:b], y[a:b]) for a, b in zip(starts, ends, strict=True) if b - a >= 2]
    taus = iter([_defined(float(stats.kendalltau(gx, gy).statistic)) for gx, gy in defined])
    weighted = iter([_defined(tau) for tau in _weighted_taus(defined)])
    sizes = groups["host_count"].to_numpy()
    # nullable floats, so that an undefined statistic lands as NULL rather than NaN
    groups["kendall_tau_b"] = pd.array(
        [next(taus) if size >= 2 else None for size in sizes], dtype="Float64"
    )
    groups["weighted_tau"] = pd.array(
        [next(weighted) if size >= 2 else None for size in sizes], dtype="Float64"
    )
    return pd.DataFrame(groups[[*NAMES, "host_count", "kendall_tau_b", "weighted_tau"]])
