"""The crawl plan at scale: its dbt models against ``reference/plan.py``, from one population.

Target (issue 32): the plan at least 3x faster than the numpy reference of the same marts,
same run, same numbers (the largest difference printed).

1. The population: ``dbt build`` of ``+int_plan_hosts`` (everything the plan's population
   needs) into a fresh warehouse under ``--work``, tests excluded; timed and printed, not part
   of the ratio (the reference starts from these rows too).
2. dbt, the plan itself: ``dbt build`` of int_plan_hosts' descendants that the reference computes
   too (``PLAN_EXCLUDE`` leaves out int_plan_hosts, the CSV copy of the plan and the seed-URL
   exports): the plan's steps, plan_host_fetch_budget, plan_diversity, plan_constraint_costs
   and plan_changes, tests excluded, into that warehouse.
3. reference: a child process reads the population (int_plan_hosts' rows of plan_crawl and of
   the crawl before it) from the warehouse, timed apart, and computes the same marts with
   ``reference.plan`` under dbt_project.yml's vars: both crawls' plans, the diversity, the
   constraint costs (one plan per scenario, the plan's own scenario computed again as the
   function does) and the changes. Seconds per step and peak memory of the process.
4. Each mart against the reference's, joined on its keys (``reference.compare.differences``):
   rows on one side only, null and exact mismatches, the largest absolute and relative
   differences.

    .venv/bin/python bench/bench_plan.py --home ~/.cache/hostaware/paper-home \\
        --work ~/.cache/hostaware/bench-plan

``--home`` is a HOSTAWARE_HOME with a lake/ (``make paper-lake``); ``--work`` gets the
warehouse (plan.duckdb, deleted first and, unless ``--keep-warehouse``, at the end), dbt's
targets, logs and exports and the reference's output.
"""

from __future__ import annotations

import argparse
import pickle
import shutil
import sys
import time
from pathlib import Path

import duckdb
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
from hostaware.dbt import gigabytes as gb
from hostaware.dbt import measure_worker, slowest_nodes, timed_build
from reference.plan import MART_COLUMNS

TARGET_RATIO = 3.0
# int_plan_hosts' descendants the reference does not compute: the population itself, the plan
# as CSV, the seed URLs and queue keys (from the page annotations' URLs)
PLAN_EXCLUDE = ["int_plan_hosts", "plan_host_fetch_budget_csv", "int_plan_known_urls+"]
# ----------------------------------------------------------------------- reference


def reference_worker(warehouse: Path, out: Path) -> None:
    """The child process: the plan's marts by ``reference.plan``, written to ``out``."""
    from reference.plan import (
        plan_changes,
        plan_constraint_costs,
        plan_diversity,
        plan_host_fetch_budget,
        population_query,
    )

    seconds: dict[str, float] = {}
    started = time.perf_counter()
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        populations = {
            role: connection.sql(population_query(role)).df() for role in ("current", "previous")
        }
    seconds["population from the warehouse (both crawls)"] = time.perf_counter() - started
    notes = [f"{role}: {len(rows):,} hosts" for role, rows in populations.items()]

    def timed(step: str, function, *args):
        begun = time.perf_counter()
        result = function(*args)
        seconds[step] = time.perf_counter() - begun
        return result

    current = timed("plan_host_fetch_budget", plan_host_fetch_budget, populations["current"])
    marts = {"plan_host_fetch_budget": current.plan}
    marts["plan_diversity"] = timed(
        "plan_diversity", plan_diversity, current.plan, current.walk.budget
    )
    marts["plan_constraint_costs"] = timed(
        "plan_constraint_costs (five plans)", plan_constraint_costs, populations["current"]
    )
    if len(populations["previous"]):
        previous = timed(
            "the previous crawl's plan", plan_host_fetch_budget, populations["previous"]
        )
        marts["plan_changes"] = timed("plan_changes", plan_changes, previous.plan, current.plan)
    seconds["total (in process)"] = time.perf_counter() - started
    with out.open("wb") as handle:
        pickle.dump({"marts": marts, "steps": seconds, "notes": notes}, handle)


def run_reference(warehouse: Path, work: Path) -> dict:
    out = work / "reference-plan.pickle"
    command = [sys.executable, str(Path(__file__).resolve()), "--reference-worker"]
    command += ["--warehouse", str(warehouse), "--worker-out", str(out)]
    return measure_worker(command, work / "reference.log", out, "reference")


