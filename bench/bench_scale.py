"""How far one machine goes (issue 35): RQ4 and the crawl plan at a real crawl's size.

Two curves, each point built from nothing:

* ``host:F`` — one crawl's host index at share F of a real crawl's 335,267,082 hosts, its
  host-level GneissWeb annotations, the graph release's ranks of the same hosts and the
  classified sample (``python -m demo real-size``); built: RQ4's marts (``fct_host_crawls``
  and its reports) and the crawl plan's (``plan_host_fetch_budget``, its exports, the plan's
  changes, constraint costs and diversity), with everything they read.
* ``url:N`` — the index at ``--url-fraction`` (1/8 by default: a slice of a crawl whose
  fetched pages, ~0.4B, are as many as the curve's largest point) with about N URL-level
  GneissWeb rows spread over its crawled hosts by their fetched pages; built: RQ4 and the
  full-crawl RQ3 (RQ4's marts, ``rpt_sample_size_correlation``, ``rpt_depth_policy_curves``).

Each point: its inputs are written (cached under ``--work``/inputs while a later point of the
run needs them), ingested into a fresh lake with ``python -m ingest`` (each command timed), the
raw inputs deleted, the point's models built by ``dbt build`` (no tests) into a fresh
warehouse, and its figures — rows, wall seconds and peak memory (RSS of the process tree) of
every step, the build's slowest models, the disk the bench used at its peak — appended as one
JSON line to the results file; then its lake, warehouse and exports are deleted. A point
already in the results file is not measured again (``--again``): a run cut short keeps what it
measured and resumes.

Bounds, so that a point cannot break the machine: DuckDB's memory limit (``--memory-limit``,
at most 12 GB) and its spill (``temp_directory`` beside the warehouse, in the bench's folder;
``max_temp_directory_size`` = ``--spill-limit``, through ``HOSTAWARE_MAX_TEMP_SIZE``); before
each point the disk it needs is estimated (``BYTES_PER_HOST``, ``BYTES_PER_URL_ROW``, measured
here, plus the spill limit) and the point refused, with a message, when that is more than
``--budget`` or would leave less than ``--min-free`` free; while it runs, a watchdog samples the
bench folder's size every 2 s and stops the point if it passes ``--budget``. The estimate
follows the points measured so far with the same vars (``disk_need``): a fixed part and a part
per host (per URL row) through the two largest, 15% over it.

Where Spark takes over: ``--engine spark`` builds the same models with dbt-spark (.venv-spark,
``local[2]``, a ``--spark-memory`` driver heap, Spark's spill in ``SPARK_LOCAL_DIRS`` under the
bench's folder) and keys the point ``… on spark``, its own curve. ``--compare`` then also builds
on DuckDB over the same lake and compares every mart of the two builds row by row (numbers to
1e-9); ``--reference`` adds RQ3's and RQ4's marts against ``reference/`` (numpy, pandas,
scipy). A difference fails the point.

    timeout 10800 .venv/bin/python bench/bench_scale.py --points host:0.125 host:0.25
    timeout 7200 .venv/bin/python bench/bench_scale.py --engine spark --compare --reference \
        --points host:0.015625 --vars '{"plan_constraint_costs": false}'
    .venv/bin/python bench/bench_scale.py --report   # the results file's curves, no run
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import math
import os
import shutil
import sys
import threading
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
from demo.real_size import RELEASE, hosts_of
from hostaware import dbt
from hostaware.dbt import gigabytes as gb
from hostaware.paths import PROJECT

GB = 1024**3
MAX_MEMORY_GB = 12
# Disk a point needs at its peak (the build), measured on the 1/32 point (10.5M hosts,
# 2026-12-07, f312ca8): the lake 72 B a host, the warehouse 350, the plan's exports 39 (the
# raw inputs, 70, are deleted once ingested); with a margin. At 1/8 (ebf32d8): 516 bytes a
# host with the default vars, 353 planning one way. A URL-level row: ~42 B raw,
# ~45 in the lake, ~40 in the build.
BYTES_PER_HOST = 520
BYTES_PER_URL_ROW = 150
# what each curve builds: marts and everything they read (`@` would add every other mart
# through rpt_build_settings, which reads them all)
SELECT = {
    "host": ["+path:models/marts/rq4", "+path:models/marts/plan"],
    "url": ["+path:models/marts/rq4", "+rpt_sample_size_correlation", "+rpt_depth_policy_curves"],
}
# the tables whose rows each point reports (the inputs as staged, and the outputs)
COUNTED = {
    "host": [
        "stg_host_index__host_crawls",
        "stg_annotations__hosts",
        "stg_webgraph__host_ranks",
        "stg_crawl__documents",
        "fct_host_crawls",
        "int_plan_hosts",
        "int_plan_allocations",
    ],
    "url": [
        "stg_host_index__host_crawls",
        "stg_annotations__pages",
        "stg_crawl__documents",
        "fct_host_crawls",
        "int_host_crawl_annotations",
        "int_fullcrawl_host_samples",
    ],
}


class DiskWatch:
    """The size of a folder, sampled every ``interval`` s in a thread: its peak, and a stop.

    ``over`` is set when the size passes ``budget`` bytes; ``on_over`` is then called once
    (the bench stops the running step with it).
    """

    def __init__(self, folder: Path, budget: int, interval: float = 2.0) -> None:
        self.folder, self.budget, self.interval = folder, budget, interval
        self.peak = 0
        self.over = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> DiskWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            size = folder_bytes(self.folder)
            self.peak = max(self.peak, size)
            if size > self.budget and not self.over.is_set():
                self.over.set()
                _stop_children()


def folder_bytes(folder: Path) -> int:
    """Bytes the files under ``folder`` take on disk (allocated blocks)."""
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(FileNotFoundError):
                total += os.stat(os.path.join(root, name)).st_blocks * 512
    return total


def _stop_children() -> None:
    """Terminate this process's children (the step that went over the disk budget)."""
    import psutil

    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            child.terminate()


