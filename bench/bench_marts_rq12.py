"""The RQ1/RQ2 marts at scale: `dbt build` against the same analyses in ``reference/``.

Target (the paper lake: 3.01M documents, 532,628 hosts with >= 3 documents, >= 6 classifiers,
2 cores): the dbt build of the marts in under 3 minutes with under 8 GB peak memory, and at
least 3x faster than the reference implementation (numpy/pandas/scipy) of the same analyses.

1. dbt: ``dbt build`` of the six RQ1/RQ2 marts and everything upstream (seeds, staging views,
   intermediate models), tests excluded (``--with-tests`` also times a build with the data and
   unit tests), into a fresh warehouse. Wall time and peak memory (RSS of the process tree,
   summed, sampled every 100 ms: ``hostaware.dbt.measure``); the per-model times from
   ``run_results.json``.
2. reference: ``reference/`` in a child process, from the lake's committed parts
   (``reference.lake.read_lake``), the seeds and dbt_project.yml's vars. Time per step and peak
   memory.
   The Kendall statistics have two numpy implementations: ``reference.kendall`` (an MSD
   partition count) and the model's own merge sort (int_centrality_quality_kendall.py). Both
   run over the same strata, timed apart and compared; the ratio is judged against the
   reference at its best, with the faster of the two counts (the other's time taken out).
3. Every mart (and the two host-level tables) of the warehouse against the reference's numbers,
   aligned on their keys (``reference.compare.differences``): the largest absolute difference,
   and the largest difference relative to max(1, |value|) (sums over millions of pages, such
   as pages_fetched or ssb, are large numbers; the correlations, shares and ICCs are at most 1,
   where both measures agree).

    .venv/bin/python bench/bench_marts_rq12.py --home build/test-home
    .venv/bin/python bench/bench_marts_rq12.py --home /path/to/paper-home --with-tests

``--home`` is a HOSTAWARE_HOME whose lake/ holds documents, document_scores, host_ranks and
host_index with their manifests. The warehouse (default <home>/bench-warehouse.duckdb) is
deleted first.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import pickle
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
from hostaware import dbt
from hostaware.dbt import gigabytes as gb
from hostaware.paths import PROJECT
from reference.marts import RQ12_MARTS

MARTS = RQ12_MARTS
TARGET_SECONDS = 180.0
TARGET_BYTES = 8 * 1024**3
TARGET_RATIO = 3.0

# Each compared table: its keys, its numeric columns, the columns that must be equal.
TABLES: dict[str, tuple[list[str], list[str], list[str]]] = {
    name: (keys.split(), numeric.split(), exact.split())
    for name, keys, numeric, exact in [
        (
            "int_host_classifier_stats",
            "surt_host_name classifier",
            "doc_count quality_score_median quality_score_mean quality_score_var hq_doc_count "
            "hq_density",
            "",
        ),
        (
            "int_hosts_profiled",
            "surt_host_name",
            "doc_count english_doc_share hc_val pr_val known_url_count fetched_url_count",
            "url_host_tld url_host_registry_suffix tld_macro_category language_stratum is_in_graph",
        ),
        (
            "rpt_host_quality_icc",
            "classifier min_docs",
            "host_count doc_count grand_mean ssb ssw df_between df_within msb msw n0 icc1 f_stat "
            "icc_variance_ratio",
            "",
        ),
        (
            "rpt_centrality_quality_correlations",
            "classifier centrality_metric stratum_type stratum",
            "host_count spearman_rho kendall_tau_b weighted_spearman_rho weighted_tau",
            "",
        ),
        (
            "rpt_score_by_language",
            "classifier language_stratum",
            "host_count host_median_score_p25 host_median_score_p50 host_median_score_p75 "
            "host_median_score_mean",
            "",
        ),
        ("rpt_classifier_agreement", "classifier_a classifier_b", "doc_count spearman_rho", ""),
        (
            "rpt_graph_rank_stability",
            "centrality_metric reference_release later_release",
            "host_count spearman_rho",
            "",
        ),
        (
            "rpt_host_ordering_yield_curves",
            "classifier policy budget_share",
            "pages_fetched hq_collected hq_collected_sd hq_share host_count tld_count "
            "ordering_count",
            "",
        ),
        (
            "rpt_host_ordering_at_budget",
            "classifier policy budget_share",
            "hq_collected random_hq_collected hq_ratio_vs_random oracle_hq_collected tld_count "
            "random_tld_count tld_ratio_vs_random",
            "",
        ),
    ]
}


# ----------------------------------------------------------------------- dbt


def run_dbt(home: Path, warehouse: Path, work: Path, with_tests: bool) -> dict:
    """``dbt build`` of the marts and their parents into a fresh ``warehouse``."""
    name = "with-tests" if with_tests else "models"
    select = [f"+{mart}" for mart in MARTS]
    run = dbt.timed_build(home, warehouse, work, name, select=select, with_tests=with_tests)
    if run["code"] != 0 and not with_tests:
        raise SystemExit(f"dbt build ({name}) failed:\n{run['log'].read_text()[-6000:]}")
    # a failed test (with tests) does not stop the timing; a model that did not build does
    # (a failing unit test skips its model)
    if run["unbuilt"] and not with_tests:
        raise SystemExit(f"dbt build ({name}): not built {run['unbuilt']}")
    return run


# ----------------------------------------------------------------------- reference


class Steps:
    """Wall seconds per named step."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._started = time.perf_counter()

    def done(self, name: str) -> None:
        now = time.perf_counter()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - self._started
        self._started = now


