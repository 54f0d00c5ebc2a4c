"""The RQ3/RQ4 marts at scale: `dbt build` against the same analyses in ``reference/``.

Target (the paper lake: 3.2M classified documents x 6 classifiers, 6 crawls x 5.08M host-index
rows, 6 crawls of page annotations; 2 cores): each dbt part (RQ3, RQ4) in under
5 minutes with under 8 GB peak memory, and at least 3x faster than the reference
implementation (numpy/pandas/scipy) of the same analyses.

1. dbt: ``dbt build`` of the RQ3 marts (rpt_sample_size_correlation, rpt_depth_policy_curves)
   and, separately, of the RQ4 marts (fct_host_crawls, rpt_coverage_quality_correlation,
   rpt_uncrawled_hq_summary, rpt_hidden_gems, rpt_missed_hq_by_tld,
   rpt_uncrawled_hq_by_coverage_band), each with everything upstream, into a fresh warehouse of
   its own; tests excluded (``--with-tests`` also times each part with its data and unit tests,
   into another warehouse). Wall time and peak memory (RSS of the process tree, summed, sampled
   every 100 ms: ``hostaware.dbt.measure``); the per-node times from ``run_results.json``.
   Target, logs, warehouses and external exports (``HOSTAWARE_EXPORTS``) live under ``--work``.
2. reference: ``reference/`` (docs/definitions.md A5-A12) in a child process per part, from the
   lake's committed parts (``reference.lake.read_lake``), the seeds and dbt_project.yml's vars;
   RQ4 one crawl at a time. Time per step and peak memory.
3. Every mart of the warehouse against the reference's numbers, in DuckDB
   (``reference.compare_parquet``: the reference's frames are written as Parquet;
   fct_host_crawls has 30M rows), joined on their keys: rows only on one side, null
   mismatches, unequal flags and strings, the largest absolute difference and the largest
   difference relative to max(1, |value|), with example rows when something differs.

    .venv/bin/python bench/bench_marts_rq34.py --with-tests        # the paper lake (default)
    .venv/bin/python bench/bench_marts_rq34.py --home /work/freshclone/data --work /tmp/rq34
    .venv/bin/python bench/bench_marts_rq34.py --parts rq4 --no-dbt  # the reference side only

``--home`` (default build/paper-home) is a HOSTAWARE_HOME whose lake/ holds documents,
document_scores, host_ranks, host_index, page_annotations and host_annotations with their
manifests; ``--work`` (default build/bench-rq34) gets the warehouses (rq3-models.duckdb,
rq4-with-tests.duckdb, ..., each deleted first), dbt's targets and logs, the reference's output
and DuckDB's spill files; ``--threads`` overrides the profile's dbt threads.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path

import pandas as pd
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
from hostaware.dbt import gigabytes as gb
from hostaware.dbt import measure, slowest_nodes, timed_build
from hostaware.paths import PROJECT
from reference.compare_parquet import compare_parquet
from reference.lake import committed_files
from reference.marts import RQ3_MARTS, RQ4_MARTS

MARTS = {"rq3": RQ3_MARTS, "rq4": RQ4_MARTS}
TARGET_SECONDS = 300.0
TARGET_BYTES = 8 * 1024**3
TARGET_RATIO = 3.0
DEFAULT_HOME = PROJECT / "build" / "paper-home"
DEFAULT_WORK = PROJECT / "build" / "bench-rq34"
# Tables compared one partition at a time (30M rows at once is a 6 GB hash join).
PARTITIONS = {"fct_host_crawls": "crawl"}


# Each compared table: its keys, its numeric columns, the columns that must be equal.
TABLES: dict[str, tuple[list[str], list[str], list[str]]] = {
    name: (keys.split(), numeric.split(), exact.split())
    for name, keys, numeric, exact in [
        (
            "rpt_sample_size_correlation",
            "dataset classifier sample_size host_set",
            "host_count seed_count spearman_rho spearman_rho_sd spearman_rho_min spearman_rho_max",
            "",
        ),
        (
            "rpt_depth_policy_curves",
            "dataset classifier policy budget_share",
            "host_count total_page_count total_hq_page_count budget_pages pages_fetched "
            "hq_expected hq_expected_sd yield_per_fetch ratio_vs_uniform "
            "min_feasible_budget_share seed_count",
            "is_feasible",
        ),
        (
            "fct_host_crawls",
            "crawl surt_host_name",
            "hc_val known_url_count fetched_url_count coverage_rate uncrawled_url_count "
            "annotated_page_count hq_page_count hq_density est_uncrawled_hq",
            "url_host_tld url_host_registry_suffix url_host_registered_domain annotation_level "
            "is_analysed is_low_coverage is_below_median_coverage is_top_decile_quality "
            "is_hidden_gem",
        ),
        (
            "rpt_coverage_quality_correlation",
            "crawl signal min_annotated_pages",
            "host_count spearman_rho",
            "signal_source",
        ),
        (
            "rpt_uncrawled_hq_summary",
            "crawl",
            "analysed_host_count total_est_uncrawled_hq coverage_median "
            "hq_density_top_cutoff low_coverage_host_count low_coverage_hq_share "
            "below_median_coverage_host_count below_median_coverage_hq_share hidden_gem_count "
            "hidden_gem_host_share hidden_gem_hq_share low_coverage_with_hq_host_count "
            "low_coverage_with_hq_hq_share annotated_hosts_missing_from_host_index",
            "",
        ),
        (
            "rpt_hidden_gems",
            "crawl surt_host_name",
            "gem_rank known_url_count fetched_url_count coverage_rate annotated_page_count "
            "hq_page_count hq_density est_uncrawled_hq",
            "url_host_tld",
        ),
        (
            "rpt_missed_hq_by_tld",
            "crawl url_host_tld",
            "host_count host_share est_uncrawled_hq missed_share over_representation",
            "",
        ),
        (
            "rpt_uncrawled_hq_by_coverage_band",
            "crawl coverage_band_lower",
            "coverage_band_upper host_count est_uncrawled_hq hq_share",
            "",
        ),
    ]
}


# ----------------------------------------------------------------------- dbt


def run_dbt(
    home: Path, work: Path, part: str, with_tests: bool, threads: int | None = None
) -> dict:
    """``dbt build`` of one part's marts and their parents into a fresh warehouse."""
    name = f"{part}-{'with-tests' if with_tests else 'models'}"
    select = [f"+{mart}" for mart in MARTS[part]]
    return timed_build(
        home,
        work / f"{name}.duckdb",
        work,
        name,
        select=select,
        with_tests=with_tests,
        threads=threads,
    )


