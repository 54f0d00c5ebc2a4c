"""How often the warehouse's bootstrap intervals contain the value they estimate.

Issue 34's coverage check: over repeated draws of the demo generator (seeds 1 .. ``--draws``,
the same planted parameters), the share of draws whose 95% interval contains the value the
statistic estimates should be 90–99%, for two statistics:

- **ICC(1)** of each classifier and host-size threshold (``rpt_host_quality_icc``). Each draw
  is the population model's as it comes (``demo.model.draw_documents`` with
  ``match_planted_icc=False``: the demo crawl itself rescales its host effects until the
  sample's ICC equals the planted one, which would make every interval cover it); its true
  scores become the rows of ``int_host_classifier_stats`` (each host's page count, mean and
  sample variance per classifier). The value estimated is the planted ICC(1) (``demo.config``'s
  ``icc``: the population score-scale ICC the generator's variance split is solved for).
- **The coverage–quality rho** of each crawl and minimum of annotated pages
  (``rpt_coverage_quality_correlation``, its ``annotations`` signal). One generator draw
  ``--population`` (50) times the scale's size is the population: its hosts get each crawl's
  counts (``demo.crawls.CrawlCountModel``) and URL-level GneissWeb annotations
  (``demo.gneissweb.annotation_parts``, the generator's own path), which become the rows of
  ``fct_host_crawls`` (coverage = fetched / known as the mart computes it, a row with more
  fetched than known nulled as the ingest does, HQ density = pages in GneissWeb / annotated
  pages). Each draw is a simple random sample of 1/50 of its hosts (seed 1, 2, ...; a host
  with its rows of every crawl), so draws are independent samples of hosts from a known
  population, as the host bootstrap assumes. (A generator draw of the demo's own size is not:
  ``CrawlCountModel`` balances each draw, the coverage driver made orthogonal to quality and
  the intercept fitted within the draw, and across such draws rho varies by 0.75 of what
  independent hosts give — the intervals would cover 98%.) The value estimated is the same
  statistic on the whole population, exactly; it is not the planted latent rho
  (``COVERAGE_QUALITY_SPEARMAN``, Spearman's of coverage against the host's latent quality):
  a density of a few 0/1 pages attenuates it. Both are printed. Sampling 1/50 without
  replacement narrows the spread by 1% (the finite-population correction).

In both, the warehouse's own SQL for the mart — compiled once by dbt, its bootstrap inlined —
computes the intervals in an in-memory DuckDB from the draw's rows; nothing goes through the
lake, and a draw takes about a second at ``--scale demo`` (1,600 hosts with at least 3 pages,
about 3,600 annotated hosts a crawl). Printed per row: the coverage rate, the draws, the mean
interval width, the mean estimate and the value estimated.

    .venv/bin/python bench/bench_bootstrap_coverage.py [--draws 200] [--scale demo]
        [--statistics icc coverage_quality] [--population 50] [--icc-hosts-factor 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
from scipy import stats as scipy_stats

from demo.config import CLASSIFIERS, COVERAGE_QUALITY_SPEARMAN, CRAWLS, SCALES
from demo.crawls import CrawlCountModel
from demo.gneissweb import AnnotationTotals, annotation_parts
from demo.model import draw_documents, draw_hosts, variance_splits
from hostaware import dbt

ICC_MART = "rpt_host_quality_icc"
STATS = "int_host_classifier_stats"
COVERAGE_MART = "rpt_coverage_quality_correlation"
HOST_CRAWLS = "fct_host_crawls"
CLASSIFIER_TABLE = "int_classifiers"
MIN_ANNOTATED_PAGES = (1, 3, 10)  # dbt_project.yml's coverage_quality_min_annotated_pages
TARGET = (0.90, 0.99)


def compiled_query(
    work: Path, mart: str, relations: tuple[str, ...], replicates: int, level: float
) -> str:
    """The mart's SQL as dbt compiles it, reading each of ``relations`` by its bare name."""
    target = work / "target"
    variables = {
        "bootstrap_replicates": replicates,
        "bootstrap_level": level,
        "coverage_quality_min_annotated_pages": list(MIN_ANNOTATED_PAGES),
    }
    dbt.run(
        ["compile", "--quiet", "--select", mart, "--target-path", str(target), "--vars",
         json.dumps(variables)],
        home=work,
        warehouse=work / "coverage.duckdb",
        env={"DBT_LOG_PATH": str(work / "logs")},
    )  # fmt: skip
    nodes = json.loads((target / "manifest.json").read_text())["nodes"]
    compiled = nodes[f"model.hostaware.{mart}"]
    sql = (target / "compiled" / "hostaware" / compiled["original_file_path"]).read_text()
    for relation in relations:
        sql = sql.replace(nodes[f"model.hostaware.{relation}"]["relation_name"], relation)
    return sql