def parse_point(text: str) -> tuple[str, float]:
    """``host:0.125`` → ("host", 0.125); ``url:50M`` → ("url", 50e6)."""
    kind, _, value = text.partition(":")
    scale = {"K": 1e3, "M": 1e6, "B": 1e9}.get(value[-1:].upper(), 1)
    number = float(value[:-1] if scale != 1 else value)
    if kind not in SELECT or number <= 0 or (kind == "host" and number > 1):
        raise argparse.ArgumentTypeError(f"a point is host:F (0 < F <= 1) or url:N, not {text}")
    return kind, number * scale


def point_key(
    kind: str, value: float, variables: dict | None = None, engine: str = "duckdb"
) -> str:
    """``host:0.125``, ``url:50000000``; with dbt vars, ``host:0.25 {"var": value}``; built on
    Spark, ``host:0.125 on spark``."""
    key = f"host:{value:g}" if kind == "host" else f"url:{int(value)}"
    if variables:
        key = f"{key} {json.dumps(variables, sort_keys=True)}"
    return key if engine == "duckdb" else f"{key} on {engine}"


def run(command: list[str], log: Path, label: str, watch: DiskWatch) -> dict:
    """``dbt.measure`` a step; a failure (or the disk watch stopping it) ends the point."""
    measured = dbt.measure(command, log)
    if watch.over.is_set():
        raise SystemExit(f"{label}: the bench's folder passed the disk budget; stopped")
    if measured.returncode != 0:
        raise SystemExit(f"{label} failed ({measured.returncode}):\n{log.read_text()[-4000:]}")
    return {"seconds": round(measured.seconds, 2), "peak_gb": round(gb(measured.peak), 2)}


def last_json(log: Path) -> dict:
    lines = [line for line in log.read_text().splitlines() if line.startswith("{")]
    return json.loads(lines[-1])


def check_disk(work: Path, need: int, budget: int, min_free: int, label: str) -> None:
    """Refuse a point that needs ``need`` more bytes: over ``budget`` with what the bench's
    folder holds already, or leaving less than ``min_free`` free."""
    free, in_use = shutil.disk_usage(work).free, folder_bytes(work)
    if in_use + need > budget:
        raise SystemExit(
            f"{label}: needs about {need / GB:.1f} GB of disk beside the {in_use / GB:.1f} GB "
            f"the bench's folder holds, more than its budget of {budget / GB:.0f} GB; refused"
        )
    if free - need < min_free:
        raise SystemExit(
            f"{label}: needs about {need / GB:.1f} GB of disk and {free / GB:.1f} GB are free: "
            f"it would leave less than {min_free / GB:.0f} GB; refused"
        )


