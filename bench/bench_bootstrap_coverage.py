"""How often the warehouse's bootstrap intervals contain the value they estimate.

Issue 34's coverage check: over repeated draws of the demo generator (seeds 1 .. ``--draws``,
the same planted parameters), the share of draws whose 95% interval of ICC(1) contains the
planted ICC(1) of each classifier should be 90–99%.

Each draw is the population model's as it comes (``demo.model.draw_documents`` with
``match_planted_icc=False``: the demo crawl itself rescales its host effects until the
sample's ICC equals the planted one, which would make every interval cover it). Its true
scores become the rows of ``int_host_classifier_stats`` (each host's page count, mean and
sample variance per classifier) in an in-memory DuckDB, and the warehouse's own SQL for
``rpt_host_quality_icc`` — compiled once by dbt, its bootstrap step inlined — computes the
intervals. Nothing goes through the lake: a draw takes well under a second at ``--scale demo``
(1,600 hosts with at least 3 pages).

The value ICC(1) estimates is the planted one (``demo.config``'s ``icc``: the population
score-scale ICC the generator's variance split is solved for); the estimator is nearly
unbiased for it, so coverage off 95% is the interval's, not the target's. Printed per
classifier and host-size threshold: the coverage rate, the draws, the mean interval width and
the mean estimate.

    .venv/bin/python bench/bench_bootstrap_coverage.py [--draws 200] [--scale demo]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
from demo.config import CLASSIFIERS, SCALES
from demo.model import draw_documents, draw_hosts, variance_splits
from hostaware import dbt

MART = "rpt_host_quality_icc"
STATS = "int_host_classifier_stats"
TARGET = (0.90, 0.99)


def compiled_query(work: Path, replicates: int, level: float) -> str:
    """The mart's SQL as dbt compiles it, reading a relation named ``STATS``."""
    target = work / "target"
    dbt.run(
        ["compile", "--quiet", "--select", MART, "--target-path", str(target), "--vars",
         json.dumps({"bootstrap_replicates": replicates, "bootstrap_level": level})],
        home=work,
        warehouse=work / "coverage.duckdb",
        env={"DBT_LOG_PATH": str(work / "logs")},
    )  # fmt: skip
    nodes = json.loads((target / "manifest.json").read_text())["nodes"]
    mart = nodes[f"model.hostaware.{MART}"]
    sql = (target / "compiled" / "hostaware" / mart["original_file_path"]).read_text()
    return sql.replace(nodes[f"model.hostaware.{STATS}"]["relation_name"], STATS)


def host_stats(seed: int, scale: str) -> pd.DataFrame:
    """One draw's rows of int_host_classifier_stats, from its true page scores."""
    rng = np.random.default_rng(seed)
    hosts = draw_hosts(rng, SCALES[scale])
    documents = draw_documents(rng, hosts, variance_splits(hosts), match_planted_icc=False)
    frames = []
    for column, spec in enumerate(CLASSIFIERS):
        by_host = pd.Series(documents.true_score[:, column]).groupby(documents.host_id)
        frames.append(
            pd.DataFrame(
                {
                    "surt_host_name": hosts.surt_host_name[by_host.size().index],
                    "classifier": spec.name,
                    "classifier_id": column + 1,
                    "doc_count": by_host.size().to_numpy(),
                    "quality_score_mean": by_host.mean().to_numpy(),
                    "quality_score_var": by_host.var().to_numpy(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def coverage(draws: int, scale: str, replicates: int, level: float) -> pd.DataFrame:
    """Per classifier and threshold: draws, coverage rate, mean width, mean estimate."""
    planted = {spec.name: spec.icc for spec in CLASSIFIERS}
    with tempfile.TemporaryDirectory() as folder:
        query = compiled_query(Path(folder), replicates, level)
    rows = []
    connection = duckdb.connect()
    for seed in range(1, draws + 1):
        stats = host_stats(seed, scale)
        connection.register(STATS, stats)
        result = connection.sql(query).df()
        connection.unregister(STATS)
        result["planted"] = result["classifier"].map(planted)
        result["covered"] = (result["icc1_ci_low"] <= result["planted"]) & (
            result["planted"] <= result["icc1_ci_high"]
        )
        result["width"] = result["icc1_ci_high"] - result["icc1_ci_low"]
        rows.append(result[["classifier", "min_docs", "icc1", "planted", "covered", "width"]])
    every = pd.concat(rows, ignore_index=True)
    return (
        every.groupby(["classifier", "min_docs"])
        .agg(
            draws=("covered", "size"),
            coverage=("covered", "mean"),
            mean_width=("width", "mean"),
            mean_icc1=("icc1", "mean"),
            planted=("planted", "first"),
        )
        .reset_index()
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--scale", choices=sorted(SCALES), default="demo")
    parser.add_argument("--replicates", type=int, default=200, help="bootstrap replicates")
    parser.add_argument("--level", type=float, default=0.95)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    table = coverage(args.draws, args.scale, args.replicates, args.level)
    seconds = time.perf_counter() - started
    print(
        f"ICC(1) {args.level:.0%} bootstrap intervals ({args.replicates} replicates) over "
        f"{args.draws} draws of the {args.scale} generator, {seconds:.0f} s:"
    )
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    low, high = TARGET
    inside = table["coverage"].between(low, high)
    print(
        f"{int(inside.sum())} of {len(table)} rates within {low:.0%}-{high:.0%}; "
        f"all draws pooled: {table['coverage'].mean():.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