def host_stats(seed: int, scale: object) -> pd.DataFrame:
    """One draw's rows of int_host_classifier_stats, from its true page scores."""
    rng = np.random.default_rng(seed)
    hosts = draw_hosts(rng, scale)
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


def icc_coverage(
    draws: int, scale: str, replicates: int, level: float, factor: int = 1
) -> pd.DataFrame:
    """ICC(1) per classifier and threshold: draws, coverage rate, mean width and estimate.

    Each draw is the scale's generator with ``factor`` times as many hosts of each kind.
    """
    planted = {spec.name: spec.icc for spec in CLASSIFIERS}
    with tempfile.TemporaryDirectory() as folder:
        query = compiled_query(Path(folder), ICC_MART, (STATS,), replicates, level)
    rows = []
    connection = duckdb.connect()
    for seed in range(1, draws + 1):
        stats = host_stats(seed, enlarged(scale, factor))
        connection.register(STATS, stats)
        result = connection.sql(query).df()
        connection.unregister(STATS)
        result["planted"] = result["classifier"].map(planted)
        result["covered"] = (result["icc1_ci_low"] <= result["planted"]) & (
            result["planted"] <= result["icc1_ci_high"]
        )
        result["width"] = result["icc1_ci_high"] - result["icc1_ci_low"]
        rows.append(
            result[["classifier", "min_docs", "host_count", "icc1", "planted", "covered", "width"]]
        )
    every = pd.concat(rows, ignore_index=True)
    return (
        every.groupby(["classifier", "min_docs"])
        .agg(
            draws=("covered", "size"),
            coverage=("covered", "mean"),
            mean_width=("width", "mean"),
            mean_hosts=("host_count", "mean"),
            mean_icc1=("icc1", "mean"),
            planted=("planted", "first"),
        )
        .reset_index()
    )


def enlarged(scale: str, factor: int) -> object:
    """The scale with ``factor`` times as many hosts of each kind (the same page model)."""
    base = SCALES[scale]
    return dataclasses.replace(
        base,
        sample_hosts=base.sample_hosts * factor,
        small_hosts=base.small_hosts * factor,
        other_crawled_hosts=base.other_crawled_hosts * factor,
        dangling_hosts=base.dangling_hosts * factor,
    )


