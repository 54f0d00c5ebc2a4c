"""``update``: what changed in the lake since the recorded build, and only that built.

The state diff on hand-made parts (a new part, a part gone, a part recommitted under the same
name), the selection on a hand-made graph (a model scoped to some partitions stops a change
of another, a per-crawl model recomputes only the changed crawls and all of them for any
other change, ``<crawl`` follows the latest crawl before it), the project fingerprint (it
follows code, configs, column types, macros and vars, not descriptions or tests), every lake
table read by some source; then the tiny crawl's lake, grown one kind of input at a time:
built with a crawl's host index and annotations, a WARC file and a graph release left out;
each added back and updated; a crawl moved to another name with the ingest's ``--replace``; a
crawl removed under an update interrupted by SIGINT, and one killed by SIGKILL, each run
again. After each step every table and view of the warehouse equals a full build of the same
lake, row for row (numbers to 1e-9 relative: the engine sums in its own order). Other vars
make the update build everything; a warehouse held by another process is refused with the
state left as it was.
"""

from __future__ import annotations

import io
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

import update
from hostaware import dbt
from ingest.lake import file_key, manifest_rows, uncommit
from tests.fixtures.warehouse import tiny_warehouse_or_skip

NO_TESTS = ["--exclude-resource-type", "test", "unit_test"]
ADDED_CRAWL = "CC-MAIN-2021-04"  # no var names it: only the per-crawl models see it
REMOVED_CRAWL = "CC-MAIN-2021-49"
MOVED_CRAWL = ("CC-MAIN-2022-33", "CC-MAIN-2020-50")  # ingested again under another name
ADDED_RELEASE = "cc-main-2024-25-nov-dec-jan"  # not the graph_release var's
CRAWL_TABLES = ("host_index", "page_annotations", "host_annotations")
GRAPH_TABLES = ("host_ranks", "host_vertices", "host_edges")
PER_CRAWL = {
    "int_host_crawl_annotations",
    "fct_host_crawls",
    "rpt_coverage_quality_correlation",
    "rpt_hidden_gems",
    "rpt_missed_hq_by_tld",
    "rpt_uncrawled_hq_by_coverage_band",
    "rpt_uncrawled_hq_summary",
}


def _part(path: str, table: str, sha: str = "a", finished: str = "t1") -> update.Part:
    partition = path.split("/")[1].split("=", 1)[1] if "=" in path else ""
    return (path, table, sha, finished, partition)


def test_changes_are_parts_added_removed_or_recommitted():
    kept = _part("host_index/crawl=C1/part-k1.parquet", "host_index")
    gone = _part("host_ranks/release=R1/part-k2.parquet", "host_ranks")
    replaced = _part("host_index/crawl=C2/part-k3.parquet", "host_index")
    again = _part("host_index/crawl=C2/part-k3.parquet", "host_index", "b", "t2")
    scores = _part("document_scores/crawl=C1/part-k4.parquet", "documents")
    found = update.changes({kept, gone, replaced}, {kept, again, scores})
    assert found.added == {again, scores}
    assert found.removed == {gone, replaced}
    assert found.folders == {
        "host_index",
        "host_ranks",
        "document_scores",
        "_manifest/host_index",
        "_manifest/host_ranks",
        "_manifest/documents",
    }
    assert found.tags(["host_index"]) == {("host_index", "C2")}
    assert found.tags(["_manifest/documents"]) == {("documents", "C1")}
    assert update.changes({kept}, {kept}).folders == set()
    assert found.summary() == [
        "document_scores C1: 1 part(s) new or recommitted, 0 gone or replaced",
        "host_index C2: 1 part(s) new or recommitted, 1 gone or replaced",
        "host_ranks R1: 0 part(s) new or recommitted, 1 gone or replaced",
    ]


