"""A4 RQ2 host orderings and their cumulative yields (docs/definitions.md A4).

Per classifier, over its host universe U_c: p_h pages, HQ_h, d_h = HQ_h/p_h; the budget
B = f·Σp_h for each f in ``budget_shares`` (f read as the decimal written, so B is exact).
Orders, ties by md5 of the host: ``random`` (md5 of host and seed, ``random_seeds`` seeds),
``hc``, ``pr``, ``cc_coverage`` (the sample crawl's fetched count), each descending with
missing values last, and ``oracle`` (d_h desc, then HQ_h desc). Hosts are taken whole in order;
the boundary host contributes the share of its HQ that the budget left reaches (its expected
value). Reported per policy and budget: HQ collected (mean and sd over the orders), its share,
hosts touched, distinct TLDs (last labels) touched, and the ratios to the random mean.
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
from reference.stats import md5_order

__all__ = [
    "boundary_hosts",
    "host_ordering_at_budget",
    "host_ordering_ratio_intervals",
    "host_ordering_yield_curves",
    "host_orders",
    "md5_ranks",
    "walk_budgets",
]

# policy -> the host column ordered descending (missing values last)
CENTRALITY_ORDERS = {"hc": "hc_val", "pr": "pr_val", "cc_coverage": "fetched_url_count"}


def md5_ranks(names: Sequence[str], seeds: int) -> np.ndarray:
    """Each name's rank by md5_number(name) (row 0) and md5_number(name || ':' || s) (row s).

    Computed once over every classifier's hosts, it orders any subset of them.
    """
    ranks = np.empty((seeds + 1, len(names)), dtype=np.int64)
    for seed in range(seeds + 1):
        ranks[seed, md5_order(names, f":{seed}" if seed else "")] = np.arange(len(names))
    return ranks


def host_orders(
    hosts: pd.DataFrame, seeds: int, ranks: np.ndarray | None = None
) -> dict[tuple[str, int], np.ndarray]:
    """Each policy's crawl order of one classifier's universe: (policy, seed) → row positions.

    ``ranks``, when given, are ``md5_ranks`` of these hosts (row by row, from a larger set).
    """
    if ranks is None:
        ranks = md5_ranks(hosts["surt_host_name"].tolist(), seeds)
    tie = ranks[0]
    orders = {("random", seed): np.argsort(ranks[seed]) for seed in range(1, seeds + 1)}
    for policy, column in CENTRALITY_ORDERS.items():
        values = hosts[column].to_numpy(float)
        missing = np.isnan(values)
        orders[(policy, 0)] = np.lexsort((tie, -np.where(missing, 0.0, values), missing))
    hq = hosts["hq_doc_count"].to_numpy(np.int64)
    density = hq / hosts["doc_count"].to_numpy(np.int64)
    orders[("oracle", 0)] = np.lexsort((tie, -hq, -density))
    return orders


def boundary_hosts(pages: np.ndarray, budgets: Sequence[Fraction]) -> np.ndarray:
    """Per budget, the index of the boundary host: the last whose first page fits (B exact)."""
    before = np.cumsum(np.asarray(pages, dtype=np.int64)) - pages
    return np.array(
        [
            int(np.searchsorted(before * Fraction(b).denominator, Fraction(b).numerator)) - 1
            for b in budgets
        ],
        dtype=np.int64,
    )


def walk_budgets(
    pages: np.ndarray, hq: np.ndarray, tlds: np.ndarray, budgets: Sequence[Fraction]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hosts in order, whole while the budget lasts, the boundary host in part.

    ``tlds`` are codes (negative: none). Returns, per budget, the HQ collected, the hosts
    touched and the distinct TLDs touched.
    """
    pages = np.asarray(pages, dtype=np.int64)
    hq = np.asarray(hq, dtype=float)
    before = np.cumsum(pages) - pages
    hq_before = np.cumsum(hq) - hq
    tlds = np.asarray(tlds)
    first = (tlds >= 0) & ~pd.Series(tlds).duplicated().to_numpy()
    tlds_so_far = np.cumsum(first)
    collected = np.zeros(len(budgets))
    touched = np.zeros(len(budgets), dtype=np.int64)
    reached = np.zeros(len(budgets), dtype=np.int64)
    for index, (budget, last) in enumerate(
        zip(budgets, boundary_hosts(pages, budgets), strict=True)
    ):
        budget = Fraction(budget)
        if last < 0:
            continue
        taken = min(float(pages[last]), float(budget - int(before[last])))
        collected[index] = hq_before[last] + taken / pages[last] * hq[last]
        touched[index] = last + 1
        reached[index] = tlds_so_far[last]
    return collected, touched, reached


