"""A6 RQ3 depth policies: how deep to crawl each host under one budget (docs/definitions.md).

Hosts of the depth universe (≥ ``min_docs_per_host`` pages and a weight w_h = HC > 0) with n_h
fetched pages and density d_h; budget B = f·Σn_h; expected HQ Σ a_h·d_h:

* ``uniform_breadth``: a_h = min(n_h, D), the depth D found by water-filling;
* ``hc_depth``: a_h = min(n_h, c·w_h), the level c found the same way on n_h/w_h;
* ``sample_then_deepen``: k = ``depth_sample_size`` sampled pages per host at cost S, then the
  rest (B − S, or B when the sample is free) to whole hosts in descending sample density, ties
  by the sample's mean score then md5 of the host; null when B < S (S reported);
* ``oracle``: whole hosts by true density (then HQ pages, then md5), no sample.

Water-filling (docs/definitions.md §6): sort hosts by t = n/w; host i saturates at level t_i,
when the budget reaches Σ_{j≤i} n_j + t_i·Σ_{j>i} w_j. The functions work on floats and, given
``Fraction``s, exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pandas as pd

from reference.bootstrap import normal_interval
from reference.config import VARS, decimal
from reference.hosts import host_universe
from reference.lake import Inputs
from reference.orderings import boundary_hosts, walk_budgets
from reference.samples import Sampled
from reference.stats import md5_halves

__all__ = [
    "depth_influences",
    "depth_policy_curves",
    "depth_universes",
    "greedy_fill",
    "oracle",
    "sample_then_deepen",
    "sample_then_deepen_influence",
    "water_fill",
    "water_fill_hq",
]


def _levels(caps: np.ndarray, weights: np.ndarray, budgets: Sequence) -> tuple:
    """Hosts by n/w, the number saturated at each budget and the level above them."""
    t = caps / weights
    order = np.argsort(t, kind="stable")
    caps_s, weights_s, t_s = caps[order], weights[order], t[order]
    caps_before = np.r_[caps_s[:0].sum() * 0, np.cumsum(caps_s)]  # Σ_{j<i}, exact on objects
    weights_from = np.r_[np.cumsum(weights_s[::-1])[::-1], weights_s[:0].sum() * 0]  # Σ_{j≥i}
    saturating = caps_before[1:] + t_s * weights_from[1:]
    total = caps_before[-1]
    levels, saturated = [], []
    for budget in budgets:
        if budget > total:
            raise ValueError("budget above the total capacity")
        m = int(np.sum(saturating <= budget))  # saturating is non-decreasing
        saturated.append(m)
        levels.append(None if m == len(caps) else (budget - caps_before[m]) / weights_from[m])
    return order, saturated, levels


def water_fill(
    caps: Sequence, weights: Sequence, budget: float | Fraction
) -> tuple[np.ndarray, float | Fraction | None]:
    """a_h = min(cap_h, level · w_h) with Σ a_h = budget: (a, level).

    The level is None when every host is saturated (budget = Σ caps).

    Raises:
        ValueError: a budget above Σ caps.
    """
    caps, weights = np.asarray(caps), np.asarray(weights)
    _, _, (level,) = _levels(caps, weights, [budget])
    if level is None:
        return caps.copy(), None
    return np.array([min(cap, level * w) for cap, w in zip(caps, weights, strict=True)]), level


def water_fill_hq(
    caps: np.ndarray, weights: np.ndarray, hq: np.ndarray, budgets: Sequence
) -> np.ndarray:
    """Σ a_h·d_h of the water-filling at each budget (d = hq / caps)."""
    caps, weights, hq = (np.asarray(a, dtype=float) for a in (caps, weights, hq))
    order, saturated, levels = _levels(caps, weights, [float(b) for b in budgets])
    hq_s, vd_s = hq[order], (weights * hq / caps)[order]
    hq_before = np.r_[0.0, np.cumsum(hq_s)]
    vd_from = np.r_[np.cumsum(vd_s[::-1])[::-1], 0.0]
    return np.array(
        [
            hq_before[-1] if level is None else hq_before[m] + level * vd_from[m]
            for m, level in zip(saturated, levels, strict=True)
        ]
    )


def greedy_fill(pages: np.ndarray, hq: np.ndarray, budgets: Sequence) -> np.ndarray:
    """Hosts (in fill order) taken whole while they fit, the boundary host in part."""
    return walk_budgets(pages, hq, np.full(len(pages), -1), budgets)[0]


def oracle(
    pages: np.ndarray, hq: np.ndarray, names: Sequence[str], budgets: Sequence
) -> np.ndarray:
    """The oracle: whole hosts by true density, then HQ pages, then md5 of the host."""
    pages, hq = np.asarray(pages), np.asarray(hq)
    high, low = md5_halves(list(names))
    order = np.lexsort((low, high, -hq, -(hq / pages)))
    return greedy_fill(pages[order], hq[order], budgets)


def _deepening_order(
    pages: np.ndarray, names: Sequence[str], sample_hq: np.ndarray, sample_mean, size: int
) -> np.ndarray:
    """The hosts with pages left after the sample, in the order sample-then-deepen deepens them.

    Densest sample first, then the sample's higher mean score, then md5 of the host.
    """
    taken = np.minimum(pages, size)
    open_hosts = np.flatnonzero(pages > taken)
    high, low = md5_halves([names[i] for i in open_hosts])
    density = sample_hq[open_hosts] / taken[open_hosts]
    return open_hosts[np.lexsort((low, high, -np.asarray(sample_mean)[open_hosts], -density))]


def sample_then_deepen(
    pages: np.ndarray,
    hq: np.ndarray,
    names: Sequence[str],
    sample_hq: np.ndarray,
    sample_mean: np.ndarray,
    size: int,
    budgets: Sequence[Fraction],
    charged: bool,
) -> np.ndarray:
    """Sample min(n, k) pages of every host, then deepen greedily by sample density.

    ``sample_hq`` and ``sample_mean`` are each host's sample's HQ pages and mean score. NaN
    where the budget is below the sample's cost.
    """
    pages, hq, sample_hq = (np.asarray(a, dtype=np.int64) for a in (pages, hq, sample_hq))
    cost = int(np.minimum(pages, size).sum())
    rest = pages - np.minimum(pages, size)
    order = _deepening_order(pages, names, sample_hq, sample_mean, size)
    remaining = [Fraction(b) - cost if charged else Fraction(b) for b in budgets]
    deepened = greedy_fill(rest[order], hq[order] - sample_hq[order], remaining)
    feasible = np.array([Fraction(b) >= cost for b in budgets])
    return np.where(feasible, sample_hq.sum() + deepened, np.nan)


def sample_then_deepen_influence(
    pages: np.ndarray,
    hq: np.ndarray,
    names: Sequence[str],
    sample_hq: np.ndarray,
    sample_mean: np.ndarray,
    size: int,
    shares: Sequence[float],
    budgets: Sequence[Fraction],
    charged: bool,
) -> np.ndarray:
    """psi_h of one seed's sample-then-deepen yield at each budget (budgets x hosts).

    NaN rows where the budget is below the sample's cost.
    With host h weighted w_h the sample costs sum w s and the deepening budget is
    D = f sum w n - sum w s (f sum w n when the sample is free): psi_h = shq_h
    + phi_h (y_h - lambda r_h) + lambda (f n_h - [charged] s_h), phi_h the share of the r_h
    pages left that D deepens, y_h the HQ among them, lambda the deepening curve's slope at D.
    Hosts in sample order are not in density order, so one host's density is the slope of
    one step of a jagged curve: lambda is the density of the hosts whose first page left
    lies within the boundary's bootstrap movement of the boundary host's, the movement's
    variance sum_i (r_i [i at or before the boundary] - f n_i + [charged] s_i)^2 (as the host
    orderings' slope, docs/definitions.md B); 0 once D reaches every page left.
    """
    pages, hq, sample_hq = (np.asarray(a, dtype=np.int64) for a in (pages, hq, sample_hq))
    taken = np.minimum(pages, size)
    rest, charge = pages - taken, taken if charged else np.zeros_like(taken)
    order = _deepening_order(pages, names, sample_hq, sample_mean, size)
    left, left_hq = rest[order].astype(float), (hq - sample_hq)[order].astype(float)
    before = np.cumsum(left) - left
    result = np.full((len(budgets), len(pages)), np.nan)
    for row, (share, budget) in enumerate(zip(shares, budgets, strict=True)):
        if Fraction(budget) < int(taken.sum()):
            continue  # infeasible below the sample's cost, charged or not
        deepening = float(Fraction(budget) - int(charge.sum()))
        contribution = share * pages - charge
        share_deepened = np.zeros(len(pages))
        share_deepened[order] = np.clip((deepening - before) / left, 0.0, 1.0)
        if deepening >= left.sum():
            slope = 0.0
        else:
            # the last host starting before D (the first when D is 0)
            boundary = max(int(np.searchsorted(before, deepening)) - 1, 0)
            at_or_before = np.zeros(len(pages), dtype=bool)
            at_or_before[order[: boundary + 1]] = True
            movement = np.where(at_or_before, rest, 0) - contribution
            spread = math.sqrt(float(movement @ movement))
            window = np.abs(before - before[boundary]) <= spread
            slope = left_hq[window].sum() / left[window].sum()
        result[row] = (
            sample_hq + share_deepened * (hq - sample_hq - slope * rest) + slope * contribution
        )
    return result


def _water_fill_influence(
    caps: np.ndarray, weights: np.ndarray, hq: np.ndarray, share: float, budget: float
) -> np.ndarray:
    """psi_h of the water-filling's yield at one budget: a_h (d_h - lambda) + f n_h lambda.

    lambda is the curve's slope, sum w d / sum w over the hosts not full before the budget
    (those whose level saturates at or past it: where the budget fills a level exactly, the
    slope before it, as the SQL's).
    """
    order, _, (level,) = _levels(caps, weights, [budget])
    t = caps / weights
    caps_s, weights_s = caps[order], weights[order]
    caps_before = np.r_[0.0, np.cumsum(caps_s)]
    weights_from = np.r_[np.cumsum(weights_s[::-1])[::-1], 0.0]
    saturating = np.empty(len(caps))
    saturating[order] = caps_before[1:] + t[order] * weights_from[1:]
    open_hosts = saturating >= budget
    density = hq / caps
    slope = (weights * density)[open_hosts].sum() / weights[open_hosts].sum()
    given = caps if level is None else np.minimum(caps, level * weights)
    return given * (density - slope) + share * caps * slope


def _oracle_influence(
    caps: np.ndarray, hq: np.ndarray, names: Sequence[str], share: float, budget: Fraction
) -> np.ndarray:
    """psi_h of the oracle's yield at one budget: hosts denser than the boundary's whole."""
    density = hq / caps
    high, low = md5_halves(list(names))
    order = np.lexsort((low, high, -hq, -density))
    (boundary,) = boundary_hosts(caps[order].astype(np.int64), [budget])
    slope = density[order][boundary]
    return np.where(density > slope, caps * (density - slope), 0.0) + share * caps * slope


def depth_influences(
    pages: np.ndarray,
    weights: np.ndarray,
    hq: np.ndarray,
    names: Sequence[str],
    shares: Sequence[float],
    budgets: Sequence[Fraction],
) -> dict[str, np.ndarray]:
    """Each water-filled policy's and the oracle's psi: policy -> (budgets x hosts).

    The first-order bootstrap (docs/definitions.md B, "Depth policies at a budget"): with
    host h weighted w_h the budget is f sum w n and Y_b = Y + sum_h (w_hb - 1) psi_h,
    psi_h = a_h (d_h - lambda) + f n_h lambda (the envelope theorem: a page moved within
    the allocation is worth the curve's slope lambda wherever it goes).
    """
    caps, weights, hq = (np.asarray(a, dtype=float) for a in (pages, weights, hq))
    policies = {"uniform_breadth": np.ones(len(caps)), "hc_depth": weights}
    result = {
        policy: np.array(
            [
                _water_fill_influence(caps, w, hq, float(share), float(budget))
                for share, budget in zip(shares, budgets, strict=True)
            ]
        )
        for policy, w in policies.items()
    }
    result["oracle"] = np.array(
        [
            _oracle_influence(caps, hq, names, float(share), Fraction(budget))
            for share, budget in zip(shares, budgets, strict=True)
        ]
    )
    return result


def depth_universes(
    inputs: Inputs,
    samples: dict[tuple[str, str], Sampled],
    fullcrawl: str = VARS["fullcrawl_crawl"],
    config: dict | None = None,
    universe: pd.DataFrame | None = None,
) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
    """(dataset, classifier) → (host indices into the Sampled, their weights w_h = hc_val).

    ``universe``, when given, is ``host_universe(inputs)``.
    """
    config = config or VARS
    if config.get("hc_depth_weight", "hc_val") != "hc_val":
        raise ValueError("the reference implements hc_depth_weight = hc_val only")
    universe = host_universe(inputs, config) if universe is None else universe
    crawls = inputs.host_crawls
    index_hc = crawls[crawls["crawl"] == fullcrawl].drop_duplicates("surt_host_name")
    index_hc = index_hc.set_index("surt_host_name")["hc_val"]
    result = {}
    for (dataset, classifier), sampled in samples.items():
        if dataset == "classified":
            of_classifier = universe[universe["classifier"] == classifier]
            weights = of_classifier.set_index("surt_host_name")["hc_val"]
        else:
            weights = index_hc
        w = pd.Series(sampled.host_names).map(weights).to_numpy(float)
        members = np.flatnonzero((sampled.page_count >= config["min_docs_per_host"]) & (w > 0))
        result[(dataset, classifier)] = (members, w[members])
    return result


def depth_policy_curves(
    inputs: Inputs,
    samples: dict[tuple[str, str], Sampled],
    fullcrawl: str = VARS["fullcrawl_crawl"],
    config: dict | None = None,
    universe: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """rpt_depth_policy_curves: one row per dataset, classifier, policy and budget share."""
    config = config or VARS
    size, charged = int(config["depth_sample_size"]), bool(config["depth_sample_is_charged"])
    seeds, shares = int(config["sample_seeds"]), list(config["budget_shares"])
    rows = []
    universes = depth_universes(inputs, samples, fullcrawl, config, universe)
    for (dataset, classifier), (members, weights) in universes.items():
        if not len(members):
            continue
        sampled = samples[(dataset, classifier)]
        n, hq = sampled.page_count[members], sampled.hq_count[members]
        names = list(sampled.host_names[members])
        total_pages, total_hq = int(n.sum()), int(hq.sum())
        budgets = [decimal(share) * total_pages for share in shares]
        sample_cost = int(np.minimum(n, size).sum())
        # each seed's sample: its HQ pages and mean score per host
        seed_samples = [
            (
                sampled.sample_hq(seed, size)[members],
                sampled.sample_score_mean(seed, size)[members],
            )
            for seed in range(1, seeds + 1)
        ]
        results = {
            "uniform_breadth": water_fill_hq(n, np.ones(len(n)), hq, budgets)[None, :],
            "hc_depth": water_fill_hq(n, weights, hq, budgets)[None, :],
            "sample_then_deepen": np.array(
                [
                    sample_then_deepen(n, hq, names, *seed_sample, size, budgets, charged)
                    for seed_sample in seed_samples
                ]
            ),
            "oracle": oracle(n, hq, names, budgets)[None, :],
        }
        uniform = results["uniform_breadth"][0]
        influences = depth_influences(n, weights, hq, names, shares, budgets)
        # the seed mean's: each seed's psi averaged (docs/definitions.md B)
        influences["sample_then_deepen"] = np.mean(
            [
                sample_then_deepen_influence(
                    n, hq, names, *seed_sample, size, shares, budgets, charged
                )
                for seed_sample in seed_samples
            ],
            axis=0,
        )
        for policy, values in results.items():
            is_sampled = policy == "sample_then_deepen"
            for index, share in enumerate(shares):
                column = values[:, index]
                feasible = not np.isnan(column).any()
                expected = float(column.mean()) if feasible else math.nan
                budget = float(budgets[index])
                ratio = expected / uniform[index] if feasible and uniform[index] else math.nan
                if feasible:  # the bootstrap's first order
                    psi = influences[policy][index]
                    psi_uniform = influences["uniform_breadth"][index]
                    psi_ratio = (psi - ratio * psi_uniform) / uniform[index]
                    variance, ratio_variance = float(psi @ psi), float(psi_ratio @ psi_ratio)
                else:
                    variance = ratio_variance = math.nan
                rows.append(
                    {
                        "dataset": dataset,
                        "classifier": classifier,
                        "policy": policy,
                        "budget_share": share,
                        "host_count": len(members),
                        "total_page_count": total_pages,
                        "total_hq_page_count": total_hq,
                        "budget_pages": budget,
                        "pages_fetched": budget if feasible else math.nan,
                        "hq_expected": expected,
                        "hq_expected_sd": float(np.std(column, ddof=1))
                        if is_sampled and feasible and len(column) > 1
                        else math.nan,
                        "yield_per_fetch": expected / budget if feasible and budget else math.nan,
                        "ratio_vs_uniform": ratio,
                        "is_feasible": feasible,
                        "min_feasible_budget_share": sample_cost / total_pages
                        if is_sampled
                        else 0.0,
                        "seed_count": len(column),
                    }
                    | normal_interval(expected, variance, "hq_expected", config, (0, None))
                    | normal_interval(ratio, ratio_variance, "ratio_vs_uniform", config, (0, None))
                )
    return pd.DataFrame(rows)
