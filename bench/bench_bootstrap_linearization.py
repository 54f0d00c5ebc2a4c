"""How close the first-order bootstrap of the host orderings is to the exact one.

``rpt_host_ordering_at_budget``'s intervals take each replicate to first order
(docs/definitions.md B, "Yields at a budget"): Y_b = Y + Σ_h (w_hb − 1) ψ_h with
ψ_h = [h before the boundary] (HQ_h − p_h d) + f p_h d. This bench walks every replicate's
order again with its weights (the exact Poisson bootstrap of the HQ collected: the budget
f·Σwp, the hosts before the new boundary whole, the boundary host in part) and prints, per
order and budget, the exact replicates' standard deviation beside the first order's with two
slopes d: the boundary host's own density, and the density of the hosts starting within the
boundary's movement (s² = Σ p² ([i ≤ boundary] − f)²), the one the warehouse uses.

It reads one classifier's host universe from a built warehouse (``int_host_universe``) and
orders it as ``reference.orderings`` does; the weights are ``reference.bootstrap``'s, the
warehouse's. On the paper lake (531k hosts) a run takes about a minute.

    .venv/bin/python bench/bench_bootstrap_linearization.py --warehouse W [--classifier C]
        [--replicates 200] [--shares 0.01 0.1 0.5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import duckdb
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
from reference.bootstrap import poisson_weights
from reference.orderings import boundary_hosts, host_orders

POLICIES = ("hc", "pr", "cc_coverage", "oracle")


def exact_replicates(pages: np.ndarray, hq: np.ndarray, weights: np.ndarray, share: float):
    """Each replicate's HQ collected, its weighted hosts walked in order (columns: replicates)."""
    rows = []
    for column in weights.T:
        weighted = column * pages
        before = np.cumsum(weighted) - weighted
        budget = share * weighted.sum()
        last = int(np.searchsorted(before, budget)) - 1
        while column[last] == 0:  # a host of weight 0 takes no budget
            last -= 1
        taken = min(weighted[last], budget - before[last])
        rows.append(np.sum((column * hq)[:last]) + taken / pages[last] * hq[last])
    return np.array(rows)


def first_order(pages, hq, weights, share, last, slope, sample):
    """Y + Σ (w − 1) ψ with the given slope."""
    influence = np.where(np.arange(len(pages)) < last, hq - pages * slope, 0.0)
    influence += share * pages * slope
    return sample + influence @ (weights - 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", required=True, help="a built warehouse (DuckDB file)")
    parser.add_argument("--classifier", help="default: the first by name")
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--shares", type=float, nargs="+", default=[0.01, 0.1, 0.5])
    args = parser.parse_args()

    started = time.perf_counter()
    with duckdb.connect(args.warehouse, read_only=True) as connection:
        classifier = (
            args.classifier
            or connection.sql("select min(classifier) from int_host_universe").fetchall()[0][0]
        )
        hosts = connection.execute(
            "select * from int_host_universe where classifier = ? order by surt_host_name",
            [classifier],
        ).df()
    weights = poisson_weights(hosts["surt_host_name"].tolist(), args.replicates)[:, 1:]
    pages_all = hosts["doc_count"].to_numpy(float)
    hq_all = hosts["hq_doc_count"].to_numpy(float)
    print(
        f"HQ collected, {classifier}: {len(hosts):,} hosts, {args.replicates} replicates; "
        "standard deviation over the replicates"
    )
    header = ("order", "budget", "exact", "1st order, window", "1st order, one host", "corr")
    print("{:<12} {:>7} {:>10} {:>18} {:>20} {:>6}".format(*header))
    for (policy, _), order in host_orders(hosts, 0).items():
        if policy not in POLICIES:
            continue
        pages, hq, host_weights = pages_all[order], hq_all[order], weights[order]
        starts = np.cumsum(pages) - pages
        lasts = boundary_hosts(pages.astype(np.int64), [s * pages.sum() for s in args.shares])
        for share, last in zip(args.shares, lasts, strict=True):
            exact = exact_replicates(pages, hq, host_weights, share)
            sample = float(exact_replicates(pages, hq, np.ones((len(pages), 1)), share)[0])
            spread = np.sqrt(np.sum(pages**2 * ((np.arange(len(pages)) <= last) - share) ** 2))
            near = np.abs(starts - starts[last]) <= spread
            window = first_order(
                pages, hq, host_weights, share, last, hq[near].sum() / pages[near].sum(), sample
            )
            one_host = first_order(
                pages, hq, host_weights, share, last, hq[last] / pages[last], sample
            )
            print(
                f"{policy:<12} {share:>7.2%} {exact.std(ddof=1):>10.1f} "
                f"{window.std(ddof=1):>18.1f} {one_host.std(ddof=1):>20.1f} "
                f"{np.corrcoef(exact, window)[0, 1]:>6.3f}"
            )
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
