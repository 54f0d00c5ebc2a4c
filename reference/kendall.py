"""Kendall's tau-b and the weighted tau of many groups at once, in O(n log n) numpy.

docs/definitions.md A3. For each group (a stratum of one classifier and metric):

* ``tau_b`` is ``scipy.stats.kendalltau(x, y).statistic``;
* ``weighted_tau`` is ``scipy.stats.weightedtau(x, y).statistic`` with its defaults: the
  hyperbolic weigher 1/(r + 1), additive pair weights w_i + w_j, and the mean of the two
  directions, where r is an element's place in decreasing lexicographic order of (x, y), then
  of (y, x) (Vigna 2015, "A weighted correlation index for rankings with ties").

With element weights w, tot = (n − 1)·Σw weighs all pairs; u, v, t weigh the pairs tied in x,
in y, in both (a run of equal values weighs (length − 1) × its Σw); the discordant pairs weigh
Σ_i w_i·d_i, where d_i counts the partners j with (x_j − x_i)(y_j − y_i) < 0. Then
tau = (tot − u − v + t − 2·Σ w_i d_i) / sqrt((tot − u)(tot − v)); with every w = 1 it is tau-b.

The d_i come from one most-significant-bit-first partition of the x codes (an MSD radix
split): the elements stay in y order within segments of equal group and equal high x bits; at
each bit, an element with the bit set meets the segment's elements with it clear (smaller x),
those after it in y order being its discordant partners, and a clear element the set ones
before it; then each segment splits stably in two, in O(n). Every pair with different x meets
once, at the highest bit where their codes differ; ties in y are ordered by x, so a pair tied in
y never counts, and pairs tied in x never meet. log2(distinct x) passes, no comparison sort.

This is written from the definitions, apart from the warehouse's own count
(models/intermediate/centrality/int_centrality_quality_kendall.py, a bottom-up merge sort);
tests/warehouse/test_reference_kendall.py holds it to scipy on data with ties.
"""

from __future__ import annotations

import numpy as np

__all__ = ["discordant_partners", "grouped_kendall"]


