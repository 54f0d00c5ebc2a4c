"""A new crawl, a WARC batch and a graph release in a built warehouse: ``python -m update``.

Issue 33's cost targets (the `make paper-lake` lake, 2 cores): adding a crawl's host index and
annotations to a warehouse built on the other crawls, and updating, costs at most 25% of a full
build; adding a WARC batch of 10% more pages rebuilds only what depends on the documents.

1. A working home under ``--work`` whose lake is the paper lake with three inputs left out:
   one crawl's host-index, URL-level and host-level annotation inputs and one graph release's
   ranks (``ingest.lake.uncommit``), and a batch of the classified sample: the sample's one
   input is committed again as two, a base and a batch of a tenth of its size
   (``demo.paper_lake.commit_sample``; every 11th page), the batch left out. The lake is a copy
   of hard links (no second copy of its GBs; removing a link leaves the paper lake whole).
2. ``update`` into a fresh warehouse: no recorded state, so everything is built (tests
   excluded, as in the updates below) — the full build.
3. Each left-out input committed (the crawl's and the release's manifest rows and parts linked
   back from the paper lake, exactly as the ingest committed them; the batch through
   ``commit_sample``), one at a time, each followed by ``update``: wall seconds, the models
   built, the share of the full build. The working home is deleted at the end.

    .venv/bin/python bench/bench_update.py --home ~/.cache/hostaware/paper-home \\
        --work ~/.cache/hostaware/bench-update [--crawl CC-MAIN-2023-06]

The default crawl is the newest one that no var of dbt_project.yml names or implies (the
sample, full and plan crawls are CC-MAIN-2024-10, the plan's previous crawl CC-MAIN-2023-50);
the release the one that is not ``graph_release``.
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

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project's packages
import update
from demo import paper_lake
from ingest.lake import committed_parts, file_key, manifest_rows, uncommit

TARGET_SHARE = 0.25
CRAWL_TABLES = ("host_index", "page_annotations", "host_annotations")
GRAPH_TABLES = ("host_ranks", "host_vertices", "host_edges")
DEFAULT_RELEASE = "cc-main-2024-25-nov-dec-jan"
BATCH_EVERY = 11  # every 11th page of the sample: a batch of 10% of the rest
FREE_BYTES_NEEDED = 15 * 1024**3


def _link_lake(source: Path, destination: Path) -> None:
    """``destination``: ``source``'s folders, its files hard links to the same bytes."""
    for folder, _, files in os.walk(source):
        relative = Path(folder).relative_to(source)
        (destination / relative).mkdir(parents=True, exist_ok=True)
        for name in files:
            os.link(Path(folder) / name, destination / relative / name)


def _rows_where(lake: Path, tables: tuple[str, ...], key: str, value: str) -> dict:
    return {
        table: [row for row in manifest_rows(lake, table) if row[key] == value] for table in tables
    }


def _link_back(lake: Path, home_lake: Path, rows: dict[str, list[dict]]) -> None:
    """The rows' parts and manifest rows linked from ``lake``: what their ingest committed."""
    for table, table_rows in rows.items():
        for row in table_rows:
            key = row["part_key"] or file_key(row["source_sha256"])
            for relative in [*row["output_files"], f"_manifest/{table}/{key}.parquet"]:
                (home_lake / relative).parent.mkdir(parents=True, exist_ok=True)
                os.link(lake / relative, home_lake / relative)


def _sample_split(lake: Path) -> tuple[dict, dict, int, int]:
    """The committed sample's tables split in two: the base, and every 11th page's batch."""
    parts = committed_parts(lake)
    tables = {
        table: pa.concat_tables(
            pq.read_table(lake / path)
            for path, row in sorted(parts.items())
            if row["lake_table"] == "documents" and path.startswith(f"{table}/")
        )
        for table in paper_lake.TABLES
    }
    documents = tables["documents"]
    in_batch = pa.array(np.arange(documents.num_rows) % BATCH_EVERY == 0)
    batch_ids = documents.filter(in_batch).column("doc_id")
    scores_in_batch = pc.is_in(tables["document_scores"].column("doc_id"), value_set=batch_ids)
    base = {
        "documents": documents.filter(pc.invert(in_batch)),
        "document_scores": tables["document_scores"].filter(pc.invert(scores_in_batch)),
    }
    batch = {
        "documents": documents.filter(in_batch),
        "document_scores": tables["document_scores"].filter(scores_in_batch),
    }
    return base, batch, base["documents"].num_rows, batch["documents"].num_rows