# ----------------------------------------------------------------------- reference


def _timed(seconds: dict[str, float], step: str, function, *args, **kwargs):
    """``function(*args, **kwargs)``, its wall seconds added to ``seconds[step]``."""
    started = time.perf_counter()
    result = function(*args, **kwargs)
    seconds[step] = seconds.get(step, 0.0) + time.perf_counter() - started
    return result


def rq3_marts(home: Path, out: Path, seconds: dict[str, float], notes: list[str]) -> None:
    """rpt_sample_size_correlation and rpt_depth_policy_curves by ``reference/``."""
    from reference.config import VARS
    from reference.depth import depth_policy_curves
    from reference.hosts import host_universe
    from reference.lake import Inputs, read_lake
    from reference.samples import dataset_pages, sample_size_correlation, sampled_datasets

    tables = ("documents", "scores", "host_ranks", "host_crawls", "annotations")
    inputs = _timed(
        seconds,
        "load (committed parts)",
        read_lake,
        home / "lake",
        crawls=[VARS["fullcrawl_crawl"]],
        releases=[VARS["graph_release"]],
        tables=tables,
    )
    pages = _timed(seconds, "pages (flags, profiles)", dataset_pages, inputs)
    inputs = replace(inputs, annotations=Inputs().annotations)  # in pages now: not held twice
    for (dataset, classifier), frame in pages.items():
        notes.append(
            f"{dataset} {classifier}: {len(frame):,} pages, "
            f"{frame['surt_host_name'].nunique():,} hosts"
        )
    samples = _timed(seconds, "sample orders (md5, sorts)", sampled_datasets, pages)
    del pages
    correlation = _timed(seconds, "k-samples", sample_size_correlation, samples)
    universe = _timed(seconds, "host universe", host_universe, inputs)
    curves = _timed(
        seconds, "depth policies", depth_policy_curves, inputs, samples, universe=universe
    )
    correlation.to_parquet(out / "rpt_sample_size_correlation.parquet", index=False)
    curves.to_parquet(out / "rpt_depth_policy_curves.parquet", index=False)