KENDALL_REFERENCE = "  of which reference.kendall's count"
KENDALL_MODEL_COUNT = "  beside it, the model's count (not in the reference's time)"
KENDALL_MODEL = (
    PROJECT / "models" / "intermediate" / "centrality" / "int_centrality_quality_kendall.py"
)


def timed_kendall_counts(grouped_kendall, seconds: dict[str, float], notes: list[str]):
    """``grouped_kendall`` timed, with the model's own count of the same strata timed beside it.

    The returned function is the reference's count (its results are the ones used); each call
    adds its seconds to ``seconds["reference.kendall"]``, then runs the model's ``kendall_taus``
    stratum by stratum, adds its seconds to ``seconds["model's count"]`` and notes the largest
    difference between the two.
    """
    spec = importlib.util.spec_from_file_location("int_centrality_quality_kendall", KENDALL_MODEL)
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    seconds.update({"reference.kendall": 0.0, "model's count": 0.0})

    def counted(x: np.ndarray, y: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, ...]:
        started = time.perf_counter()
        tau_b, weighted = grouped_kendall(x, y, codes)
        seconds["reference.kendall"] += time.perf_counter() - started
        started = time.perf_counter()
        order = np.argsort(codes, kind="stable")
        bounds = np.r_[0, np.cumsum(np.bincount(codes, minlength=len(tau_b)))]
        model_taus = np.array(
            [
                model.kendall_taus(x[order[start:end]], y[order[start:end]])
                for start, end in itertools.pairwise(bounds)
            ]
        ).reshape(-1, 2)
        seconds["model's count"] += time.perf_counter() - started
        difference = np.nanmax(np.abs(model_taus - np.column_stack([tau_b, weighted])))
        notes.append(
            f"Kendall, {len(x):,} pairs in {len(tau_b)} strata: the two counts differ by at "
            f"most {difference:.1e}"
        )
        return tau_b, weighted

    return counted


def reference_marts(home: Path) -> tuple[dict[str, pd.DataFrame], dict[str, float], list[str]]:
    """Every mart (and the host tables) by ``reference/``: frames, seconds per step, notes."""
    from reference import correlations, hosts, icc, orderings
    from reference.config import VARS
    from reference.lake import read_lake

    kendall_seconds: dict[str, float] = {}
    kendall_notes: list[str] = []
    correlations.grouped_kendall = timed_kendall_counts(
        correlations.grouped_kendall, kendall_seconds, kendall_notes
    )
    steps = Steps()
    inputs = read_lake(
        home / "lake",
        crawls=[VARS["sample_crawl"]],
        tables=("documents", "scores", "host_ranks", "host_crawls"),
    )
    steps.done("load (committed parts)")
    stats = hosts.host_classifier_stats(inputs)
    steps.done("host stats")
    marts = {"int_host_classifier_stats": stats, "rpt_host_quality_icc": None}
    marts["rpt_host_quality_icc"] = icc.host_quality_icc(inputs, stats=stats)
    steps.done("ICC")
    profiles = hosts.hosts_profiled(inputs)
    universe = hosts.host_universe(inputs, stats=stats, profiles=profiles)
    marts["int_hosts_profiled"] = profiles
    steps.done("profiles, universe")
    marts["rpt_centrality_quality_correlations"] = correlations.centrality_quality_correlations(
        inputs, universe=universe
    )
    steps.done("correlations (with Kendall)")
    marts["rpt_score_by_language"] = correlations.score_by_language(
        inputs, stats=stats, profiles=profiles
    )
    steps.done("language")
    marts["rpt_classifier_agreement"] = correlations.classifier_agreement(inputs)
    steps.done("agreement")
    marts["rpt_graph_rank_stability"] = correlations.graph_rank_stability(inputs)
    steps.done("stability")
    curves = orderings.host_ordering_yield_curves(inputs, universe=universe)
    marts["rpt_host_ordering_yield_curves"] = curves
    marts["rpt_host_ordering_at_budget"] = orderings.host_ordering_at_budget(curves)
    steps.done("yield curves")
    notes = [
        f"{len(inputs.documents):,} documents, {len(inputs.scores):,} scores, "
        f"{len(profiles):,} hosts, {len(universe):,} classifier x host pairs in the universe "
        f"({universe['surt_host_name'].nunique():,} hosts), "
        f"{stats['classifier'].nunique()} classifiers, "
        f"{inputs.host_ranks['release'].nunique()} graph releases",
        *kendall_notes,
    ]
    # the model's count ran beside the reference's: not part of the reference's time
    steps.seconds["correlations (with Kendall)"] -= kendall_seconds["model's count"]
    steps.seconds[KENDALL_REFERENCE] = kendall_seconds["reference.kendall"]
    steps.seconds[KENDALL_MODEL_COUNT] = kendall_seconds["model's count"]
    return marts, steps.seconds, notes