def host_crawls(seed: int, scale: object) -> pd.DataFrame:
    """One draw's rows of fct_host_crawls for every crawl, from the generator's own counts."""
    rng = np.random.default_rng(seed)
    hosts = draw_hosts(rng, scale)
    splits = variance_splits(hosts)
    count_model = CrawlCountModel(rng, hosts)
    frames = []
    for crawl, crawl_rng in zip(CRAWLS, rng.spawn(len(CRAWLS)), strict=True):
        counts = count_model.for_crawl(crawl, crawl_rng)
        totals = AnnotationTotals.empty(hosts.count)
        for _ in annotation_parts(crawl_rng, hosts, counts, splits, scale, totals=totals):
            pass  # each part is added to the totals as it is made
        known = counts.known.astype(np.float64)
        fetched = counts.fetched.astype(np.float64)
        # the ingest nulls a count pair with more fetched than known (fct_host_crawls' case)
        valid = (known > 0) & (fetched <= known)
        pages = totals.pages
        frames.append(
            pd.DataFrame(
                {
                    "crawl": crawl,
                    "surt_host_name": hosts.surt_host_name,
                    "annotated_page_count": pages,
                    "coverage_rate": np.where(valid, fetched / np.maximum(known, 1), np.nan),
                    "hq_density": np.where(
                        pages > 0, totals.in_gneissweb / np.maximum(pages, 1), np.nan
                    ),
                    "is_analysed": valid & (pages >= 1),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def population_rho(hosts: pd.DataFrame) -> pd.DataFrame:
    """Spearman's rho (scipy) per crawl and minimum of annotated pages, on the given hosts."""
    rows = []
    analysed = hosts[hosts["is_analysed"]]
    for crawl, crawl_hosts in analysed.groupby("crawl"):
        for minimum in MIN_ANNOTATED_PAGES:
            chosen = crawl_hosts[crawl_hosts["annotated_page_count"] >= minimum]
            rho = scipy_stats.spearmanr(chosen["coverage_rate"], chosen["hq_density"]).statistic
            rows.append(
                {"crawl": crawl, "min_annotated_pages": minimum, "population_rho": rho}
                | {"population_hosts": len(chosen)}
            )
    return pd.DataFrame(rows)


def coverage_quality_coverage(
    draws: int, scale: str, replicates: int, level: float, population: int
) -> pd.DataFrame:
    """Per crawl and minimum: how often the rho's interval holds the population's rho."""
    with tempfile.TemporaryDirectory() as folder:
        query = compiled_query(
            Path(folder),
            COVERAGE_MART,
            (HOST_CRAWLS, STATS, CLASSIFIER_TABLE),
            replicates,
            level,
        )
    # the population: one generator draw `population` times the scale's size (a seed none
    # of the ICC draws uses); each draw is a simple random sample of 1 / population of its
    # hosts, each host with its rows of every crawl
    hosts = host_crawls(10**9 + population, enlarged(scale, population))
    names = hosts["surt_host_name"].unique()
    assert len(names) * len(CRAWLS) == len(hosts), "host names repeat"
    target = population_rho(hosts)
    connection = duckdb.connect()
    # the classifiers' signals are not measured here: no classified sample, no classifier
    connection.execute(
        f"create table {STATS} (surt_host_name varchar, classifier_id integer, "
        "doc_count bigint, quality_score_median double)"
    )
    connection.execute(
        f"create table {CLASSIFIER_TABLE} (classifier varchar, classifier_id integer)"
    )
    rows = []
    for seed in range(1, draws + 1):
        chosen = np.random.default_rng(seed).choice(
            names, size=len(names) // population, replace=False
        )
        connection.register(HOST_CRAWLS, hosts[hosts["surt_host_name"].isin(chosen)])
        result = connection.sql(query).df()
        connection.unregister(HOST_CRAWLS)
        rows.append(result[result["signal"] == "annotations"])
    every = pd.concat(rows, ignore_index=True).merge(target, on=["crawl", "min_annotated_pages"])
    every["covered"] = (every["spearman_rho_ci_low"] <= every["population_rho"]) & (
        every["population_rho"] <= every["spearman_rho_ci_high"]
    )
    every["width"] = every["spearman_rho_ci_high"] - every["spearman_rho_ci_low"]
    table = (
        every.groupby(["crawl", "min_annotated_pages"])
        .agg(
            draws=("covered", "size"),
            coverage=("covered", "mean"),
            mean_width=("width", "mean"),
            mean_hosts=("host_count", "mean"),
            mean_rho=("spearman_rho", "mean"),
            sd_rho=("spearman_rho", "std"),
            mean_se=("spearman_rho_se", "mean"),
            population_rho=("population_rho", "first"),
            population_hosts=("population_hosts", "first"),
        )
        .reset_index()
    )
    table["planted_latent"] = table["crawl"].map(COVERAGE_QUALITY_SPEARMAN)
    return table


def report(
    name: str, method: str, table: pd.DataFrame, seconds: float, args: argparse.Namespace
) -> None:
    """Print one statistic's rates and how many are within the target."""
    print(
        f"{name} {args.level:.0%} bootstrap intervals ({method}) over "
        f"{args.draws} draws of the {args.scale} generator, {seconds:.0f} s:"
    )
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    low, high = TARGET
    inside = table["coverage"].between(low, high)
    print(
        f"{int(inside.sum())} of {len(table)} rates within {low:.0%}-{high:.0%}; "
        f"all draws pooled: {table['coverage'].mean():.3f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--scale", choices=sorted(SCALES), default="demo")
    parser.add_argument("--replicates", type=int, default=200, help="bootstrap replicates")
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument(
        "--statistics",
        nargs="+",
        choices=["icc", "coverage_quality"],
        default=["icc", "coverage_quality"],
    )
    parser.add_argument(
        "--population", type=int, default=50, help="the population draw's size, in draws"
    )
    parser.add_argument(
        "--icc-hosts-factor",
        type=int,
        default=1,
        help="ICC(1)'s draws with this many times the scale's hosts (the interval's accuracy "
        "against the number of hosts)",
    )
    args = parser.parse_args(argv)
    if "icc" in args.statistics:
        started = time.perf_counter()
        table = icc_coverage(
            args.draws, args.scale, args.replicates, args.level, args.icc_hosts_factor
        )
        hosts = f", {args.icc_hosts_factor}x its hosts" if args.icc_hosts_factor > 1 else ""
        report(
            "ICC(1)",
            f"percentiles of {args.replicates} replicates{hosts}",
            table,
            time.perf_counter() - started,
            args,
        )
    if "coverage_quality" in args.statistics:
        started = time.perf_counter()
        table = coverage_quality_coverage(
            args.draws, args.scale, args.replicates, args.level, args.population
        )
        report(
            "Coverage-quality rho", "the normal limit", table, time.perf_counter() - started, args
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