def disk_need(kind: str, hosts: int, url_rows: int, spill: int, measured: list[dict]) -> int:
    """Bytes a point is expected to take at its peak, 15% over the estimate.

    From the points measured so far with the same dbt vars (the caller's ``measured``; their
    spill is in their peaks): with two or more, the line through the two largest (a fixed
    part, e.g. the classified sample and for URL points the index, and a part per host or URL
    row); with one, its peak per host (or URL row), which overstates a larger point by the
    fixed part; with none, ``BYTES_PER_HOST``, ``BYTES_PER_URL_ROW`` and the spill limit.
    """
    size_of = {"host": "hosts", "url": "url_rows"}[kind]
    size = hosts if kind == "host" else url_rows
    points = sorted(
        (
            row
            for row in measured
            if row["kind"] == kind and (kind == "host" or row["hosts"] == hosts)
        ),
        key=lambda row: row[size_of],
    )
    peaks = [(row[size_of], row["disk_peak_gb"] * GB) for row in points]
    if len(peaks) >= 2 and peaks[-1][0] > peaks[-2][0]:
        (small, small_peak), (large, large_peak) = peaks[-2], peaks[-1]
        per_unit = (large_peak - small_peak) / (large - small)
        fixed = max(large_peak - per_unit * large, 0.0)
        if per_unit > 0:
            return int(1.15 * (fixed + per_unit * size))
    if peaks:
        return int(1.15 * max(peak / count for count, peak in peaks) * size)
    if kind == "host":
        return hosts * BYTES_PER_HOST + spill
    return hosts * BYTES_PER_HOST + url_rows * BYTES_PER_URL_ROW + spill


def ingest_url_rows(
    generate: list[str], written: dict, lake: Path, logs: Path, label: str, watch, figures: dict
) -> dict:
    """Ingest the URL rows ``generate`` wrote, a batch of parts at a time: each batch is
    ingested and its files deleted before the generator writes the next (``--url-parts``),
    so that the raw rows on disk never exceed a batch beside the lake. Returns the ingest's
    seconds and peak; the batches' generation seconds are added to ``figures["generate"]``."""
    python = generate[0]
    folder = Path(written["url_annotations"]["folder"])
    ingested = {"seconds": 0.0, "peak_gb": 0.0, "batches": 0}
    while True:
        batch = ingested["batches"]
        step = run(
            [python, "-m", "ingest", "annotations", "--path", str(folder), "--lake", str(lake)],
            logs / f"ingest-url_annotations-{batch}.log",
            f"{label}: ingest url_annotations (batch {batch})",
            watch,
        )
        ingested["seconds"] = round(ingested["seconds"] + step["seconds"], 2)
        ingested["peak_gb"] = max(ingested["peak_gb"], step["peak_gb"])
        ingested["batches"] += 1
        for path in folder.glob("*.parquet"):  # in the lake now; their markers stay
            path.unlink()
        if written["url_annotations"]["complete"]:
            break
        again = [part for part in generate if part != "--lake"]
        again.remove(str(lake))  # the classified sample is committed already
        log = logs / f"generate-{batch + 1}.log"
        step = run(again, log, f"{label}: generate (batch {batch + 1})", watch)
        figures["generate"]["seconds"] = round(figures["generate"]["seconds"] + step["seconds"], 2)
        written = last_json(log)
    shutil.rmtree(folder.parent)  # no other point has as many rows
    return ingested