def reference_worker(home: Path, out: Path) -> None:
    """The child process: compute, then write the frames and timings to ``out``."""
    started = time.perf_counter()
    marts, seconds, notes = reference_marts(home)
    seconds["total (in process)"] = time.perf_counter() - started
    with out.open("wb") as handle:
        pickle.dump({"marts": marts, "steps": seconds, "notes": notes}, handle)


def run_reference(home: Path, work: Path) -> dict:
    out = work / "reference-marts.pickle"
    command = [sys.executable, str(Path(__file__).resolve()), "--reference-worker"]
    command += ["--home", str(home), "--worker-out", str(out)]
    return dbt.measure_worker(command, work / "reference.log", out, "reference")


def compare(warehouse: Path, marts: dict[str, pd.DataFrame]) -> list[dict]:
    """Per table: rows compared, key mismatches, null mismatches, largest differences."""
    import duckdb

    from reference.compare import differences

    found = []
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        for table, (keys, numeric, exact) in TABLES.items():
            mart = connection.sql(f"select {', '.join([*keys, *numeric, *exact])} from {table}")
            row = differences(mart.df(), marts[table], keys, numeric, exact)
            found.append({"table": table, **row})
    return found


# ----------------------------------------------------------------------- main


def _print_dbt(run: dict, top: int) -> None:
    print(
        f"\ndbt build (models and seeds, no tests): {run['seconds']:.1f} s wall, "
        f"peak {gb(run['peak']):.2f} GB; dbt's own run {run['elapsed']:.1f} s, "
        f"startup and parsing {run['seconds'] - run['elapsed']:.1f} s"
    )
    print("\n".join(dbt.slowest_nodes(run["nodes"], top)))


def _print_reference(run: dict) -> None:
    print(f"\nreference: {run['seconds']:.1f} s wall (process), peak {gb(run['peak']):.2f} GB")
    for note in run["notes"]:
        print(f"  {note}")
    for step, seconds in run["steps"].items():
        print(f"    {seconds:>8.2f} s  {step}")
    print(
        f"    {run['seconds'] - run['steps']['total (in process)']:>8.2f} s  "
        "the rest: interpreter start, imports, writing the frames for the comparison"
    )


def _print_comparison(comparison: list[dict]) -> None:
    print("\ndbt vs reference (rel = |difference| / max(1, |value|)):")
    print(
        f"  {'table':<38} {'rows':>9} {'key mism.':>9} {'null mism.':>10} "
        f"{'max abs':>9} {'max rel':>9}  worst column"
    )
    for row in comparison:
        key_mismatches = row["only_dbt"] + row["only_reference"]
        print(
            f"  {row['table']:<38} {row['rows']:>9,} {key_mismatches:>9} "
            f"{row['null_mismatches'] + row['exact_mismatches']:>10} "
            f"{row['max_abs']:>9.1e} {row['max_rel']:>9.1e}  {row['worst']}"
        )