def rq4_marts(home: Path, out: Path, seconds: dict[str, float], notes: list[str]) -> None:
    """The RQ4 marts by ``reference/``, one crawl of the host index at a time."""
    from reference import coverage
    from reference.hosts import host_classifier_stats
    from reference.lake import read_lake

    lake = home / "lake"
    crawls = sorted({value for _, value in committed_files(lake, "host_index")})
    base = _timed(
        seconds, "load (committed parts)", read_lake, lake, tables=("documents", "scores")
    )
    stats = _timed(seconds, "classified host medians", host_classifier_stats, base)
    keys, numeric, exact = TABLES["fct_host_crawls"]
    (out / "fct_host_crawls").mkdir()
    frames: dict[str, list[pd.DataFrame]] = {table: [] for table in MARTS["rq4"][1:]}
    rows = 0
    for crawl in crawls:
        tables = ("host_crawls", "annotations", "host_annotations")
        inputs = _timed(
            seconds, "load (committed parts)", read_lake, lake, crawls=[crawl], tables=tables
        )
        annotated = _timed(
            seconds, "host crawl annotations", coverage.host_crawl_annotations, inputs
        )
        hosts = _timed(
            seconds, "host crawls (flags, quantiles)", coverage.host_crawls, inputs, None, annotated
        )
        rows += len(hosts)
        fct = hosts[[*keys, *numeric, *exact]].copy()
        for flag in ["is_analysed", *coverage.FLAGS]:
            fct[flag] = fct[flag].astype("boolean")
        fct.to_parquet(out / "fct_host_crawls" / f"crawl={crawl}.parquet", index=False)
        for table, function, arguments in (
            ("rpt_coverage_quality_correlation", coverage.coverage_quality_correlation,
             (inputs, hosts, None, stats)),
            ("rpt_uncrawled_hq_summary", coverage.uncrawled_hq_summary,
             (inputs, hosts, None, annotated)),
            ("rpt_hidden_gems", coverage.hidden_gems, (hosts,)),
            ("rpt_missed_hq_by_tld", coverage.missed_hq_by_tld, (hosts,)),
            ("rpt_uncrawled_hq_by_coverage_band", coverage.uncrawled_hq_by_coverage_band,
             (hosts,)),
        ):  # fmt: skip
            frames[table].append(_timed(seconds, table, function, *arguments))
    notes.append(f"{len(crawls)} crawls, {rows:,} host-index rows")
    for table, parts in frames.items():
        parts = [part for part in parts if len(part)]
        if parts:
            pd.concat(parts, ignore_index=True).to_parquet(out / f"{table}.parquet", index=False)


def reference_worker(home: Path, part: str, out: Path) -> None:
    """The child process: compute one part's marts, write them and the step times to ``out``."""
    started = time.perf_counter()
    seconds: dict[str, float] = {}
    notes: list[str] = []
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (rq3_marts if part == "rq3" else rq4_marts)(home, out, seconds, notes)
    seconds["total (in process)"] = time.perf_counter() - started
    (out / "steps.json").write_text(json.dumps({"steps": seconds, "notes": notes}))


def run_reference(home: Path, work: Path, part: str) -> dict:
    out = work / f"reference-{part}"
    command = [sys.executable, str(Path(__file__).resolve()), "--reference-worker", part]
    command += ["--home", str(home), "--worker-out", str(out)]
    log = work / f"reference-{part}.log"
    run = measure(command, log)
    if run.returncode != 0:
        raise SystemExit(
            f"reference ({part}) failed ({run.returncode}):\n{log.read_text()[-6000:]}"
        )
    return {
        "seconds": run.seconds,
        "peak": run.peak,
        "out": out,
        **json.loads((out / "steps.json").read_text()),
    }


# ----------------------------------------------------------------------- main