class _Orders:
    """The elements sorted by (group, x, y) and by (group, y, x), and what follows from it."""

    def __init__(self, x: np.ndarray, y: np.ndarray, groups: np.ndarray):
        self.n = n = len(x)
        self.size = int(groups.max()) + 1 if n else 0
        self.groups = groups
        # dense codes over all groups: ties within a group are ties of the codes
        self.x_codes = np.unique(x, return_inverse=True)[1].reshape(-1).astype(np.int64)
        self.y_codes = np.unique(y, return_inverse=True)[1].reshape(-1).astype(np.int64)
        x_levels = int(self.x_codes.max()) + 1 if n else 1
        y_levels = int(self.y_codes.max()) + 1 if n else 1
        if self.size * x_levels * y_levels < 2**62:  # one integer key, one sort
            self.by_xy = np.argsort((groups * x_levels + self.x_codes) * y_levels + self.y_codes)
            self.by_yx = np.argsort((groups * y_levels + self.y_codes) * x_levels + self.x_codes)
        else:
            self.by_xy = np.lexsort((self.y_codes, self.x_codes, groups))
            self.by_yx = np.lexsort((self.x_codes, self.y_codes, groups))
        self.count = np.bincount(groups, minlength=self.size)

    def runs(self, order: np.ndarray, *keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Starts of the runs of equal (group, *keys) along ``order``, and each run's group."""
        change = np.zeros(self.n, dtype=bool)
        change[0:1] = True
        for key in (self.groups, *keys):
            sorted_key = key[order]
            change[1:] |= sorted_key[1:] != sorted_key[:-1]
        starts = np.flatnonzero(change)
        return starts, self.groups[order][starts]

    def places_from_last(self, order: np.ndarray) -> np.ndarray:
        """Each element's place counted from the end of its group along ``order`` (0 = last)."""
        group_end = np.cumsum(self.count)[self.groups[order]]
        places = np.empty(self.n, dtype=np.int64)
        places[order] = group_end - 1 - np.arange(self.n)
        return places


def _partners(orders: _Orders) -> np.ndarray:
    n = orders.n
    index = np.int32 if n < 2**31 else np.int64
    position = np.arange(n, dtype=index)
    # along the (group, y, x) order: segments are the groups
    element = orders.by_yx.astype(index)
    code = orders.x_codes[element].astype(index)
    groups_in_order = orders.groups[element]
    is_first = np.r_[True, groups_in_order[1:] != groups_in_order[:-1]]
    group_start = np.flatnonzero(is_first)
    segment = np.cumsum(is_first) - 1
    start = group_start[segment].astype(index)
    length = np.diff(np.r_[group_start, n])[segment].astype(index)
    partners = np.zeros(n, dtype=np.int64)
    for level in range(int(code.max()).bit_length() - 1 if n else -1, -1, -1):
        clear = ((code >> level) & 1) == 0
        clears = np.cumsum(clear, dtype=index)  # inclusive
        before_segment = clears[start] - clear[start]
        clear_before = clears - clear - before_segment
        clear_total = clears[start + length - 1] - before_segment
        set_before = position - start - clear_before
        # a clear element: the set ones before it (larger x, smaller y); a set element: the
        # clear ones after it (smaller x, larger y)
        partners += np.where(clear, set_before, clear_total - clear_before)
        place = start + np.where(clear, clear_before, clear_total + set_before)
        new_start = np.where(clear, start, start + clear_total)
        new_length = np.where(clear, clear_total, length - clear_total)
        moved = []
        for values in (element, code, partners, new_start, new_length):
            target = np.empty_like(values)
            target[place] = values
            moved.append(target)
        element, code, partners, start, length = moved
    out = np.empty(n, dtype=np.int64)
    out[element] = partners
    return out


def discordant_partners(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Per element: the elements of its group strictly discordant with it.

    ``groups`` are integer ids 0..k; elements of different groups are never compared.
    """
    return _partners(_Orders(np.asarray(x), np.asarray(y), np.asarray(groups, dtype=np.int64)))


def grouped_kendall(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per group id 0..max(groups): (tau_b, weighted_tau), NaN where undefined.

    Undefined, as in scipy: fewer than two elements, or x or y constant within the group.
    """
    orders = _Orders(
        np.asarray(x, dtype=float), np.asarray(y, dtype=float), np.asarray(groups, np.int64)
    )
    size, groups = orders.size, orders.groups
    discordant = _partners(orders).astype(float)
    tie_runs = [
        orders.runs(orders.by_xy, orders.x_codes),
        orders.runs(orders.by_yx, orders.y_codes),
        orders.runs(orders.by_xy, orders.x_codes, orders.y_codes),
    ]
    orders_of_runs = [orders.by_xy, orders.by_yx, orders.by_xy]
    # a constant x (or y): one run in the group, every pair tied
    x_runs = np.bincount(tie_runs[0][1], minlength=size)
    y_runs = np.bincount(tie_runs[1][1], minlength=size)
    undefined = (orders.count < 2) | (x_runs < 2) | (y_runs < 2)

    def tied(weights: np.ndarray, runs: tuple[np.ndarray, np.ndarray], order) -> np.ndarray:
        starts, run_group = runs
        lengths = np.diff(np.r_[starts, orders.n])
        run_weight = np.add.reduceat(weights[order], starts)
        return np.bincount(run_group, weights=(lengths - 1) * run_weight, minlength=size)

    def tau(weights: np.ndarray) -> np.ndarray:
        total = (orders.count - 1) * np.bincount(groups, weights=weights, minlength=size)
        x_ties, y_ties, joint = (
            tied(weights, runs, order) for runs, order in zip(tie_runs, orders_of_runs, strict=True)
        )
        exchanges = np.bincount(groups, weights=weights * discordant, minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = (total - x_ties - y_ties + joint - 2 * exchanges) / (
                np.sqrt(total - x_ties) * np.sqrt(total - y_ties)
            )
        return np.where(undefined, np.nan, np.clip(value, -1.0, 1.0))

    tau_b = tau(np.ones(orders.n))
    by_x = tau(1.0 / (orders.places_from_last(orders.by_xy) + 1.0))
    by_y = tau(1.0 / (orders.places_from_last(orders.by_yx) + 1.0))
    return tau_b, (by_x + by_y) / 2