def _print_tested(tested: dict, warehouse: Path, top: int) -> list[dict]:
    tests = [node for node in tested["nodes"] if not node["node"].startswith(("model", "seed"))]
    failed = [node for node in tests if node["status"] not in ("pass", "success")]
    print(
        f"\ndbt build with tests ({warehouse.name}): {tested['seconds']:.1f} s wall, "
        f"peak {gb(tested['peak']):.2f} GB; {len(tests)} tests took "
        f"{sum(node['seconds'] for node in tests):.1f} s (summed), {len(failed)} did not pass"
    )
    for node in tests[: min(top, 5)]:
        print(f"    {node['seconds']:>8.2f} s  {node['node']}")
    for node in failed:
        print(f"  NOT PASSED: {node['node']}: {node['status']} {node['message'][:300]}")
    for node in tested["unbuilt"]:
        print(f"  NOT BUILT: {node['node']}: {node['status']}")
    if failed:
        print(f"  (dbt's log: {tested['log']}; kept)")
    return failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="HOSTAWARE_HOME with a lake/")
    parser.add_argument("--warehouse", type=Path, help="default <home>/bench-warehouse.duckdb")
    parser.add_argument("--with-tests", action="store_true", help="also time a build with tests")
    parser.add_argument("--top", type=int, default=12, help="slowest dbt nodes to print")
    parser.add_argument("--reference-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    home = args.home.resolve()
    if args.reference_worker:
        reference_worker(home, args.worker_out)
        return
    if not (home / "lake").is_dir():
        raise SystemExit(f"{home}/lake does not exist")
    warehouse = (args.warehouse or home / "bench-warehouse.duckdb").resolve()
    work = Path(tempfile.mkdtemp(prefix="bench-marts-rq12-"))
    print(f"cores: {psutil.cpu_count()}, memory: {gb(psutil.virtual_memory().total):.1f} GiB")
    print(f"home: {home}\nwarehouse: {warehouse}\nwork folder (target, logs): {work}")

    built = run_dbt(home, warehouse, work, with_tests=False)
    _print_dbt(built, args.top)
    reference = run_reference(home, work)
    _print_reference(reference)
    comparison = compare(warehouse, reference["marts"])
    _print_comparison(comparison)
    max_abs = max(row["max_abs"] for row in comparison)
    max_rel = max(row["max_rel"] for row in comparison)
    compared = sum(row["rows"] for row in comparison)
    mismatches = sum(
        row["only_dbt"] + row["only_reference"] + row["null_mismatches"] + row["exact_mismatches"]
        for row in comparison
    )

    tested, failed = None, []
    if args.with_tests:  # into a warehouse of its own: a failing unit test skips its model
        tested_warehouse = warehouse.with_name(f"{warehouse.stem}-with-tests{warehouse.suffix}")
        tested = run_dbt(home, tested_warehouse, work, with_tests=True)
        failed = _print_tested(tested, tested_warehouse, args.top)

    # the reference at its best: its process without the count run beside it, and with the
    # faster of the two Kendall counts
    steps = reference["steps"]
    counts = (steps[KENDALL_REFERENCE], steps[KENDALL_MODEL_COUNT])
    best = reference["seconds"] - sum(counts) + min(counts)
    print(
        f"\nthe reference at its best: {best:.1f} s (its process {reference['seconds']:.1f} s "
        f"less the model's count {counts[1]:.1f} s run beside it, with the faster Kendall count: "
        f"reference.kendall {counts[0]:.1f} s, the model's {counts[1]:.1f} s)"
    )
    ratio = best / built["seconds"]
    print("\nsummary")
    print(
        f"  {'dbt s':>8} {'dbt GB':>7} {'best ref s':>10} {'ref GB':>9} {'ratio':>6} "
        f"{'max abs diff':>12} {'max rel diff':>12} {'rows compared':>13} {'mismatches':>10}"
    )
    print(
        f"  {built['seconds']:>8.1f} {gb(built['peak']):>7.2f} {best:>10.1f} "
        f"{gb(reference['peak']):>9.2f} {ratio:>5.1f}x {max_abs:>12.1e} {max_rel:>12.1e} "
        f"{compared:>13,} {mismatches:>10}"
    )
    if tested:
        print(f"  with tests: dbt {tested['seconds']:.1f} s, {gb(tested['peak']):.2f} GB")
    print(
        f"  targets (paper lake): dbt < {TARGET_SECONDS:.0f} s "
        f"({'met' if built['seconds'] < TARGET_SECONDS else 'missed'}), "
        f"< {gb(TARGET_BYTES):.0f} GB ({'met' if built['peak'] < TARGET_BYTES else 'missed'}), "
        f"reference/dbt >= {TARGET_RATIO:.0f}x ({'met' if ratio >= TARGET_RATIO else 'missed'})"
    )
    if not (tested and (tested["unbuilt"] or failed)):
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
