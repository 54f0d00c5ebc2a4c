"""The whole warehouse build at scale: where each second goes, against issue 19's targets.

Target (the `make paper-lake` lake, 2 cores): ``dbt build`` of every model and seed in at most
60 s with at most 4 GB peak memory, and with every data and unit test in at most 120 s.

1. The lake's size: rows of each input as its staging view reads them (committed parts only).
2. ``dbt build --exclude-resource-type test unit_test`` into a fresh warehouse (``--with-tests``
   then a second fresh build with every test): wall time, peak memory (RSS of the process tree,
   summed, sampled every 100 ms: ``hostaware.dbt.measure``), dbt's own elapsed time.
3. Where the seconds go: dbt's per-node times summed by folder (staging, each intermediate
   concern, each mart group, seeds, tests), then the slowest nodes.
4. The floor: what no build can beat — one DuckDB pass over each input's
   committed parts that reads exactly the columns the marts use and reduces them to the
   per-host (or per-crawl) aggregates every analysis starts from, at the profile's memory
   limit, nothing written. The build's seconds above it are the cost of its analyses.

    .venv/bin/python bench/bench_build.py --home build/test-home
    .venv/bin/python bench/bench_build.py --home /path/to/paper-home --with-tests
    .venv/bin/python bench/bench_build.py --home /path/to/paper-home --bootstrap-cost

``--bootstrap-cost`` builds a second time with ``bootstrap_replicates`` 0 (issue 34: the
intervals may add at most 50% to the build) and prints the difference, node by node.

The warehouse (default <home>/bench-build.duckdb, ~5 GB at paper scale) is deleted before each
build and once its figures are printed (``--keep-warehouse`` keeps it, to time single nodes
against it); dbt's target, logs and exports go under ``--work`` (default a temporary folder).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
from hostaware import dbt
from hostaware.dbt import gigabytes as gb
from hostaware.paths import PROJECT
from reference.lake import committed_files

TARGET_SECONDS = 60.0
TARGET_BYTES = 4 * 1024**3
TARGET_WITH_TESTS_SECONDS = 120.0

# the inputs, as the staging views read them
INPUTS = {
    "classified documents": "stg_crawl__documents",
    "document scores": "stg_crawl__document_scores",
    "graph ranks (host × release)": "stg_webgraph__host_ranks",
    "host index (host × crawl)": "stg_host_index__host_crawls",
    "URL-level annotations": "stg_annotations__pages",
    "host-level annotations": "stg_annotations__hosts",
}


# The floor: per input, the columns the marts read (the staging views' columns that some
# model uses) reduced to the aggregates the analyses start from. {table} is the table's
# committed part files, read with their partition folder (crawl= or release=) as a column,
# which costs a build nothing either.
FLOOR = {
    "classified documents × scores → host × classifier": """
        select documents.surt_host_name, scores.classifier, count(*), sum(scores.score),
            min(documents.language), min(documents.url)
        from {document_scores} as scores
        inner join {documents} as documents on scores.doc_id = documents.doc_id
        group by all
    """,
    "graph ranks → release": """
        select release, count(surt_host_name), sum(hc_pos), sum(hc_val), sum(pr_pos),
            sum(pr_val)
        from {host_ranks}
        group by all
    """,
    "host index → crawl": """
        select crawl, count(surt_host_name), count(url_host_registered_domain),
            count(url_host_tld), count(url_host_registry_suffix), sum(hcrank),
            sum(nutch_num_records), sum(nutch_fetched), sum(robots_200), sum(robots_3xx),
            sum(robots_4xx), sum(robots_5xx), sum(robots_gone), sum(robots_other)
        from {host_index}
        group by all
    """,
    "URL-level annotations → host × crawl": """
        select crawl, surt_host_name, annotation_profile, count(page_key),
            sum(quality_score), sum(quality_int_score), count(*) filter (where in_gneissweb),
            count(url)
        from {page_annotations}
        group by all
    """,
    "host-level annotations → crawl": """
        select crawl, count(surt_host_name), count(*) filter (where in_gneissweb)
        from {host_annotations}
        group by all
    """,
}
FLOOR_TABLES = [
    "documents",
    "document_scores",
    "host_ranks",
    "host_index",
    "page_annotations",
    "host_annotations",
]


def floor(home: Path, scratch: Path) -> dict[str, float]:
    """Seconds of each FLOOR pass over ``home``'s lake, in a fresh DuckDB at the profile's limit."""
    relations = {}
    for table in FLOOR_TABLES:
        paths = ", ".join(f"'{path}'" for path, _ in committed_files(home / "lake", table))
        relations[table] = f"read_parquet([{paths}], hive_partitioning = true)"
    config = {
        "memory_limit": os.environ.get("HOSTAWARE_MEMORY_LIMIT", "5GB"),
        "temp_directory": str(scratch / "floor-spill"),
        "max_temp_directory_size": "20GB",
        "preserve_insertion_order": False,
    }
    seconds = {}
    with duckdb.connect(config=config) as connection:
        connection.execute("set enable_progress_bar = false")  # a session option
        for label, sql in FLOOR.items():
            start = time.perf_counter()
            # every column of every row consumed: an outer count(*) alone would let the
            # optimizer drop the aggregates, and the columns they read
            query = f"select sum(hash(floor_rows)) from ({sql.format(**relations)}) as floor_rows"
            connection.sql(query).fetchall()
            seconds[label] = time.perf_counter() - start
    return seconds


def build(
    home: Path,
    warehouse: Path,
    work: Path,
    with_tests: bool,
    name: str | None = None,
    variables: dict | None = None,
) -> dict:
    """One ``dbt build`` into a fresh ``warehouse``: its measures and per-node times."""
    name = name or ("with-tests" if with_tests else "models")
    run = dbt.timed_build(home, warehouse, work, name, with_tests=with_tests, variables=variables)
    # a failing data test does not stop the timing (it is listed); a model that did not
    # build (or a failing unit test, which skips its model) does
    failed = [node["node"] for node in run["nodes"] if node["status"] in ("fail", "error")]
    if failed:
        print(f"dbt build ({name}): {len(failed)} failed: {', '.join(failed[:10])}")
    if run["unbuilt"] or (run["code"] != 0 and not with_tests):
        raise SystemExit(
            f"dbt build ({name}) failed: not built {run['unbuilt']}\n"
            f"{run['log'].read_text()[-6000:]}"
        )
    return run


def folders(target: Path) -> dict[str, str]:
    """Each node's group: its folder under models/ (two levels), 'seeds' or 'tests'."""
    manifest = json.loads((target / "manifest.json").read_text())
    groups = {}
    for unique_id, node in manifest["nodes"].items():
        kind = unique_id.split(".", 1)[0]
        name = f"{kind} {unique_id.rsplit('.', 1)[1]}"
        if kind == "model":
            parts = Path(node["original_file_path"]).parts[1:3]
            groups[name] = "/".join(part for part in parts if not part.endswith((".sql", ".py")))
        else:
            groups[name] = {"seed": "seeds", "test": "tests"}.get(kind, kind)
    for unique_id in manifest.get("unit_tests", {}):
        groups[f"unit_test {unique_id.rsplit('.', 1)[1]}"] = "tests"
    return groups