def _print_dbt(run: dict, top: int) -> None:
    print(
        f"  dbt build ({run['name']}): {run['seconds']:.1f} s wall, "
        f"peak {gb(run['peak']):.2f} GB; "
        f"dbt's own run {run['elapsed']:.1f} s, startup and parsing "
        f"{run['seconds'] - run['elapsed']:.1f} s; exit code {run['code']}"
    )
    print("\n".join(slowest_nodes(run["nodes"], top, indent="    ")))
    for node in run["unbuilt"]:
        print(f"    NOT BUILT: {node['node']}: {node['status']} {node['message'][:300]}")
    failed = [
        node
        for node in run["nodes"]
        if not node["node"].startswith(("model", "seed"))
        and node["status"] not in ("pass", "success")
    ]
    for node in failed:
        print(f"    NOT PASSED: {node['node']}: {node['status']} {node['message'][:300]}")
    if run["unbuilt"] or failed or run["code"]:
        print(f"    (dbt's log: {run['log']})")


def _print_reference(run: dict) -> None:
    print(f"  reference: {run['seconds']:.1f} s wall (process), peak {gb(run['peak']):.2f} GB")
    for note in run["notes"]:
        print(f"    {note}")
    for step, seconds in run["steps"].items():
        print(f"      {seconds:>8.2f} s  {step}")
    rest = run["seconds"] - run["steps"]["total (in process)"]
    print(f"      {rest:>8.2f} s  the rest: interpreter start, imports")


def _print_comparison(rows: list[dict]) -> None:
    print("  dbt vs reference (rel = |difference| / max(1, |value|)):")
    print(
        f"    {'table':<36} {'rows':>10} {'only dbt':>8} {'only ref':>8} {'null mism.':>10} "
        f"{'unequal':>8} {'max abs':>9} {'max rel':>9}  worst column"
    )
    for row in rows:
        if "rows" not in row:
            print(f"    {row['table']:<36} {'; '.join(row['problems'])}")
            continue
        print(
            f"    {row['table']:<36} {row['rows']:>10,} {row['only_dbt']:>8,} "
            f"{row['only_reference']:>8,} {row['null_mismatches']:>10,} "
            f"{row['exact_mismatches']:>8,} "
            f"{row['max_abs']:>9.1e} {row['max_rel']:>9.1e}  {row['worst']}"
        )
        for problem in row["problems"]:
            print(f"      ! {problem}")
        for description, examples in row["examples"]:
            print(f"      ! {description}, e.g.")
            for example in examples:
                print(f"          {example}")