def measure_point(
    kind: str, value: float, args: argparse.Namespace, keep: bool, measured: list[dict]
) -> dict:
    """Generate, ingest and build one point; return its figures."""
    work, python = args.work, sys.executable
    fraction = value if kind == "host" else args.url_fraction
    url_rows = int(value) if kind == "url" else 0
    hosts = hosts_of(fraction)
    label = point_key(kind, value, args.vars, args.engine)
    spill = int(args.spill_limit * GB)
    need = disk_need(kind, hosts, url_rows, spill, measured)
    if args.compare:  # two warehouses of the same lake
        need *= 2
    need -= folder_bytes(work / "inputs" / f"hosts-{hosts}")  # cached inputs: written already
    check_disk(work, max(need, 0), int(args.budget * GB), int(args.min_free * GB), label)
    folder = point_key(kind, value, engine=args.engine).replace(":", "-").replace(" ", "-")
    folder += "".join(f"-{name}={setting}" for name, setting in sorted(args.vars.items()))
    home, logs = work / "home", work / "logs" / folder
    shutil.rmtree(home, ignore_errors=True)
    logs.mkdir(parents=True, exist_ok=True)
    lake = home / "lake"
    figures: dict = {"point": label, "kind": kind, "hosts": hosts, "url_rows": url_rows}
    figures["vars"] = args.vars
    started = time.perf_counter()
    with DiskWatch(work, int(args.budget * GB)) as watch:
        generate = [python, "-m", "demo", "real-size", "--fraction", repr(fraction)]
        generate += ["--out", str(work / "inputs"), "--ranks", "--lake", str(lake)]
        generate += ["--memory-limit", args.memory_limit]
        if url_rows:
            generate += ["--url-rows", str(url_rows), "--url-parts", str(args.url_batch)]
        figures["generate"] = run(generate, logs / "generate.log", f"{label}: generate", watch)
        written = last_json(logs / "generate.log")
        figures["generated"] = written
        root = Path(written["folder"])
        ingests = {
            "host_index": ["host-index", "--path", str(root / "host-index")],
            "ranks": ["graph", "--release", RELEASE, "--ranks", written["ranks"]["path"]],
        }
        if not url_rows:
            ingests["host_annotations"] = ["annotations", "--path", str(root / "host-annotations")]
        figures["ingest"] = {
            name: run(
                [python, "-m", "ingest", *command, "--lake", str(lake)],
                logs / f"ingest-{name}.log",
                f"{label}: ingest {name}",
                watch,
            )
            for name, command in ingests.items()
        }
        if url_rows:
            figures["ingest"]["url_annotations"] = ingest_url_rows(
                generate, written, lake, logs, label, watch, figures
            )
        if not keep:
            shutil.rmtree(root)
        figures["lake_gb"] = round(gb(folder_bytes(lake)), 2)
        os.environ["HOSTAWARE_MEMORY_LIMIT"] = args.memory_limit
        os.environ["HOSTAWARE_MAX_TEMP_SIZE"] = f"{args.spill_limit:g}GB"
        build = build_point(args.engine, kind, home, logs, args, label, watch)
        figures["engine"] = args.engine
        figures["build"] = build_figures(build, args.top)
        figures["warehouse_gb"] = round(gb(folder_bytes(home) - folder_bytes(lake)), 2)
        figures["exports_gb"] = round(gb(folder_bytes(logs / "exports-build")), 2)
        figures["rows"] = counted_rows(args.engine, build["warehouse"], kind)
        if args.compare:
            figures.update(compare_point(kind, build, home, logs, args, label, watch))
    figures["disk_peak_gb"] = round(gb(watch.peak), 2)
    figures["seconds"] = round(time.perf_counter() - started, 2)
    figures["machine"] = {"cores": os.cpu_count(), "memory_limit": args.memory_limit}
    if args.engine == "spark":
        figures["machine"] |= {
            "spark_master": "local[2]",
            "spark_driver_memory": args.spark_memory,
            "shuffle_partitions": args.shuffle_partitions,
        }
    figures["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    shutil.rmtree(home, ignore_errors=True)
    for name in ("build", "duckdb"):
        shutil.rmtree(logs / f"exports-{name}", ignore_errors=True)
    return figures


def build_point(
    engine: str, kind: str, home: Path, logs: Path, args: argparse.Namespace, label: str, watch
) -> dict:
    """The point's ``dbt build`` on ``engine`` (its curve's models, no tests) into a fresh
    warehouse under ``home``: DuckDB's file, or Spark's folder with Spark's spill
    (``SPARK_LOCAL_DIRS``) beside it. Returns ``dbt.timed_build``'s figures."""
    name = "build" if engine == args.engine else engine
    environment = {}
    warehouse = home / "warehouse.duckdb"
    if engine == "spark":
        warehouse = home / "spark-warehouse"
        (home / "spark-local").mkdir(parents=True, exist_ok=True)
        environment = {
            "HOSTAWARE_SPARK_DRIVER_MEMORY": args.spark_memory,
            "HOSTAWARE_SPARK_SHUFFLE_PARTITIONS": str(args.shuffle_partitions),
            "SPARK_LOCAL_DIRS": str(home / "spark-local"),
        }
    build = dbt.timed_build(
        home,
        warehouse,
        logs,
        name,
        select=SELECT[kind],
        variables=args.vars,
        engine=engine,
        environment=environment,
    )
    if watch.over.is_set():
        raise SystemExit(f"{label}: the bench's folder passed the disk budget; stopped")
    if build["unbuilt"] or build["code"] != 0:
        tail = build["log"].read_text()[-6000:]
        raise SystemExit(f"{label}: dbt build ({engine}) failed: {build['unbuilt']}\n{tail}")
    return build


def build_figures(build: dict, top: int) -> dict:
    """A build's wall seconds, peak memory, dbt's own seconds and its slowest nodes."""
    return {
        "seconds": round(build["seconds"], 2),
        "peak_gb": round(gb(build["peak"]), 2),
        "dbt_elapsed": round(build["elapsed"], 2),
        "slowest": [
            {"node": node["node"], "seconds": round(node["seconds"], 2)}
            for node in build["nodes"][:top]
        ],
    }


def spark_relation(warehouse: Path, table: str) -> str:
    """A table of a Spark warehouse folder as DuckDB reads it (per-crawl tables are
    partitioned: their files under crawl=<id>/)."""
    folder = warehouse / "hostaware.db" / table
    return f"read_parquet('{folder}/**/*.parquet', hive_partitioning = true)"


def counted_rows(engine: str, warehouse: Path, kind: str) -> dict[str, int]:
    """The rows of the curve's counted tables; on Spark, of those that are tables (its
    staging models are views in its metastore, which DuckDB cannot read)."""
    with duckdb.connect(":memory:" if engine == "spark" else str(warehouse), read_only=False) as c:
        if engine == "duckdb":
            tables = {table: table for table in COUNTED[kind]}
        else:
            tables = {
                table: spark_relation(warehouse, table)
                for table in COUNTED[kind]
                if (warehouse / "hostaware.db" / table).is_dir()
            }
        return {
            table: c.sql(f"select count(*) from {relation}").fetchall()[0][0]
            for table, relation in tables.items()
        }


def compare_point(
    kind: str, build: dict, home: Path, logs: Path, args: argparse.Namespace, label: str, watch
) -> dict:
    """The same models built on DuckDB over the same lake, and every mart of the two builds
    compared row by row (tests/warehouse/test_spark_matches_duckdb.py's comparison: text and
    flags exactly, numbers to 1e-9 of max(1, |value|)); with ``--reference``, RQ3's and
    RQ4's marts against ``reference/`` (numpy, pandas, scipy; bench_marts_rq34.py's run and
    comparison). Raises ``SystemExit`` when anything differs."""
    from tests.warehouse.test_spark_matches_duckdb import differing_columns

    duck = build_point("duckdb", kind, home, logs, args, label, watch)
    marts = sorted(
        node["node"].split(" ", 1)[1]
        for node in build["nodes"]
        if node["node"].startswith("model ")
        and any((PROJECT / "models" / "marts").rglob(node["node"].split(" ", 1)[1] + ".sql"))
    )
    compared: dict = {"duckdb_build": build_figures(duck, args.top), "compared_marts": {}}
    problems = []
    with duckdb.connect(str(duck["warehouse"]), read_only=True) as warehouse:
        for mart in marts:
            # a cursor per mart: the comparison leaves its last result unfetched
            connection = warehouse.cursor()
            relation = spark_relation(build["warehouse"], mart)
            rows = connection.sql(f"select count(*) from {mart}").fetchall()[0][0]
            spark_rows = connection.sql(f"select count(*) from {relation}").fetchall()[0][0]
            differing = differing_columns(connection, mart, relation) if rows == spark_rows else {}
            compared["compared_marts"][mart] = {"rows": rows, "spark_rows": spark_rows}
            if rows != spark_rows or differing:
                problems.append(
                    f"{mart}: {rows} rows on DuckDB, {spark_rows} on Spark; {differing}"
                )
    if args.reference:
        compared["reference"] = reference_point(kind, duck["warehouse"], home, logs, problems)
    if problems:
        (logs / "compare.txt").write_text("\n".join(problems))
        raise SystemExit(f"{label}: the engines differ:\n" + "\n".join(problems)[-6000:])
    return compared


def reference_point(kind: str, warehouse: Path, home: Path, logs: Path, problems: list) -> dict:
    """RQ4's marts (and for URL points RQ3's) computed by ``reference/`` from the lake, in a
    child process per part, compared with the DuckDB warehouse; what differs is appended to
    ``problems``. Returns each part's seconds, peak memory and compared rows."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_marts_rq34 as rq34

    from reference.compare_parquet import compare_parquet

    figures = {}
    for part in ["rq4", "rq3"] if kind == "url" else ["rq4"]:
        run = rq34.run_reference(home, logs, part)
        tables = {table: rq34.TABLES[table] for table in rq34.MARTS[part]}
        rows = compare_parquet(warehouse, run["out"], tables, logs, rq34.PARTITIONS)
        figures[part] = {
            "seconds": round(run["seconds"], 2),
            "peak_gb": round(gb(run["peak"]), 2),
            "tables": {row["table"]: row.get("rows") for row in rows},
        }
        for row in rows:
            counts = ("only_dbt", "only_reference", "null_mismatches", "exact_mismatches")
            # examples: rows whose numbers differ by more than 1e-9 relative
            if row["problems"] or row["examples"] or any(row.get(key) for key in counts):
                problems.append(f"reference {row['table']}: {row}")
        shutil.rmtree(run["out"], ignore_errors=True)
    return figures


def read_results(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    results = {}
    for line in path.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            results[row["point"]] = row
    return results


def setting_of(row: dict) -> str:
    """A point's dbt vars and engine, as the text that groups points into one curve."""
    engine = {"engine": row.get("engine", "duckdb")}
    return json.dumps({**row.get("vars", {}), **engine}, sort_keys=True)


def report(results: dict[str, dict]) -> list[str]:
    """Each curve: rows, wall seconds and peak memory per point, and the ratio per doubling."""
    lines = []
    settings = sorted({setting_of(row) for row in results.values()})
    for (kind, size), setting in itertools.product(
        (("host", "hosts"), ("url", "url_rows")), settings
    ):
        points = [
            row for row in results.values() if row["kind"] == kind and setting_of(row) == setting
        ]
        points.sort(key=lambda row: row[size])
        if not points:
            continue
        if setting != '{"engine": "duckdb"}':
            lines.append(f"with {setting}:")
        lines.append(
            f"{kind} level: {size:>12} | generate s | ingest s | build s | build peak GB | "
            f"lake GB | warehouse GB | disk peak GB | build × per doubling"
        )
        previous = None
        for row in points:
            ingest = sum(step["seconds"] for step in row["ingest"].values())
            ratio = ""
            if previous is not None:
                doublings = math.log2(row[size] / previous[size])
                per = (row["build"]["seconds"] / previous["build"]["seconds"]) ** (1 / doublings)
                ratio = f"{per:.2f}×"
            lines.append(
                f"  {row['point']:<12} {row[size]:>12,} | {row['generate']['seconds']:>10.1f} | "
                f"{ingest:>8.1f} | {row['build']['seconds']:>7.1f} | "
                f"{row['build']['peak_gb']:>13.2f} | {row['lake_gb']:>7.2f} | "
                f"{row['warehouse_gb']:>12.2f} | {row['disk_peak_gb']:>12.2f} | {ratio}"
            )
            previous = row
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--work",
        type=Path,
        default=Path.home() / ".cache" / "hostaware" / "bench-scale",
        help="the bench's folder: inputs, lake, warehouse, spill, logs, results",
    )
    parser.add_argument("--results", type=Path, help="default <work>/results.jsonl")
    parser.add_argument(
        "--points",
        nargs="+",
        type=parse_point,
        default=[parse_point(p) for p in ("host:0.125", "host:0.25", "host:0.5", "host:1")]
        + [parse_point(f"url:{n}M") for n in (50, 100, 200, 400)],
        help="host:F (share of 335M hosts) and url:N (URL-level rows), in order",
    )
    parser.add_argument("--url-fraction", type=float, default=0.125, help="index of url points")
    parser.add_argument("--memory-limit", default="12GB", help="DuckDB's limit (at most 12GB)")
    parser.add_argument("--spill-limit", type=float, default=8.0, help="GB DuckDB may spill")
    parser.add_argument("--budget", type=float, default=40.0, help="GB the bench may use")
    parser.add_argument("--min-free", type=float, default=15.0, help="GB to leave free")
    parser.add_argument("--top", type=int, default=8, help="slowest models to keep per point")
    parser.add_argument("--again", action="store_true", help="measure points already measured")
    parser.add_argument("--keep-inputs", action="store_true", help="keep the generated inputs")
    parser.add_argument(
        "--url-batch",
        type=int,
        default=6,
        help="parts of the URL rows generated and ingested at a time (of one per 2M hosts)",
    )
    parser.add_argument(
        "--keep-failed",
        action="store_true",
        help="keep a failed point's lake and warehouse (<work>/home), to profile it",
    )
    parser.add_argument(
        "--vars",
        type=json.loads,
        default={},
        help="dbt vars of the build, as JSON ('{\"plan_constraint_costs\": false}' plans one "
        "way, as at a real crawl's size); part of each point's key",
    )
    parser.add_argument(
        "--engine",
        choices=["duckdb", "spark"],
        default="duckdb",
        help="build on DuckDB, or on Spark local[2] (dbt-spark from .venv-spark); part of the key",
    )
    parser.add_argument("--spark-memory", default="12g", help="Spark's driver heap (local mode)")
    parser.add_argument("--shuffle-partitions", type=int, default=16, help="Spark's")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="on Spark: also build on DuckDB over the same lake and compare every mart",
    )
    parser.add_argument(
        "--reference",
        action="store_true",
        help="with --compare: RQ3's and RQ4's marts against reference/ (numpy, pandas) too",
    )
    parser.add_argument("--report", action="store_true", help="print the results file only")
    args = parser.parse_args(argv)
    if args.compare and args.engine != "spark":
        parser.error("--compare compares a Spark build with DuckDB's: use it with --engine spark")
    if args.reference and not args.compare:
        parser.error("--reference needs --compare")
    limit = args.memory_limit.upper().removesuffix("B").removesuffix("G")
    if not limit.replace(".", "").isdigit() or float(limit) > MAX_MEMORY_GB:
        parser.error(f"--memory-limit is a size in GB of at most {MAX_MEMORY_GB}GB")
    args.work = args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    results_path = args.results or args.work / "results.jsonl"
    results = read_results(results_path)
    if not args.report:
        print(f"bench_scale: {args.work} (project {PROJECT}), {os.cpu_count()} cores")
        for index, (kind, value) in enumerate(args.points):
            key = point_key(kind, value, args.vars, args.engine)
            if key in results and not args.again:
                print(f"{key}: measured already ({results[key]['measured_at']}); --again redoes")
                continue
            later = args.points[index + 1 :]
            fraction = value if kind == "host" else args.url_fraction
            keep = args.keep_inputs or any(
                (v if k == "host" else args.url_fraction) == fraction for k, v in later
            )
            try:
                alike = [  # a point's disk follows the DuckDB points of its vars
                    row
                    for row in results.values()
                    if row.get("vars", {}) == args.vars and row.get("engine", "duckdb") == "duckdb"
                ]
                figures = measure_point(kind, value, args, keep, alike)
            except SystemExit as failure:  # kept for the record; the point is tried again
                with (args.work / "failures.jsonl").open("a") as handle:
                    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                    handle.write(json.dumps({"point": key, "at": stamp, "error": str(failure)}))
                    handle.write("\n")
                raise
            finally:  # a failed point's lake and warehouse go too: the disk is bounded
                if not args.keep_failed:
                    shutil.rmtree(args.work / "home", ignore_errors=True)
            results[key] = figures
            with results_path.open("a") as handle:
                handle.write(json.dumps(figures) + "\n")
            print(
                f"{key}: build {figures['build']['seconds']:.1f} s, "
                f"{figures['build']['peak_gb']:.2f} GB peak; rows {figures['rows']}"
            )
        if not args.keep_inputs:
            shutil.rmtree(args.work / "inputs", ignore_errors=True)
    print("\n".join(report(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