def input_rows(warehouse: Path) -> dict[str, int]:
    """Rows each input holds, through the warehouse's staging views."""
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        return {
            label: connection.sql(f"select count(*) from {view}").fetchall()[0][0]
            for label, view in INPUTS.items()
        }


def report(result: dict, limit: float, top: int) -> list[str]:
    """The build's figures beside its targets, then where its seconds went."""
    met = "met" if result["seconds"] <= limit else "missed"
    lines = [
        f"dbt build ({result['name']}): {result['seconds']:.1f} s wall (target ≤ {limit:.0f} s: "
        f"{met}), dbt's own {result['elapsed']:.1f} s"
    ]
    if result["name"] == "models":
        met = "met" if result["peak"] <= TARGET_BYTES else "missed"
        lines[0] += (
            f", peak {gb(result['peak']):.2f} GB (target ≤ {gb(TARGET_BYTES):.0f} GB: {met})"
        )
    else:
        lines[0] += f", peak {gb(result['peak']):.2f} GB"
    groups = folders(result["target"])
    by_group: dict[str, float] = defaultdict(float)
    for node in result["nodes"]:
        by_group[groups.get(node["node"], node["node"].split()[0])] += node["seconds"]
    total = sum(by_group.values())
    lines.append(f"  by folder (node times sum to {total:.1f} s):")
    for group, seconds in sorted(by_group.items(), key=lambda item: -item[1]):
        lines.append(f"    {seconds:>8.1f} s {seconds / total if total else 0:>6.1%}  {group}")
    lines += dbt.slowest_nodes(result["nodes"], top, indent="  ")
    return lines


