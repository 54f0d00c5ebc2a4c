"""A new crawl in a built warehouse: ``python -m update`` against the full build it follows.

Issue 33's cost target (the `make paper-lake` lake, 2 cores): adding a crawl's host index and
annotations to a warehouse built on the other crawls, and updating, costs at most 25% of a full
build.

1. A working home under ``--work`` whose lake is the paper lake with one crawl's host-index,
   URL-level and host-level annotation inputs uncommitted (``ingest.lake.uncommit``). The lake
   is a copy of hard links (no second copy of its GBs; removing a link leaves the paper lake
   whole).
2. ``update`` into a fresh warehouse: no recorded state, so everything is built (tests
   excluded, as in the update below) — the full build.
3. The crawl's manifest rows and parts linked back from the paper lake (exactly as the ingest
   committed them), then ``update`` again: the sources that read the changed tables and their
   descendants. Wall seconds of each, the models each built, and the update's share of the full
   build. The warehouse and the working lake are deleted at the end.

    .venv/bin/python bench/bench_update.py --home ~/.cache/hostaware/paper-home \\
        --work ~/.cache/hostaware/bench-update [--crawl CC-MAIN-2023-06]

The default crawl is the newest one that no var of dbt_project.yml names or implies (the
sample, full and plan crawls are CC-MAIN-2024-10, the plan's previous crawl CC-MAIN-2023-50).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
import update
from ingest.lake import file_key, manifest_rows, uncommit

TARGET_SHARE = 0.25
CRAWL_TABLES = ("host_index", "page_annotations", "host_annotations")
FREE_BYTES_NEEDED = 15 * 1024**3


def _link_lake(source: Path, destination: Path) -> None:
    """``destination``: ``source``'s folders, its files hard links to the same bytes."""
    for folder, _, files in os.walk(source):
        relative = Path(folder).relative_to(source)
        (destination / relative).mkdir(parents=True, exist_ok=True)
        for name in files:
            os.link(Path(folder) / name, destination / relative / name)


def _rows_of(lake: Path, crawl: str) -> dict[str, list[dict]]:
    return {
        table: [row for row in manifest_rows(lake, table) if row["crawl"] == crawl]
        for table in CRAWL_TABLES
    }


def _models_built(target: Path) -> int:
    results = json.loads((target / "run_results.json").read_text())["results"]
    return sum(result["unique_id"].startswith("model.") for result in results)


def _timed_update(home: Path, warehouse: Path, work: Path, name: str) -> tuple[float, int, str]:
    os.environ["DBT_TARGET_PATH"] = str(work / f"target-{name}")
    os.environ["DBT_LOG_PATH"] = str(work / f"logs-{name}")
    out = io.StringIO()
    started = time.perf_counter()
    update.update(
        home, warehouse, dbt_args=["--exclude-resource-type", "test", "unit_test"], out=out
    )
    seconds = time.perf_counter() - started
    said = "\n".join(line for line in out.getvalue().splitlines() if not line[:1].isdigit())
    return seconds, _models_built(work / f"target-{name}"), said


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="the paper lake's home")
    parser.add_argument("--work", type=Path, required=True, help="the working home and logs")
    parser.add_argument("--crawl", default="CC-MAIN-2023-06", help="the crawl added last")
    args = parser.parse_args()
    lake = args.home.resolve() / "lake"
    work = args.work.resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    free = shutil.disk_usage(work).free
    if free < FREE_BYTES_NEEDED:
        raise SystemExit(f"{work}: {free / 1024**3:.1f} GB free, the bench needs 15 GB")
    home = work / "home"
    _link_lake(lake, home / "lake")
    rows = _rows_of(home / "lake", args.crawl)
    if not rows["host_index"]:
        raise SystemExit(f"{lake}: no host-index input of {args.crawl}")
    for table, table_rows in rows.items():
        for row in table_rows:
            uncommit(home / "lake", table, row)
    counts = ", ".join(f"{table} {len(table_rows)}" for table, table_rows in rows.items())
    print(f"lake: {lake}, {args.crawl} left out (inputs: {counts}); 2 cores")
    warehouse = home / "warehouse.duckdb"
    try:
        full, full_models, said = _timed_update(home, warehouse, work, "full")
        print(f"full build (no recorded state): {full:.1f} s, {full_models} models\n  {said}")
        for table, table_rows in rows.items():
            for row in table_rows:
                key = row["part_key"] or file_key(row["source_sha256"])
                relatives = [*row["output_files"], f"_manifest/{table}/{key}.parquet"]
                for relative in relatives:
                    (home / "lake" / relative).parent.mkdir(parents=True, exist_ok=True)
                    os.link(lake / relative, home / "lake" / relative)
        added, added_models, said = _timed_update(home, warehouse, work, "add-crawl")
        share = added / full
        verdict = "met" if share <= TARGET_SHARE else "missed"
        print(f"update after adding {args.crawl}: {added:.1f} s, {added_models} models\n  {said}")
        print(
            f"the update is {share:.0%} of the full build (target <= {TARGET_SHARE:.0%}: {verdict})"
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