def _graph() -> dict[str, update.Node]:
    """A small project: two crawl-partitioned tables, documents, ranks, and their readers."""
    nodes = [
        update.Node("source.p.host_index.host_index", lake_folders=("host_index",)),
        update.Node("source.p.annotations.pages", lake_folders=("page_annotations",)),
        update.Node("source.p.crawl.documents", lake_folders=("documents",)),
        update.Node("source.p.webgraph.ranks", lake_folders=("host_ranks",)),
        update.Node(
            "model.p.stg_hosts", ("source.p.host_index.host_index",), partitioned_by=("host_index",)
        ),
        update.Node(
            "model.p.stg_pages",
            ("source.p.annotations.pages",),
            partitioned_by=("page_annotations",),
        ),
        update.Node("model.p.stg_docs", ("source.p.crawl.documents",)),
        update.Node("model.p.stg_ranks", ("source.p.webgraph.ranks",)),
        update.Node("model.p.suffixes", ("model.p.stg_hosts", "model.p.stg_docs")),
        update.Node(
            "model.p.profiles",
            ("model.p.stg_hosts", "model.p.stg_docs", "model.p.stg_ranks", "model.p.suffixes"),
            lake_partitions={"host_index": ("S",), "host_ranks": ("R1",)},
        ),
        update.Node("model.p.icc", ("model.p.profiles", "seed.p.registry")),
        update.Node(
            "model.p.plan",
            ("model.p.profiles", "model.p.stg_hosts"),
            lake_partitions={"host_index": ("S", "<S")},
        ),
        update.Node(
            "model.p.fct",
            ("model.p.stg_hosts", "model.p.stg_pages"),
            partitioned_by=("host_index", "page_annotations"),
            incremental=True,
        ),
        update.Node(
            "model.p.corr",
            ("model.p.fct", "model.p.profiles"),
            partitioned_by=("host_index", "page_annotations"),
            incremental=True,
        ),
    ]
    return {node.unique_id: node for node in nodes}


def _changed(*parts: update.Part) -> update.Changes:
    return update.changes(set(), set(parts))


def test_a_new_crawl_no_var_names_reaches_only_the_per_crawl_models_and_its_readers():
    hosts = _part("host_index/crawl=A/part-1.parquet", "host_index")
    pages = _part("page_annotations/crawl=A/part-2.parquet", "page_annotations")
    # B is the latest crawl before S, before and after A comes: <S stays B
    others = {_part(f"host_index/crawl={c}/part-{c}.parquet", "host_index") for c in "BT"}
    plan = update.plan_build(_changed(hosts, pages), _graph(), others, others | {hosts, pages})
    assert plan.models == ["corr", "fct", "stg_hosts", "stg_pages", "suffixes"]
    assert plan.partitions == {"corr": ["A"], "fct": ["A"]}


def test_the_crawl_before_the_plan_crawl_reaches_the_plan_when_it_becomes_the_latest():
    earlier = {_part("host_index/crawl=A/part-1.parquet", "host_index")}
    newer = _part("host_index/crawl=B/part-2.parquet", "host_index")
    plan = update.plan_build(_changed(newer), _graph(), earlier, earlier | {newer})
    assert "plan" in plan.models and "profiles" not in plan.models
    # a crawl older than the latest one before S changes nothing the plan reads
    older = _part("host_index/crawl=0/part-3.parquet", "host_index")
    plan = update.plan_build(_changed(older), _graph(), earlier, earlier | {older})
    assert "plan" not in plan.models and plan.partitions == {"corr": ["0"], "fct": ["0"]}


def test_any_other_change_rebuilds_a_per_crawl_model_whole():
    docs = _part("documents/crawl=S/part-1.parquet", "documents")
    plan = update.plan_build(_changed(docs), _graph(), set(), {docs})
    assert {"profiles", "icc", "plan", "corr", "suffixes"} <= set(plan.models)
    assert "fct" not in plan.models and plan.partitions == {}  # corr whole
    ranks = _part("host_ranks/release=R2/part-1.parquet", "host_ranks")
    plan = update.plan_build(_changed(ranks), _graph(), set(), {ranks})
    assert plan.models == ["stg_ranks"]  # no model reads release R2
    sample = _part("host_index/crawl=S/part-1.parquet", "host_index")
    plan = update.plan_build(_changed(sample), _graph(), set(), {sample})
    assert {"profiles", "icc", "plan"} <= set(plan.models)
    assert "corr" in plan.models and "corr" not in plan.partitions  # S's profiles reach it


def _manifest() -> dict:
    return {
        "metadata": {"project_name": "p", "dbt_version": "1.11.16", "adapter_type": "duckdb"},
        "nodes": {
            "model.p.m": {
                "resource_type": "model",
                "checksum": {"checksum": "c1"},
                "config": {"materialized": "table"},
                "depends_on": {"nodes": [], "macros": ["macro.p.x"]},
                "columns": {"a": {"data_type": "integer", "description": "A."}},
                "description": "The model.",
                "created_at": 1.0,
            },
            "test.p.t": {"resource_type": "test", "checksum": {"checksum": "t1"}},
        },
        "sources": {"source.p.s.t": {"config": {}, "meta": {"f": 1}, "columns": {}}},
        "macros": {
            "macro.p.x": {"package_name": "p", "macro_sql": "{% macro x() %}1{% endmacro %}"},
            "macro.dbt.y": {"package_name": "dbt", "macro_sql": "y"},
        },
    }