def _commit(home_lake: Path, work: Path, name: str, tables: dict, count: int) -> None:
    """``tables`` committed as the ingest of a stand-in input file ``name``."""
    source = work / name
    source.write_text(f"bench-update://{name}", encoding="ascii")
    # the schemas' column order: the tables were read back from parts written in it
    paper_lake.commit_sample(home_lake, source, {t: (lambda t=t: tables[t]) for t in tables}, count)


def _models_built(target: Path) -> list[str]:
    results = json.loads((target / "run_results.json").read_text())["results"]
    return [r["unique_id"].split(".")[-1] for r in results if r["unique_id"].startswith("model.")]


def _timed_update(
    home: Path, warehouse: Path, work: Path, name: str
) -> tuple[float, list[str], str]:
    os.environ["DBT_TARGET_PATH"] = str(work / f"target-{name}")
    os.environ["DBT_LOG_PATH"] = str(work / f"logs-{name}")
    out = io.StringIO()
    started = time.perf_counter()
    update.update(
        home, warehouse, dbt_args=["--exclude-resource-type", "test", "unit_test"], out=out
    )
    seconds = time.perf_counter() - started
    said = "\n  ".join(line for line in out.getvalue().splitlines() if not line[:1].isdigit())
    return seconds, _models_built(work / f"target-{name}"), said


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="the paper lake's home")
    parser.add_argument("--work", type=Path, required=True, help="the working home and logs")
    parser.add_argument("--crawl", default="CC-MAIN-2023-06", help="the crawl added")
    parser.add_argument("--release", default=DEFAULT_RELEASE, help="the graph release added")
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
    crawl_rows = _rows_where(home / "lake", CRAWL_TABLES, "crawl", args.crawl)
    release_rows = _rows_where(home / "lake", GRAPH_TABLES, "release", args.release)
    if not crawl_rows["host_index"] or not release_rows["host_ranks"]:
        raise SystemExit(f"{lake}: no host index of {args.crawl} or ranks of {args.release}")
    base, batch, base_count, batch_count = _sample_split(home / "lake")
    for table, rows in {**crawl_rows, **release_rows}.items():
        for row in rows:
            uncommit(home / "lake", table, row)
    for row in manifest_rows(home / "lake", "documents"):
        uncommit(home / "lake", "documents", row)
    _commit(home / "lake", work, "sample-base.txt", base, base_count)
    del base
    counts = ", ".join(f"{t} {len(r)}" for t, r in {**crawl_rows, **release_rows}.items() if r)
    print(
        f"lake: {lake}; left out: {args.crawl} and {args.release} (inputs: {counts}), a batch of "
        f"{batch_count:,} of the sample's {base_count + batch_count:,} pages; 2 cores"
    )
    warehouse = home / "warehouse.duckdb"
    try:
        full, models, said = _timed_update(home, warehouse, work, "full")
        print(f"full build (no recorded state): {full:.1f} s, {len(models)} models\n  {said}")
        steps = {
            f"the crawl {args.crawl}": lambda: _link_back(lake, home / "lake", crawl_rows),
            f"a WARC batch of {batch_count:,} pages": lambda: _commit(
                home / "lake", work, "sample-batch.txt", batch, batch_count
            ),
            f"the graph release {args.release}": lambda: _link_back(
                lake, home / "lake", release_rows
            ),
        }
        for index, (what, add) in enumerate(steps.items()):
            add()
            seconds, models, said = _timed_update(home, warehouse, work, f"step-{index}")
            print(f"update after adding {what}: {seconds:.1f} s, {len(models)} models\n  {said}")
            print(f"  = {seconds / full:.0%} of the full build")
            if index == 0:
                verdict = "met" if seconds / full <= TARGET_SHARE else "missed"
                print(f"  (target <= {TARGET_SHARE:.0%}: {verdict})")
            if index == 1:
                print(f"  RQ4's host-index models built: {'fct_host_crawls' in models}")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
