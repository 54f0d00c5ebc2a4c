"""The dbt sources over a lake whose path is hostile, and a lake the manifest no longer matches.

One build of the adversarial lake (``tests/fixtures/warehouse/``) under a ``HOSTAWARE_HOME``
named ``it's [1] {x}``: a ``'`` would end the SQL string literal of every source's
external_location, ``[1]`` would be read by DuckDB's glob as a pattern (matching the folder
``it's 1 {x}`` beside it, which holds a decoy lake here), and ``{x}`` would break dbt-duckdb's
format_map of the location; ``crawl=`` and ``release=`` folders above it must not
override the lake's own partition values (hive partitioning reads the whole path). The lake
also holds a leftover part of a committed WARC file under
another ``crawl=`` folder, with the committed part's key: a crash under a mistyped crawl, then
the rerun under the right one (issue 17 #4). Staging must read exactly the committed rows.

Then a committed part is deleted behind the manifest's back (#5): ``dbt test`` of the
manifests' ``committed_parts_are_present`` tests must fail, naming the missing file, where the
intact lake passed them.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from hostaware import dbt
from ingest.lake import file_key, manifest_rows, sha256_of
from tests.fixtures import warehouse as warehouse_fixture

HOSTILE_NAME = "it's [1] {x}"
DECOY_NAME = "it's 1 {x}"  # what the glob `it's [1] {x}` matches when read as a pattern
MISTYPED_CRAWL = "CC-MAIN-2024-1O"
STAGING = (
    "stg_crawl__documents",
    "stg_crawl__document_scores",
    "stg_host_index__host_crawls",
    "stg_webgraph__host_ranks",
    "stg_annotations__pages",
    "stg_annotations__hosts",
)


@dataclass
class HostileBuild:
    """The build under the hostile home, and what its lake holds."""

    home: Path
    raw: Path  # the inputs' folder
    lake: warehouse_fixture.AdversarialLake
    build: warehouse_fixture.Build
    phantom: Path

    def table(self, relation: str) -> pd.DataFrame:
        with duckdb.connect(str(self.build.warehouse), read_only=True) as connection:
            return connection.sql(f"select * from {relation}").df()


def _decoy_lake(home: Path) -> None:
    """A lake of one committed documents file of its own, where a glob `[1]` would look."""
    lake = warehouse_fixture.adversarial_lake(seed=7)
    decoys = [
        lake_file
        for lake_file in lake.files
        if isinstance(lake_file, warehouse_fixture.LakeFile)
        and lake_file.manifest_table in ("documents", "host_ranks")
        and lake_file.committed
    ]
    warehouse_fixture.write_lake(home, decoys)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> HostileBuild:
    # partition-like folders above the lake, which hive partitioning of the whole path reads
    base = tmp_path_factory.mktemp("hostile-paths")
    root = base / "crawl=CC-MAIN-1999-99" / "release=r0"
    home = root / HOSTILE_NAME
    _decoy_lake(root / DECOY_NAME)
    lake = warehouse_fixture.adversarial_lake()
    # The inputs live apart: under a crawl= folder the ingest would read their crawl from it
    # (and refuse the annotation rows naming another); what is tested here is the lake's path.
    warehouse_fixture.write_lake(home, lake.files, raw=base / "raw")
    # A leftover of a crashed run under a mistyped crawl: the committed file's own part, with
    # its key, under another crawl folder (no manifest row lists it).
    committed = next(
        row
        for row in manifest_rows(home / "lake", "documents")
        if row["crawl"] == warehouse_fixture.SAMPLE_CRAWL
    )
    part = home / "lake" / committed["output_files"][0]
    phantom = home / "lake" / "documents" / f"crawl={MISTYPED_CRAWL}" / part.name
    phantom.parent.mkdir(parents=True)
    shutil.copyfile(part, phantom)
    build = warehouse_fixture.build_warehouse(home, STAGING, indirect_selection="buildable")
    return HostileBuild(home, base / "raw", lake, build, phantom)


def test_every_source_reads_a_lake_whose_path_has_quotes_brackets_and_braces(hostile):
    assert not hostile.build.failed_tests, hostile.build.failed_tests
    documents = hostile.table("stg_crawl__documents")
    # exactly the committed rows: none of the decoy lake's, none of the phantom crawl's
    assert sorted(documents["doc_id"]) == sorted(hostile.lake.documents["doc_id"])
    assert set(documents["crawl"]) == {warehouse_fixture.SAMPLE_CRAWL}
    scores = hostile.table("stg_crawl__document_scores")
    assert len(scores) == len(hostile.lake.document_scores)
    ranks = hostile.table("stg_webgraph__host_ranks")
    expected = hostile.lake.host_ranks[["release", "surt_host_name"]]
    assert "r0" not in set(ranks["release"])
    assert sorted(map(tuple, ranks[["release", "surt_host_name"]].to_numpy())) == sorted(
        map(tuple, expected.to_numpy())
    )
    crawls = hostile.table("stg_host_index__host_crawls")
    assert len(crawls) == len(hostile.lake.host_index)
    hosts = hostile.table("stg_annotations__hosts")
    assert len(hosts) == len(hostile.lake.host_annotations)


def test_a_leftover_part_under_another_crawl_is_no_phantom_crawl(hostile):
    documents = hostile.table("stg_crawl__documents")
    assert MISTYPED_CRAWL not in set(documents["crawl"])
    phantom_rows = pd.read_parquet(hostile.phantom)
    assert len(phantom_rows) > 0
    # each of the part's rows counts once, under its committed crawl only
    counted = documents[documents["doc_id"].isin(phantom_rows["doc_id"])]
    assert len(counted) == len(phantom_rows)
    assert set(counted["crawl"]) == {warehouse_fixture.SAMPLE_CRAWL}


def test_a_committed_part_deleted_behind_the_manifest_fails_the_build_naming_it(hostile):
    ranks_file = f"{warehouse_fixture.GRAPH_RELEASE}-host-ranks.txt.gz"
    key = file_key(sha256_of(hostile.raw / ranks_file))
    (row,) = [
        row for row in manifest_rows(hostile.home / "lake", "host_ranks") if row["part_key"] == key
    ]
    (missing,) = row["output_files"]
    (hostile.home / "lake" / missing).unlink()
    target = hostile.home / "target-deleted"
    args = ["test", "--target", "dev", "--target-path", str(target)]
    args += ["--select", "test_name:committed_parts_are_present"]
    result = dbt.run(
        args,
        home=hostile.home,
        warehouse=hostile.build.warehouse,
        env={"DBT_LOG_PATH": str(hostile.home / "logs-deleted")},
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    failed = [line for line in output.splitlines() if " FAIL " in line]
    assert len(failed) == 1, output
    assert "graph_manifest" in failed[0] and "host_ranks" in failed[0], failed
    assert f"{missing} (host_ranks, committed by {row['source_file']}" in output
    assert f"{row['records_written']} rows) is missing from the lake" in output
    passed = [line for line in output.splitlines() if " PASS " in line]
    assert len(passed) == 7, output  # the manifests' seven other tables