def test_the_project_fingerprint_follows_what_changes_rows_and_nothing_else():
    def fingerprint(change=None, user_vars=None, project=b"vars: {}"):
        manifest = _manifest()
        if change:
            change(manifest)
        return update.project_fingerprint(manifest, user_vars or {}, project)

    base = fingerprint()
    assert base == fingerprint()
    unchanged = [
        lambda m: m["nodes"]["model.p.m"].update(description="Reworded.", created_at=2.0),
        lambda m: m["nodes"]["model.p.m"]["columns"]["a"].update(description="B."),
        lambda m: m["nodes"]["test.p.t"].update(checksum={"checksum": "t2"}),
        lambda m: m["macros"]["macro.dbt.y"].update(macro_sql="z"),
    ]
    assert all(fingerprint(change) == base for change in unchanged)
    changed = [
        lambda m: m["nodes"]["model.p.m"].update(checksum={"checksum": "c2"}),
        lambda m: m["nodes"]["model.p.m"]["config"].update(materialized="incremental"),
        lambda m: m["nodes"]["model.p.m"]["columns"]["a"].update(data_type="bigint"),
        lambda m: m["sources"]["source.p.s.t"]["meta"].update(f=2),
        lambda m: m["macros"]["macro.p.x"].update(macro_sql="{% macro x() %}2{% endmacro %}"),
        lambda m: m["metadata"].update(dbt_version="1.11.17"),
    ]
    assert all(fingerprint(change) != base for change in changed)
    assert fingerprint(user_vars={"sample_crawl": "CC-MAIN-2023-50"}) != base
    assert fingerprint(project=b"vars: {min_docs_per_host: 5}") != base


@pytest.mark.warehouse
def test_every_lake_folder_is_read_by_a_source(tmp_path):
    home = tiny_warehouse_or_skip().parent
    nodes, _ = update._graph(home, tmp_path / "w.duckdb", tmp_path)
    folders = {folder for node in nodes.values() for folder in node.lake_folders}
    lake = home / "lake"
    tables = {child.name for child in lake.iterdir() if not child.name.startswith("_")}
    manifests = {f"_manifest/{child.name}" for child in (lake / "_manifest").iterdir()}
    assert tables | manifests <= folders, (tables | manifests) - folders
    # and the per-crawl models are the ones this file names
    assert {node.name for node in nodes.values() if node.incremental} == PER_CRAWL


def _order_key(row: tuple) -> str:
    """A row's place in a canonical order: floats to 6 decimals (sums differ in the last bits)."""
    return repr(tuple(round(v, 6) if isinstance(v, float) and math.isfinite(v) else v for v in row))


def _same(left, right) -> bool:
    if isinstance(left, float) and isinstance(right, float):
        return (math.isnan(left) and math.isnan(right)) or math.isclose(
            left, right, rel_tol=1e-9, abs_tol=1e-12
        )
    return left == right


def _warehouse_rows(warehouse: Path) -> dict[str, list[tuple]]:
    """Every table and view but the update's two state tables, rows in ``_order_key`` order."""
    relations = {}
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        names = connection.sql(
            "select table_name from information_schema.tables "
            "where table_schema = 'main' and table_name not in "
            f"('{update.STATE_TABLE}', '{update.PROJECT_TABLE}')"
        ).fetchall()
        for (name,) in names:
            rows = connection.sql(f'select * from "{name}"').fetchall()
            relations[name] = sorted(rows, key=_order_key)
    return relations


def _differing_rows(left: list[tuple], right: list[tuple]) -> list[tuple[tuple, tuple]]:
    """Pairs of rows in the same place that differ (numbers to 1e-9 relative)."""
    if len(left) != len(right):
        return [(("rows", len(left)), ("rows", len(right)))]
    return [
        (a, b)
        for a, b in zip(left, right, strict=True)
        if len(a) != len(b) or not all(_same(x, y) for x, y in zip(a, b, strict=True))
    ]