def bootstrap_cost(models: dict, off: dict, top: int) -> list[str]:
    """What the bootstrap intervals add: the build with them against the build without."""
    added = models["seconds"] - off["seconds"]
    lines = [
        f"the bootstrap intervals (bootstrap_replicates as the project sets it, against 0): "
        f"{models['seconds']:.1f} s against {off['seconds']:.1f} s wall, +{added:.1f} s "
        f"(+{added / off['seconds']:.1%}; target ≤ +50%: "
        f"{'met' if added <= off['seconds'] / 2 else 'missed'}); peak "
        f"{gb(models['peak']):.2f} against {gb(off['peak']):.2f} GB",
        "  the nodes it makes slower, by seconds added:",
    ]
    before = {node["node"]: node["seconds"] for node in off["nodes"]}
    differences = sorted(
        ((node["seconds"] - before.get(node["node"], 0.0), node) for node in models["nodes"]),
        key=lambda item: -item[0],
    )
    for difference, node in differences[:top]:
        if difference < 0.5:
            break
        lines.append(
            f"    {difference:>+8.1f} s  {node['node']} "
            f"({before.get(node['node'], 0.0):.1f} -> {node['seconds']:.1f} s)"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--home", type=Path, required=True, help="a HOSTAWARE_HOME with a lake")
    parser.add_argument("--warehouse", type=Path, help="default <home>/bench-build.duckdb")
    parser.add_argument("--work", type=Path, help="dbt's target, logs and exports")
    parser.add_argument("--with-tests", action="store_true", help="also time a build with tests")
    parser.add_argument("--top", type=int, default=15, help="slowest nodes to list")
    parser.add_argument(
        "--keep-warehouse", action="store_true", help="keep the built warehouse afterwards"
    )
    parser.add_argument(
        "--bootstrap-cost",
        action="store_true",
        help="also build with bootstrap_replicates 0 and print what the intervals add",
    )
    args = parser.parse_args(argv)
    home = args.home.resolve()
    warehouse = (args.warehouse or home / "bench-build.duckdb").resolve()
    with tempfile.TemporaryDirectory(prefix="bench-build-") as scratch:
        work = (args.work or Path(scratch)).resolve()
        work.mkdir(parents=True, exist_ok=True)
        print(f"bench_build: {home} (project {PROJECT}), {os.cpu_count()} cores")
        models = build(home, warehouse, work, with_tests=False)
        print("the lake (rows each staging view reads):")
        for label, rows in input_rows(warehouse).items():
            print(f"  {rows:>14,}  {label}")
        print("\n".join(report(models, TARGET_SECONDS, args.top)))
        passes = floor(home, work)
        total = sum(passes.values())
        print(
            f"the floor (one pass over each input's columns the marts read, aggregated): "
            f"{total:.1f} s; the build is {models['seconds'] / total:.1f}× it, "
            f"{models['seconds'] - total:.1f} s above it"
        )
        for label, seconds in passes.items():
            print(f"  {seconds:>8.1f} s  {label}")
        if args.bootstrap_cost:
            off = build(
                home,
                warehouse,
                work,
                with_tests=False,
                name="no-bootstrap",
                variables={"bootstrap_replicates": 0},
            )
            print("\n".join(bootstrap_cost(models, off, args.top)))
        if args.with_tests:
            tested = build(home, warehouse, work, with_tests=True)
            print("\n".join(report(tested, TARGET_WITH_TESTS_SECONDS, args.top)))
    if not args.keep_warehouse:
        for path in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
            path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