def _attempt(what: str, function, *args, **kwargs):
    """``function(*args)``, or None with the error printed: one failed stage (a model being
    edited, say) does not lose the others' figures."""
    try:
        return function(*args, **kwargs)
    except (SystemExit, Exception) as error:
        print(f"  {what} FAILED: {str(error)[-3000:]}")
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--home", type=Path, default=DEFAULT_HOME, help="HOSTAWARE_HOME with a lake/"
    )
    parser.add_argument(
        "--work", type=Path, default=DEFAULT_WORK, help="target, logs, warehouses, reference output"
    )
    parser.add_argument("--parts", nargs="+", choices=sorted(MARTS), default=sorted(MARTS))
    parser.add_argument("--with-tests", action="store_true", help="also time builds with tests")
    parser.add_argument(
        "--no-dbt", action="store_true", help="the reference side only (no comparison)"
    )
    parser.add_argument(
        "--no-reference", "--no-pandas", action="store_true", help="the dbt side only"
    )
    parser.add_argument("--top", type=int, default=12, help="slowest dbt nodes to print")
    parser.add_argument("--threads", type=int, help="dbt's threads (default: the profile's)")
    parser.add_argument("--reference-worker", choices=sorted(MARTS), help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    home = args.home.resolve()
    if args.reference_worker:
        reference_worker(home, args.reference_worker, args.worker_out)
        return
    lake = home / "lake"
    if not lake.is_dir():
        raise SystemExit(f"{lake} does not exist")
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    print(f"cores: {psutil.cpu_count()}, memory: {gb(psutil.virtual_memory().total):.1f} GiB")
    print(f"home: {home}\nwork folder (warehouses, targets, logs, reference output): {work}")
    for table in ("documents", "host_index", "page_annotations", "host_annotations"):
        files = len(list((lake / table).glob("*=*/part-*.parquet")))
        committed = len(committed_files(lake, table))
        print(f"lake {table}: {committed} committed parts of {files} part files")
        if committed != files:
            print("  (parts without a manifest row are not read: is an ingest still running?)")

    summary = []
    for part in args.parts:
        print(f"\n==== {part.upper()}: {', '.join(MARTS[part])}")
        dbt = tested = reference_run = None
        comparison = []
        if not args.no_dbt:
            dbt = _attempt(f"dbt build ({part})", run_dbt, home, work, part, False, args.threads)
            if dbt:
                _print_dbt(dbt, args.top)
        if not args.no_reference:
            reference_run = _attempt(f"reference ({part})", run_reference, home, work, part)
            if reference_run:
                _print_reference(reference_run)
        if dbt and reference_run:
            comparison = (
                _attempt(
                    f"comparison ({part})",
                    compare_parquet,
                    dbt["warehouse"],
                    reference_run["out"],
                    {table: TABLES[table] for table in MARTS[part]},
                    work,
                    PARTITIONS,
                )
                or []
            )
            _print_comparison(comparison)
        if args.with_tests and not args.no_dbt:
            tested = _attempt(
                f"dbt build with tests ({part})", run_dbt, home, work, part, True, args.threads
            )
            if tested:
                _print_dbt(tested, min(args.top, 5))
                tests = [n for n in tested["nodes"] if not n["node"].startswith(("model", "seed"))]
                seconds = sum(n["seconds"] for n in tests)
                print(f"    {len(tests)} tests took {seconds:.1f} s (summed)")
        summary.append((part, dbt, tested, reference_run, comparison))

    print("\nsummary (timings are disturbed by any other work on the machine)")
    print(
        f"  {'part':<5} {'dbt s':>7} {'dbt GB':>7} {'+tests s':>8} {'+tests GB':>9} "
        f"{'ref s':>9} {'ref GB':>9} {'ratio':>6} {'max abs':>9} {'max rel':>9} "
        f"{'rows':>11} {'mismatches':>10}"
    )
    for part, dbt, tested, reference_run, comparison in summary:
        # a build that stopped early is no timing: its figures are shown, not judged
        built = bool(dbt) and not dbt["unbuilt"] and dbt["code"] == 0
        compared = [row for row in comparison if "rows" in row]
        mismatches = sum(
            row["only_dbt"]
            + row["only_reference"]
            + row["null_mismatches"]
            + row["exact_mismatches"]
            for row in compared
        ) + sum("rows" not in row for row in comparison)  # a table not compared at all

        def number(value: float | None, spec: str) -> str:
            width = int(spec.split(".")[0])
            return f"{'-':>{width}}" if value is None else format(value, spec)

        ratio = reference_run["seconds"] / dbt["seconds"] if built and reference_run else None
        print(
            f"  {part:<5} {number(dbt and dbt['seconds'], '7.1f')} "
            f"{number(dbt and gb(dbt['peak']), '7.2f')} "
            f"{number(tested and tested['seconds'], '8.1f')} "
            f"{number(tested and gb(tested['peak']), '9.2f')} "
            f"{number(reference_run and reference_run['seconds'], '9.1f')} "
            f"{number(reference_run and gb(reference_run['peak']), '9.2f')} "
            f"{number(ratio, '5.1f')}{'x' if ratio else ' '} "
            f"{number(max((r['max_abs'] for r in compared), default=None), '9.1e')} "
            f"{number(max((r['max_rel'] for r in compared), default=None), '9.1e')} "
            f"{sum(r['rows'] for r in compared):>11,} {mismatches:>10,}"
        )
        if dbt and not built:
            print(f"        dbt build did not finish ({len(dbt['unbuilt'])} models not built)")
        if built:

            def verdict(ok: bool) -> str:
                return "met" if ok else "missed"

            seconds, memory = f"< {TARGET_SECONDS:.0f} s", f"< {gb(TARGET_BYTES):.0f} GB"
            met = [
                f"{seconds} {verdict(dbt['seconds'] < TARGET_SECONDS)}",
                f"{memory} {verdict(dbt['peak'] < TARGET_BYTES)}",
            ]
            if ratio is not None:
                met.append(f"reference/dbt >= {TARGET_RATIO:.0f}x {verdict(ratio >= TARGET_RATIO)}")
            if tested and not tested["unbuilt"]:
                met.append(
                    f"with tests {seconds} {verdict(tested['seconds'] < TARGET_SECONDS)}, "
                    f"{memory} {verdict(tested['peak'] < TARGET_BYTES)}"
                )
            print(f"        targets (paper lake): {'; '.join(met)}")


if __name__ == "__main__":
    main()