class _Home:
    """A copy of the tiny crawl's lake, changed a step at a time and updated."""

    def __init__(self, tiny: Path, root: Path) -> None:
        self.tiny = tiny / "lake"
        self.home = root / "home"
        self.lake = self.home / "lake"
        shutil.copytree(self.tiny, self.lake)
        shutil.copytree(tiny / "raw" / "host-index", self.home / "raw" / "host-index")
        self.warehouse = self.home / "warehouse.duckdb"
        self.env = {
            "DBT_TARGET_PATH": str(self.home / "target"),
            "DBT_LOG_PATH": str(self.home / "logs"),
        }
        self.full = 0

    def rows(self, table: str, **where) -> list[dict]:
        return [
            row
            for row in manifest_rows(self.lake, table)
            if all(row[key] == value for key, value in where.items())
        ]

    def leave_out(self, table: str, **where) -> list[dict]:
        rows = self.rows(table, **where)
        assert rows, (table, where)
        for row in rows:
            uncommit(self.lake, table, row)
        return rows

    def put_back(self, table: str, rows: list[dict]) -> None:
        """The rows' parts, then their manifest rows, from the tiny lake: a commit's result."""
        for row in rows:
            key = row["part_key"] or file_key(row["source_sha256"])
            for relative in [*row["output_files"], f"_manifest/{table}/{key}.parquet"]:
                (self.lake / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(self.tiny / relative, self.lake / relative)

    def update(self, dbt_args: tuple[str, ...] = (), **kwargs) -> tuple[update.Plan | None, str]:
        out = io.StringIO()
        with pytest.MonkeyPatch.context() as patch:
            for name, value in self.env.items():
                patch.setenv(name, value)
            args = [*NO_TESTS, *dbt_args]
            plan = update.update(self.home, self.warehouse, dbt_args=args, out=out, **kwargs)
        return plan, out.getvalue()

    def command(self) -> list[str]:
        return [sys.executable, "-m", "update", "--", *NO_TESTS]

    def process_env(self) -> dict[str, str]:
        return {
            **os.environ,
            **self.env,
            "HOSTAWARE_HOME": str(self.home),
            "WAREHOUSE_PATH": str(self.warehouse),
        }

    def assert_equals_a_full_build(self) -> None:
        """Every relation of the warehouse against a fresh full build of the same lake."""
        self.full += 1
        full = self.home / f"full-{self.full}.duckdb"
        env = {
            "DBT_TARGET_PATH": str(self.home / "target-full"),
            "DBT_LOG_PATH": str(self.home / "logs-full"),
            "HOSTAWARE_EXPORTS": str(self.home / f"exports-full-{self.full}"),
        }
        dbt.run(["build", "--target", "dev", *NO_TESTS], home=self.home, warehouse=full, env=env)
        updated, rebuilt = _warehouse_rows(self.warehouse), _warehouse_rows(full)
        assert sorted(updated) == sorted(rebuilt)
        for name in rebuilt:
            differing = _differing_rows(updated[name], rebuilt[name])
            assert not differing, (name, differing[:3])
        full.unlink()


def _built(home: _Home) -> set[str]:
    results = json.loads((home.home / "target" / "run_results.json").read_text())["results"]
    return {r["unique_id"].split(".")[-1] for r in results if r["unique_id"].startswith("model.")}


def _interrupted(home: _Home, how: signal.Signals, at_model: str) -> int:
    """``python -m update`` stopped by ``how`` once dbt starts ``at_model``; its exit code."""
    log = home.home / "logs" / "dbt.log"
    log.unlink(missing_ok=True)
    process = subprocess.Popen(
        home.command(),
        env=home.process_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 600
    while process.poll() is None and time.monotonic() < deadline:
        if log.is_file() and f"START sql incremental model main.{at_model}" in log.read_text():
            process.send_signal(how)
            break
        time.sleep(0.02)
    code = process.wait(timeout=120)
    # dbt, killed with its caller (hostaware.dbt: the kernel's parent-death signal), may hold
    # the warehouse's lock a moment longer: wait for the lock, as a person rerunning would
    deadline = time.monotonic() + 60
    while True:
        try:
            duckdb.connect(str(home.warehouse), read_only=True).close()
            return code
        except duckdb.IOException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.mark.warehouse
def test_an_update_after_each_change_equals_a_full_build(tmp_path):
    home = _Home(tiny_warehouse_or_skip().parent, tmp_path)
    crawl_rows = {table: home.leave_out(table, crawl=ADDED_CRAWL) for table in CRAWL_TABLES}
    graph_rows = {table: home.leave_out(table, release=ADDED_RELEASE) for table in GRAPH_TABLES}
    documents = home.rows("documents")
    assert len(documents) > 1
    batch = home.leave_out("documents", source_sha256=documents[-1]["source_sha256"])

    plan, said = home.update()
    assert plan.models == [] and "building everything" in said, said
    assert update.recorded_state(home.warehouse) == update.lake_state(home.lake)
    plan, said = home.update()
    assert plan is None and "nothing new" in said, said

    # a crawl no var names: its host index and annotations
    for table, rows in crawl_rows.items():
        home.put_back(table, rows)
    plan, said = home.update()
    assert f"host_index {ADDED_CRAWL}: 1 part(s) new" in said, said
    assert plan.partitions == {name: [ADDED_CRAWL] for name in PER_CRAWL}, plan
    built = _built(home)
    assert built >= PER_CRAWL
    assert not built & {
        "int_hosts_profiled",
        "int_plan_hosts",
        "int_dataset_hosts",
        "rpt_host_quality_icc",
    }
    home.assert_equals_a_full_build()

    # a graph release no var names: nothing but its staging and the rank-stability report
    for table, rows in graph_rows.items():
        home.put_back(table, rows)
    plan, said = home.update()
    assert "rpt_graph_rank_stability" in plan.models and "int_hosts_profiled" not in plan.models
    assert not set(plan.models) & PER_CRAWL
    home.assert_equals_a_full_build()

    # a WARC batch: what the documents reach, the per-crawl models it reaches whole
    home.put_back("documents", batch)
    plan, said = home.update()
    assert {"int_hosts_profiled", "rpt_host_quality_icc", "int_plan_hosts"} <= set(plan.models)
    assert "fct_host_crawls" not in plan.models
    assert "rpt_coverage_quality_correlation" in plan.models and plan.partitions == {}
    home.assert_equals_a_full_build()

    # a crawl's host index moved to another crawl name with --replace
    old, new = MOVED_CRAWL
    moved = home.home / "raw" / "moved"
    shutil.copytree(home.home / "raw" / "host-index" / f"crawl={old}", moved)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ingest",
            "host-index",
            "--replace",
            "--crawl",
            new,
            "--path",
            str(moved),
        ],
        check=True,
        capture_output=True,
        env=home.process_env(),
    )
    assert not home.rows("host_index", crawl=old) and home.rows("host_index", crawl=new)
    plan, said = home.update()
    assert plan.partitions["fct_host_crawls"] == sorted(MOVED_CRAWL), plan
    home.assert_equals_a_full_build()

    # a crawl removed, its update interrupted half-way (SIGINT, then SIGKILL) and run again
    for table in CRAWL_TABLES:
        home.leave_out(table, crawl=REMOVED_CRAWL)
    recorded = update.recorded_state(home.warehouse)
    assert _interrupted(home, signal.SIGINT, "fct_host_crawls") != 0
    assert update.recorded_state(home.warehouse) == recorded
    assert _interrupted(home, signal.SIGKILL, "rpt_hidden_gems") == -signal.SIGKILL
    assert update.recorded_state(home.warehouse) == recorded
    plan, said = home.update()
    assert plan.partitions["fct_host_crawls"] == [REMOVED_CRAWL], plan
    with duckdb.connect(str(home.warehouse), read_only=True) as connection:
        crawls = {
            c for (c,) in connection.sql("select distinct crawl from fct_host_crawls").fetchall()
        }
    assert REMOVED_CRAWL not in crawls and MOVED_CRAWL[1] in crawls
    home.assert_equals_a_full_build()

    # other vars (or models, seeds, macros) than the last update's: everything, tables replaced
    plan, said = home.update(dry_run=True, dbt_args=("--vars", "{rq4_min_annotated_pages: 3}"))
    assert plan.models == [] and "the project (models, macros, seeds or vars) differs" in said
    plan, said = home.update(dry_run=True)
    assert plan is None and "nothing new" in said, said

    # --full-refresh builds everything again, and equals it too
    plan, said = home.update(full_refresh=True)
    assert plan.models == [] and "--full-refresh" in said
    home.assert_equals_a_full_build()

    # an update while another process holds the warehouse (a build, an update) is refused
    with duckdb.connect(str(home.warehouse)):
        held = subprocess.run(
            home.command(), env=home.process_env(), capture_output=True, text=True, check=False
        )
    assert held.returncode == 1 and "is held by another process" in held.stderr, held.stderr
    assert update.recorded_state(home.warehouse) == update.lake_state(home.lake)


def test_a_home_without_a_lake_is_refused_before_anything_is_built(tmp_path):
    with pytest.raises(FileNotFoundError, match="no lake at"):
        update.update(tmp_path, tmp_path / "warehouse.duckdb", dry_run=True)
    assert not (tmp_path / "warehouse.duckdb").exists()