def compare(warehouse: Path, marts: dict[str, pd.DataFrame]) -> list[dict]:
    """Per mart the reference computed: ``differences`` against the warehouse's rows."""
    from reference.compare import differences

    found = []
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        for mart, reference in marts.items():
            keys, exact, integers, floats = MART_COLUMNS[mart]
            rows = connection.sql(f"select * from {mart}").df()
            found.append(
                {"table": mart, **differences(rows, reference, keys, integers + floats, exact)}
            )
    return found


# ----------------------------------------------------------------------- main


def _print_dbt(label: str, run: dict, top: int) -> None:
    print(
        f"\n{label}: {run['seconds']:.1f} s wall, peak {gb(run['peak']):.2f} GB; dbt's own run "
        f"{run['elapsed']:.1f} s, startup and parsing {run['seconds'] - run['elapsed']:.1f} s"
    )
    print("\n".join(slowest_nodes(run["nodes"], top)))
    if run["code"] != 0 or run["unbuilt"]:
        raise SystemExit(f"dbt build ({run['name']}) did not finish: see {run['log']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="HOSTAWARE_HOME with a lake/")
    parser.add_argument("--work", type=Path, default=Path("build/bench-plan"))
    parser.add_argument("--top", type=int, default=12, help="slowest dbt nodes to print")
    parser.add_argument("--keep-warehouse", action="store_true")
    parser.add_argument("--reference-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--warehouse", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.reference_worker:
        reference_worker(args.warehouse, args.worker_out)
        return
    if args.home is None or not (args.home / "lake").is_dir():
        raise SystemExit(f"--home {args.home}: no lake/ there")
    home, work = args.home.resolve(), args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    warehouse = work / "plan.duckdb"
    print(f"home: {home}\nwork folder (warehouse, targets, logs, exports): {work}")

    population = timed_build(
        home, warehouse, work, "population", select=["+int_plan_hosts"], fresh=True
    )
    _print_dbt("the population (+int_plan_hosts; not in the ratio)", population, 5)
    built = timed_build(
        home,
        warehouse,
        work,
        "plan",
        select=["int_plan_hosts+"],
        exclude=PLAN_EXCLUDE,
        fresh=False,
    )
    _print_dbt("dbt, the plan (int_plan_hosts' descendants)", built, args.top)

    reference = run_reference(warehouse, work)
    print(
        f"\nreference: {reference['seconds']:.1f} s wall (process), "
        f"peak {gb(reference['peak']):.2f} GB; {'; '.join(reference['notes'])}"
    )
    for step, seconds in reference["steps"].items():
        print(f"    {seconds:>8.2f} s  {step}")
    print(
        f"    {reference['seconds'] - reference['steps']['total (in process)']:>8.2f} s  "
        "the rest: interpreter start, imports, writing the frames for the comparison"
    )

    comparison = compare(warehouse, reference["marts"])
    print("\ndbt vs reference (rel = |difference| / max(1, |value|)):")
    for row in comparison:
        print(
            f"  {row['table']:<24} {row['rows']:>10,} rows, only one side "
            f"{row['only_dbt'] + row['only_reference']}, null/exact mismatches "
            f"{row['null_mismatches'] + row['exact_mismatches']}, max abs {row['max_abs']:.1e}, "
            f"max rel {row['max_rel']:.1e} {row['worst']}"
        )
    ratio = reference["seconds"] / built["seconds"]
    print(
        f"\nsummary: dbt {built['seconds']:.1f} s, {gb(built['peak']):.2f} GB; reference "
        f"{reference['seconds']:.1f} s, {gb(reference['peak']):.2f} GB; reference/dbt "
        f"{ratio:.2f}x (target >= {TARGET_RATIO:.0f}x: "
        f"{'met' if ratio >= TARGET_RATIO else 'missed'})"
    )
    (work / "reference-plan.pickle").unlink(missing_ok=True)  # ~2 GB at paper scale
    if not args.keep_warehouse:
        warehouse.unlink(missing_ok=True)
        shutil.rmtree(work / "exports-plan", ignore_errors=True)
        shutil.rmtree(work / "exports-population", ignore_errors=True)


if __name__ == "__main__":
    main()