def host_ordering_yield_curves(
    inputs: Inputs, config: dict | None = None, universe: pd.DataFrame | None = None
) -> pd.DataFrame:
    """rpt_host_ordering_yield_curves: one row per classifier, policy and budget share.

    ``universe``, when given, is ``host_universe(inputs)``.
    """
    config = config or VARS
    universe = host_universe(inputs, config) if universe is None else universe
    shares = list(config["budget_shares"])
    seeds = int(config["random_seeds"])
    names = pd.Index(sorted(universe["surt_host_name"].unique()))
    ranks = md5_ranks(names.tolist(), seeds)  # every classifier's hosts, one md5 each
    rows = []
    for classifier, hosts in universe.groupby("classifier", sort=True):
        hosts = hosts.reset_index(drop=True)
        where = names.get_indexer(hosts["surt_host_name"])
        pages = hosts["doc_count"].to_numpy(np.int64)
        hq = hosts["hq_doc_count"].to_numpy(np.int64)
        tlds = pd.factorize(hosts["url_host_tld"], use_na_sentinel=True)[0]
        total_pages, total_hq = int(pages.sum()), int(hq.sum())
        budgets = [decimal(share) * total_pages for share in shares]
        walks: dict[str, list[tuple[np.ndarray, ...]]] = {}
        for (policy, _), order in host_orders(hosts, seeds, ranks[:, where]).items():
            walks.setdefault(policy, []).append(
                walk_budgets(pages[order], hq[order], tlds[order], budgets)
            )
        for policy, results in walks.items():
            collected = np.array([result[0] for result in results])
            mean = collected.mean(axis=0)
            sd = collected.std(axis=0, ddof=1) if len(results) > 1 else np.full(len(shares), np.nan)
            host_count = np.mean([result[1] for result in results], axis=0)
            tld_count = np.mean([result[2] for result in results], axis=0)
            for index, share in enumerate(shares):
                rows.append(
                    {
                        "classifier": classifier,
                        "policy": policy,
                        "budget_share": share,
                        "pages_fetched": float(budgets[index]),
                        "hq_collected": mean[index],
                        "hq_collected_sd": sd[index],
                        "hq_share": mean[index] / total_hq if total_hq else math.nan,
                        "host_count": float(host_count[index]),
                        "tld_count": float(tld_count[index]),
                        "ordering_count": len(results),
                    }
                )
    return pd.DataFrame(rows)


def host_ordering_at_budget(curves: pd.DataFrame) -> pd.DataFrame:
    """rpt_host_ordering_at_budget: each curve's point beside the random and oracle ones."""
    keys = ["classifier", "budget_share"]
    random_ = curves[curves["policy"] == "random"][[*keys, "hq_collected", "tld_count"]]
    oracle = curves[curves["policy"] == "oracle"][[*keys, "hq_collected"]]
    at_budget = curves[["classifier", "policy", "budget_share", "hq_collected", "tld_count"]]
    at_budget = at_budget.merge(
        random_.rename(
            columns={"hq_collected": "random_hq_collected", "tld_count": "random_tld_count"}
        ),
        on=keys,
    ).merge(oracle.rename(columns={"hq_collected": "oracle_hq_collected"}), on=keys)
    with np.errstate(invalid="ignore", divide="ignore"):
        at_budget["hq_ratio_vs_random"] = at_budget["hq_collected"] / at_budget[
            "random_hq_collected"
        ].replace(0, np.nan)
        at_budget["tld_ratio_vs_random"] = at_budget["tld_count"] / at_budget[
            "random_tld_count"
        ].replace(0, np.nan)
    return at_budget


def host_ordering_ratio_intervals(
    inputs: Inputs,
    config: dict | None = None,
    universe: pd.DataFrame | None = None,
    curves: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """rpt_host_ordering_at_budget's hq_ratio_vs_random_ci_low, _ci_high, _se.

    The Poisson bootstrap to first order (docs/definitions.md B, "Yields at a budget"): with
    host h weighted w_h the budget is f·Σwp; the HQ collected is Y + Σ_h (w_h − 1) ψ_h,
    ψ_h = [h before the boundary] (HQ_h − p_h d) + f p_h d, d the HQ density of the hosts
    starting within s pages of the boundary host, s² = Σ_i p_i² ([i ≤ boundary] − f)²;
    random's expectation is the sample's random mean m times Σ w HQ / Σ HQ. The ratio
    R = Y / m moves by ψ_h / m − R HQ_h / Σ HQ; the interval is its normal limit,
    R ∓ z √(Σ (ψ_h / m − R HQ_h / Σ HQ)²), at least 0.
    """
    config = config or VARS
    universe = host_universe(inputs, config) if universe is None else universe
    curves = host_ordering_yield_curves(inputs, config, universe) if curves is None else curves
    shares = list(config["budget_shares"])
    random_mean = curves[curves["policy"] == "random"].set_index(["classifier", "budget_share"])
    rows = []
    for classifier, hosts in universe.groupby("classifier", sort=True):
        hosts = hosts.reset_index(drop=True)
        pages = hosts["doc_count"].to_numpy(np.int64)
        hq = hosts["hq_doc_count"].to_numpy(float)
        budgets = [decimal(share) * int(pages.sum()) for share in shares]
        points = curves[curves["classifier"] == classifier].set_index(["policy", "budget_share"])

        def curve_points(policy: str, points: pd.DataFrame = points) -> list[float]:
            return [points.loc[(policy, share), "hq_collected"] for share in shares]

        for (policy, _), order in host_orders(hosts, 0).items():
            ordered_pages, ordered_hq = pages[order].astype(float), hq[order]
            starts = np.cumsum(ordered_pages) - ordered_pages
            for share, last, sample in zip(
                shares, boundary_hosts(pages[order], budgets), curve_points(policy), strict=True
            ):
                f = float(decimal(share))
                at_or_before = np.arange(len(order)) <= last
                spread = np.sqrt(np.sum(ordered_pages**2 * (at_or_before - f) ** 2))
                near = np.abs(starts - starts[last]) <= spread
                slope = ordered_hq[near].sum() / ordered_pages[near].sum()
                influence = np.where(
                    np.arange(len(order)) < last, ordered_hq - ordered_pages * slope, 0
                )
                influence += f * ordered_pages * slope
                random_hq = random_mean.loc[(classifier, share), "hq_collected"]
                if random_hq > 0 and ordered_hq.sum() > 0:
                    ratio = sample / random_hq
                    moves = influence / random_hq - ratio * ordered_hq / ordered_hq.sum()
                    variance = float(moves @ moves)
                else:
                    ratio = variance = math.nan
                rows.append(
                    {"classifier": classifier, "policy": policy, "budget_share": share}
                    | normal_interval(ratio, variance, "hq_ratio_vs_random", config, (0, None))
                )
    return pd.DataFrame(rows)
