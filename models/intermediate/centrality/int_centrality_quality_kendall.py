"""One row per classifier × centrality metric × stratum: Kendall's tau-b and weighted tau.

Kendall-type statistics compare every pair of hosts: O(n²) pairs in a SQL self-join (1.4e11 for
the paper's 532,628 hosts), so they are computed here, in O(n log n) (Spark, which runs no
Python model in a session, has the same numbers from merge-sort inversion counts in SQL:
spark/int_centrality_quality_kendall_spark.sql):

* ``kendall_tau_b``: the statistic of ``scipy.stats.kendalltau`` (tau-b, ties corrected on
  both sides);
* ``weighted_tau``: the statistic of ``scipy.stats.weightedtau`` with its defaults (hyperbolic
  weigher 1/(r + 1), additive, the mean of the two directions ranking by (x, y) and by (y, x)
  decreasing).

Both come from ``kendall_taus`` below, one count of each host's discordant partners: scipy's
weightedtau takes 5.7 s for 531k hosts (its merge sort recurses in Python), this 0.6 s for
both statistics. Same formulas, held to scipy's within 1e-12 on data with ties
(tests/warehouse/test_kendall_taus.py) and to scipy again by the warehouse reference checks.

Formula (Vigna 2015; scipy's ``_weightedrankedtau``): with element weights w (from its rank in
the chosen direction) and pair weight w_i + w_j, tot = (n − 1)·Σw is the weight of all pairs,
u, v, t the weights of pairs tied in x, in y, in both (a tie group G weighs (|G| − 1)·Σ_G w), and
the discordant pairs weigh Σ_i w_i·d_i, where d_i counts i's discordant partners. Then
tau = (tot − u − v + t − 2·Σ w_i d_i) / sqrt((tot − u)(tot − v)).
"""

import numpy as np
import pandas as pd

KEYS = ["classifier_id", "centrality_metric_id", "stratum_id"]
NAMES = ["classifier", "centrality_metric", "stratum_type", "stratum"]


def discordant_counts(y_ranks: np.ndarray) -> np.ndarray:
    """Per element of a sequence sorted by (x, y): its discordant partners.

    Those are the elements before it with a larger y (smaller or equal x, and an equal x
    would have sorted them by y) plus those after it with a smaller y. ``y_ranks`` are
    integer ranks of y, 0 ≤ rank < n. A bottom-up merge sort counts, for each element, the
    earlier elements with a smaller y: each level merges pairs of sorted blocks with numpy's
    stable sort (a run-merging timsort), vectorised over all blocks.
    """
    n = len(y_ranks)
    ranks = y_ranks.astype(np.int64)
    positions = np.arange(n, dtype=np.int64)
    smaller_before = np.zeros(n, dtype=np.int64)
    order = positions.copy()  # the elements, each block sorted by y
    place = positions.copy()  # place[e]: index of element e in order
    level = 0
    while (1 << level) < n:
        # key: block, then y, then right half first (a left element met before a right
        # element of equal y in the merge would be counted as smaller)
        is_left = ((positions >> level) & 1) == 0
        keys = ((positions >> (level + 1)) * (2 * n) + ranks) * 2 + is_left
        order = order[np.argsort(keys[order], kind="stable")]
        new_place = np.empty(n, dtype=np.int64)
        new_place[order] = positions
        # left elements before a right element in the merged block = its place there minus
        # its place within the right half
        right = ~is_left
        smaller_before[right] += new_place[right] - place[right] + (1 << level)
        place = new_place
        level += 1
    # earlier elements with an equal y (the element's place in its run of equal y), and
    # all elements with a smaller y
    by_rank = np.argsort(ranks, kind="stable")
    first_of_rank = np.cumsum(np.bincount(ranks, minlength=n)) - np.bincount(ranks, minlength=n)
    equal_before = np.empty(n, dtype=np.int64)
    equal_before[by_rank] = positions - first_of_rank[ranks[by_rank]]
    larger_before = positions - smaller_before - equal_before
    smaller_after = first_of_rank[ranks] - smaller_before
    return larger_before + smaller_after


def _tie_weight(is_run_start: np.ndarray, weights: np.ndarray) -> float:
    """The weight of the pairs within runs of equal values: (run length − 1) × run weight."""
    starts = np.flatnonzero(is_run_start)
    lengths = np.diff(np.append(starts, len(weights)))
    return float(np.sum((lengths - 1) * np.add.reduceat(weights, starts)))


