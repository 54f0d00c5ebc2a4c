"""``update``: what changed in the lake since the recorded build, and only that built.

The state diff on hand-made parts (a new part, a part gone, a part recommitted under the same
name), the sources that read each lake folder (every lake table of the tiny crawl is read by
some source, and a host-index change selects the host index's two sources only), then the
tiny crawl's lake with one host-index crawl left out: an update builds everything, a second
finds nothing new, the missing crawl ingested and an update rebuilds the host index's
descendants (today most models: the host profiles read the sample crawl's host-index counts)
and none of the models that read only documents and scores, and its host-level marts equal
those of a full build of the same lake.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import update
from hostaware import dbt
from ingest.lake import manifest_rows, uncommit
from tests.fixtures.warehouse import tiny_warehouse_or_skip

LEFT_OUT = "CC-MAIN-2021-04"
NO_TESTS = ["--exclude-resource-type", "test", "unit_test"]


def _part(path: str, table: str, sha: str = "a", finished: str = "t1") -> update.Part:
    return (path, table, sha, finished)


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
    assert update.changes({kept}, {kept}).folders == set()


def test_sources_reading_picks_every_source_of_a_changed_folder():
    sources = {
        "source.hostaware.host_index.host_index": ["host_index"],
        "source.hostaware.host_index.host_index_manifest": ["_manifest/host_index"],
        "source.hostaware.crawl.documents": ["documents"],
    }
    assert update.sources_reading({"_manifest/host_index", "host_index"}, sources) == [
        "source:host_index.host_index",
        "source:host_index.host_index_manifest",
    ]
    assert update.sources_reading({"host_ranks"}, sources) == []


@pytest.mark.warehouse
def test_every_lake_folder_is_read_by_a_source(tmp_path):
    home = tiny_warehouse_or_skip().parent
    read = update._source_folders(home, tmp_path / "w.duckdb", tmp_path)
    folders = {folder for listed in read.values() for folder in listed}
    lake = home / "lake"
    tables = {child.name for child in lake.iterdir() if not child.name.startswith("_")}
    manifests = {f"_manifest/{child.name}" for child in (lake / "_manifest").iterdir()}
    assert tables | manifests <= folders, (tables | manifests) - folders


def _built_models(warehouse: Path) -> set[str]:
    target = warehouse.parent / "target"
    results = json.loads((target / "run_results.json").read_text())["results"]
    return {r["unique_id"].split(".")[-1] for r in results if r["unique_id"].startswith("model.")}


def _host_marts(warehouse: Path) -> dict[str, list[tuple]]:
    """The host-index marts, ordered, numbers rounded to 9 significant digits."""
    marts = {}
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        for table, order in (
            ("fct_host_crawls", "crawl, surt_host_name"),
            ("rpt_uncrawled_hq_summary", "crawl"),
            ("rpt_coverage_quality_correlation", "crawl, signal, min_annotated_pages"),
        ):
            rows = connection.sql(f"select * from {table} order by {order}").fetchall()
            marts[table] = [
                tuple(float(f"{v:.9g}") if isinstance(v, float) else v for v in row) for row in rows
            ]
    return marts


@pytest.mark.warehouse
def test_an_update_builds_only_what_a_new_crawl_changes_and_equals_a_full_build(tmp_path):
    tiny = tiny_warehouse_or_skip().parent
    home = tmp_path / "home"
    shutil.copytree(tiny / "lake", home / "lake")
    shutil.copytree(tiny / "raw" / "host-index", home / "raw" / "host-index")
    (row,) = [r for r in manifest_rows(home / "lake", "host_index") if r["crawl"] == LEFT_OUT]
    uncommit(home / "lake", "host_index", row)
    warehouse = home / "warehouse.duckdb"

    env = {"DBT_TARGET_PATH": str(home / "target"), "DBT_LOG_PATH": str(home / "logs")}

    def run_update(**kwargs) -> tuple[list[str] | None, str]:
        out = io.StringIO()
        with pytest.MonkeyPatch.context() as patch:
            for name, value in env.items():
                patch.setenv(name, value)
            built = update.update(home, warehouse, dbt_args=NO_TESTS, out=out, **kwargs)
        return built, out.getvalue()

    built, said = run_update()
    assert built == [] and "building everything" in said, said
    assert update.recorded_state(warehouse) == update.lake_state(home / "lake")
    everything = _built_models(warehouse)
    assert {"fct_host_crawls", "stg_crawl__documents", "int_host_samples"} <= everything

    built, said = run_update()
    assert built is None and "nothing new" in said, said

    subprocess.run(
        [sys.executable, "-m", "ingest", "host-index", "--path", str(home / "raw" / "host-index")],
        check=True,
        capture_output=True,
        env={**os.environ, "HOSTAWARE_HOME": str(home)},
    )
    assert run_update(dry_run=True)[0] == [
        "source:host_index.host_index",
        "source:host_index.host_index_manifest",
    ]
    built, said = run_update()
    assert "host_index: 1 part(s) new" in said, said
    rebuilt = _built_models(warehouse)
    assert "fct_host_crawls" in rebuilt and "stg_host_index__host_crawls" in rebuilt
    # the documents' and scores' own models, and what reads only them, are not rebuilt (the
    # host index feeds the host profiles, and through them most analyses, so most are)
    untouched = {"stg_crawl__documents", "int_host_classifier_stats", "rpt_host_quality_icc"}
    assert not rebuilt & untouched
    assert rebuilt < everything
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        crawls = connection.sql("select distinct crawl from fct_host_crawls").fetchall()
    assert (LEFT_OUT,) in crawls

    full = home / "full.duckdb"
    env["DBT_TARGET_PATH"] = str(home / "target-full")
    dbt.run(["build", "--target", "dev", *NO_TESTS], home=home, warehouse=full, env=env)
    assert _host_marts(warehouse) == _host_marts(full)


def test_a_home_without_a_lake_is_refused_before_anything_is_built(tmp_path):
    with pytest.raises(FileNotFoundError, match="no lake at"):
        update.update(tmp_path, tmp_path / "warehouse.duckdb", dry_run=True)
    assert not (tmp_path / "warehouse.duckdb").exists()
