"""The same lake built on DuckDB and on Spark (local), timed side by side.

Both engines run ``dbt build`` of the models and seeds (no tests) over one lake
(``--home``/lake, read only) into warehouses of their own under ``--work``: DuckDB through the
``dev`` target (external plan files under ``<work>/exports``, via ``HOSTAWARE_EXPORTS``), Spark
through the ``spark`` target from .venv-spark (dbt-spark's session method, ``local[2]`` unless
HOSTAWARE_SPARK_MASTER says otherwise; its warehouse folder and Derby metastore under
``<work>/spark-warehouse``, emptied first). Wall time and peak memory of each process tree
(``hostaware.dbt.measure``), then every model's time from ``run_results.json`` side by
side. ``--compare`` then checks every mart of the two builds with
tests/warehouse/test_spark_matches_duckdb.py (numbers to 1e-9).

Kendall's statistics come from a dbt Python model on DuckDB and from SQL on Spark (dbt-spark
runs Python models only on Databricks): merge-sort inversion counts, one row per host and level
of an 8-way merge (7 per host at the paper's 531k hosts). ``--without-kendall`` leaves
``int_centrality_quality_kendall`` (``_spark`` and its table of weighted hosts on Spark) and
the mart that reads it out.

    .venv/bin/python bench/bench_spark.py --home build/test-home --compare   # the tiny crawl
    .venv/bin/python bench/bench_spark.py --compare          # the paper lake (make paper-lake)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
from hostaware.dbt import DBT, SPARK_DBT, measure
from hostaware.paths import PROJECT, dbt_env

KENDALL = [
    "int_centrality_quality_hosts_weighted",  # Spark only
    "int_centrality_quality_kendall",  # DuckDB (Python)
    "int_centrality_quality_kendall_spark",  # its Spark twin
    "rpt_centrality_quality_correlations",
]


def dbt_command(dbt: Path, target: str, work: Path, with_kendall: bool) -> list[str]:
    """``dbt build`` of models and seeds on ``target``, its artifacts under ``work``."""
    command = [
        # a full parse (~15 s): a partial parse state left by another checkout can be stale
        str(dbt), "--no-partial-parse", "build", "--target", target,
        "--exclude-resource-type", "test", "unit_test",
        "--target-path", str(work / f"target-{target}"), "--log-path", str(work / f"logs-{target}"),
    ]  # fmt: skip
    if not with_kendall:
        command += ["--exclude", *KENDALL]
    return command


def node_times(work: Path, target: str) -> tuple[dict[str, float], list[str]]:
    """Each model's and seed's execution seconds in the last run, and the nodes that failed."""
    path = work / f"target-{target}" / "run_results.json"
    if not path.exists():
        return {}, []
    results = json.loads(path.read_text())["results"]
    times = {result["unique_id"].split(".")[-1]: result["execution_time"] for result in results}
    failed = [result["unique_id"].split(".")[-1] for result in results
              if result["status"] in ("error", "fail")]  # fmt: skip
    return times, failed


def main() -> int:
    """Build the lake on both engines; print the times side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=PROJECT / "build" / "paper-home")
    parser.add_argument("--work", type=Path, default=PROJECT / "build" / "bench-spark")
    parser.add_argument("--engines", nargs="+", choices=["duckdb", "spark"],
                        default=["duckdb", "spark"])  # fmt: skip
    parser.add_argument("--without-kendall", action="store_true")
    parser.add_argument("--driver-memory", default="14g",
                        help="Spark's driver (= executor, locally) heap, unless "
                             "HOSTAWARE_SPARK_DRIVER_MEMORY is set")  # fmt: skip
    parser.add_argument("--shuffle-partitions", default="16",
                        help="unless HOSTAWARE_SPARK_SHUFFLE_PARTITIONS is set (the "
                             "profile's 4 suit the tiny crawl)")  # fmt: skip
    parser.add_argument("--compare", action="store_true")
    args = parser.parse_args()
    home, work = args.home.resolve(), args.work.resolve()
    if not (home / "lake").is_dir():
        parser.error(f"no lake under {home}")
    work.mkdir(parents=True, exist_ok=True)
    (work / "exports").mkdir(exist_ok=True)
    env = {**os.environ, **dbt_env(home, work / "warehouse.duckdb", exports=work / "exports")}
    env.update(DBT_SEND_ANONYMOUS_USAGE_STATS="false", PYTHONHASHSEED="0")
    env.setdefault("SPARK_CONF_DIR", str(PROJECT / "spark-conf"))  # Spark logs errors only
    env.setdefault("HOSTAWARE_SPARK_DRIVER_MEMORY", args.driver_memory)
    env.setdefault("HOSTAWARE_SPARK_SHUFFLE_PARTITIONS", args.shuffle_partitions)
    env["HOSTAWARE_SPARK_WAREHOUSE"] = str(work / "spark-warehouse")
    engines = {"duckdb": ("dev", DBT), "spark": ("spark", SPARK_DBT)}
    totals, nodes, failures = {}, {}, 0
    for engine in args.engines:
        target, dbt = engines[engine]
        if engine == "duckdb":
            Path(env["WAREHOUSE_PATH"]).unlink(missing_ok=True)
        else:
            shutil.rmtree(env["HOSTAWARE_SPARK_WAREHOUSE"], ignore_errors=True)
        command = dbt_command(dbt, target, work, not args.without_kendall)
        (work / f"target-{target}" / "run_results.json").unlink(missing_ok=True)
        run = measure(command, work / f"{engine}.log", env=env)
        seconds, peak, code = run.seconds, run.peak, run.returncode
        totals[engine] = (seconds, peak)
        nodes[engine], failed = node_times(work, target)
        print(f"{engine}: {seconds:.1f} s, peak {peak / 2**30:.2f} GB", flush=True)
        if code != 0:
            # the times of what did build are still worth printing
            print(f"{engine}: dbt build failed (exit {code}): {', '.join(failed) or '?'};"
                  f" see {work / f'{engine}.log'}")  # fmt: skip
            failures += 1
    print(f"\n{'model':<40}" + "".join(f"{engine:>10}" for engine in nodes))
    for name in sorted(set().union(*(times.keys() for times in nodes.values()))):
        cells = "".join(f"{nodes[engine].get(name, float('nan')):>10.1f}" for engine in nodes)
        print(f"{name:<40}{cells}")
    print(f"{'wall (whole dbt build)':<40}" + "".join(f"{totals[e][0]:>10.1f}" for e in nodes))
    if failures:
        return 1
    if args.compare and set(nodes) == {"duckdb", "spark"}:
        compare_env = dict(
            env,
            HOSTAWARE_TEST_WAREHOUSE=env["WAREHOUSE_PATH"],
            HOSTAWARE_SPARK_TABLES=str(work / "spark-warehouse" / "hostaware.db"),
        )
        command = [sys.executable, "-m", "pytest", "-q", "-m", "spark",
                   "tests/warehouse/test_spark_matches_duckdb.py"]  # fmt: skip
        if args.without_kendall:
            command += ["-k", f"not {KENDALL[-1]}"]  # the mart
        return subprocess.run(command, cwd=PROJECT, env=compare_env, check=False).returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