def kendall_taus(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Kendall's tau-b and the weighted tau of (x, y), from one count of discordant partners.

    tau-b is ``scipy.stats.kendalltau(x, y).statistic``: the formula below with every weight
    equal (pairs tied in x, in y, in both then count as in tau-b). The weighted tau is
    ``scipy.stats.weightedtau(x, y).statistic`` with its defaults. Both are NaN for fewer than
    two elements or a constant x or y, as scipy's; and for a NaN value, as ``kendalltau``
    (scipy's ``weightedtau`` sorts NaN among the numbers instead).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(x)
    if n < 2 or np.isnan(x).any() or np.isnan(y).any():
        return float("nan"), float("nan")
    x_codes = np.unique(x, return_inverse=True)[1].astype(np.int64)
    y_codes = np.unique(y, return_inverse=True)[1].astype(np.int64)
    if x_codes.max() == 0 or y_codes.max() == 0:
        return float("nan"), float("nan")
    # lexicographic orders by (x, y) and (y, x); the order among equal (x, y) pairs does
    # not change the statistics (they have the same partners)
    by_xy = np.argsort(x_codes * n + y_codes)
    by_yx = np.argsort(y_codes * n + x_codes)
    x_xy, y_xy, y_yx = x_codes[by_xy], y_codes[by_xy], y_codes[by_yx]
    x_run_starts = np.r_[True, x_xy[1:] != x_xy[:-1]]
    joint_run_starts = x_run_starts | np.r_[True, y_xy[1:] != y_xy[:-1]]
    y_run_starts = np.r_[True, y_yx[1:] != y_yx[:-1]]
    discordant = discordant_counts(y_xy)

    def tau(in_xy: np.ndarray, in_yx: np.ndarray) -> float:
        """The statistic for element weights given in (x, y) and in (y, x) order."""
        total = (n - 1) * float(in_xy.sum())
        x_ties = _tie_weight(x_run_starts, in_xy)
        y_ties = _tie_weight(y_run_starts, in_yx)
        joint_ties = _tie_weight(joint_run_starts, in_xy)
        exchanges = float(np.dot(in_xy, discordant))
        value = (total - (y_ties + x_ties - joint_ties) - 2.0 * exchanges) / (
            np.sqrt(total - x_ties) * np.sqrt(total - y_ties)
        )
        return min(1.0, max(-1.0, value))

    ones = np.ones(n)
    # rank 0 is the last element of the lexicographic order: weights 1/(n - index)
    weight_of_index = 1.0 / (n - np.arange(n))
    weights_by_xy = np.empty(n)
    weights_by_xy[by_xy] = weight_of_index
    weights_by_yx = np.empty(n)
    weights_by_yx[by_yx] = weight_of_index
    weighted = [tau(weights[by_xy], weights[by_yx]) for weights in (weights_by_xy, weights_by_yx)]
    return tau(ones, ones), (weighted[0] + weighted[1]) / 2


def weighted_tau(x: np.ndarray, y: np.ndarray) -> float:
    """``scipy.stats.weightedtau(x, y).statistic`` (defaults), in O(n log n) numpy."""
    return kendall_taus(x, y)[1]


def _defined(value: float) -> float | None:
    return None if np.isnan(value) else value


def model(dbt, session):
    """Kendall's tau-b and weighted tau of each stratum's centrality-quality pairs."""
    pairs = dbt.ref("int_centrality_quality_pairs")
    keys = ", ".join(KEYS)
    names = ", ".join(f"any_value({name}) as {name}" for name in NAMES)
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
    kendall, weighted = [], []
    for a, b in zip(starts, ends, strict=True):
        tau_b, tau_weighted = kendall_taus(x[a:b], y[a:b])
        kendall.append(_defined(tau_b))
        weighted.append(_defined(tau_weighted))
    # nullable floats, so that an undefined statistic lands as NULL rather than NaN
    groups["kendall_tau_b"] = pd.array(kendall, dtype="Float64")
    groups["weighted_tau"] = pd.array(weighted, dtype="Float64")
    return pd.DataFrame(groups[[*NAMES, "host_count", "kendall_tau_b", "weighted_tau"]])
