"""`ingest.host_index`: Common Crawl's host-index Parquet -> lake `host_index`, schema drift,
rejects, idempotency and a crash between publishing parts and committing the manifest.

The values themselves (the real fixture, bad values) are tested in `test_host_index_values.py`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from demo.config import CRAWLS, DRIFTED_CRAWL
from ingest import schemas
from ingest.host_index import ingest_host_index
from ingest.hosts import registry_suffix
from ingest.lake import LakeError, manifest_rows
from tests.fixtures.crawls import Crawl
from tests.ingest.host_index_files import (
    CRAWL,
    NUTCH,
    _committed,
    _contradictory,
    _expected,
    _file,
    _inputs,
    _row,
    _snapshot,
    _source_name,
)


def test_tiny_crawl_host_index_lands_value_for_value(tiny_crawl: Crawl, tmp_path: Path):
    lake = tmp_path / "lake"
    inputs = _inputs(tiny_crawl)
    rows = ingest_host_index(inputs, lake, batch_rows=128)  # several batches per file
    assert sorted(row["crawl"] for row in rows) == sorted(CRAWLS)
    for path, row in zip(inputs, rows, strict=True):
        source = pq.read_table(path)
        crawl = path.parent.name.removeprefix("crawl=")
        assert row["crawl"] == crawl
        assert row["records_read"] == row["records_written"] == source.num_rows > 0
        assert row["records_rejected"] == 0 and row["rejected_by_reason"] == []
        assert row["output_files"] == [f"host_index/crawl={crawl}/part-{row['part_key']}.parquet"]
        landed = pq.read_table(lake / row["output_files"][0])
        assert landed.schema == schemas.HOST_INDEX
        registered = source.column("url_host_registered_domain").to_pylist()
        assert landed.column("url_host_registry_suffix").to_pylist() == [
            registry_suffix(domain) for domain in registered
        ]
        for column in schemas.HOST_INDEX.names:
            name = _source_name(column)
            if column == "url_host_registry_suffix":
                continue  # derived, above
            if name in source.column_names:
                assert landed.column(column).to_pylist() == _expected(source, name), column
            else:
                assert landed.column(column).null_count == landed.num_rows, column
        if crawl != DRIFTED_CRAWL:
            assert row["schema_drift"] == []
        quirks = sum(_contradictory(source))  # the synthetic crawl plants a few
        assert dict(row["nulled_by_reason"]) == (
            {"nutch_fetched_above_num_records": quirks} if quirks else {}
        )
    committed = _committed(lake)
    assert len(committed) == sum(pq.read_metadata(path).num_rows for path in inputs)
    assert {(row["crawl"], row["surt_host_name"]) for row in committed} == {
        (path.parent.name.removeprefix("crawl="), host)
        for path in inputs
        for host in pq.read_table(path).column("surt_host_name").to_pylist()
    }


def test_drifted_partition_is_read_by_name_and_reported(tiny_crawl: Crawl, tmp_path: Path):
    (path,) = (tiny_crawl.root / "host-index" / f"crawl={DRIFTED_CRAWL}").glob("*.parquet")
    source = pq.read_table(path)
    assert "fetch_200_lote_pct" not in source.column_names
    assert source.schema.field("nutch_numRecords").type == pa.int64()
    lake = tmp_path / "lake"
    (row,) = ingest_host_index([path], lake)
    landed = pq.read_table(lake / row["output_files"][0])
    assert landed.column("fetch_200_lote_pct").null_count == landed.num_rows == source.num_rows
    for column in NUTCH:
        assert landed.column(column).to_pylist() == _expected(source, _source_name(column))
    assert landed.column("hcrank").to_pylist() == source.column("hcrank").to_pylist()
    drift = row["schema_drift"]
    assert "missing column fetch_200_lote_pct: read as null" in drift
    for column in NUTCH:
        name = _source_name(column)
        assert f"column {name} is int64 (reference int32): cast to int64" in drift
    assert len(drift) == 1 + len(NUTCH)


def test_other_spelling_and_order_are_read_by_name(tmp_path: Path):
    table = pa.table(
        {
            "NUTCH_FETCHED": pa.array([7], pa.int32()),
            "hcrank": [2.5],
            "Surt_Host_Name": ["org,example"],
            "nutch_numrecords": pa.array([9], pa.int32()),
        }
    )
    path = tmp_path / f"crawl={CRAWL}" / "part-0.parquet"
    path.parent.mkdir()
    pq.write_table(table, path)
    lake = tmp_path / "lake"
    (row,) = ingest_host_index([path], lake)
    (landed,) = pq.read_table(lake / row["output_files"][0]).to_pylist()
    assert landed["surt_host_name"] == "org,example"
    assert (landed["nutch_fetched"], landed["nutch_num_records"], landed["hcrank"]) == (7, 9, 2.5)
    assert landed["fetch_200"] is None
    assert (
        "column NUTCH_FETCHED spelt differently from nutch_fetched: read by name"
        in (row["schema_drift"])
    )
    assert (
        "column nutch_numrecords spelt differently from nutch_numRecords: read by name"
        in (row["schema_drift"])
    )


def test_robots_counts_land_by_their_index_names_and_a_negative_one_is_rejected(tmp_path: Path):
    """The robots.txt outcomes the crawl plan reads: camelCase names mapped, a negative count
    rejects its row as any count does, and a file without them lands nulls, reported."""
    rows = [
        # (from_pylist takes the columns from the first row: every one is in it)
        _row("com,a", robots_200=3, robots_4xx=0, robots_5xx=1, robots_notModified=2),
        _row("com,b", robots_200=1, robots_4xx=-1, robots_5xx=0, robots_notModified=0),
    ]
    path = _file(tmp_path / f"crawl={CRAWL}" / "robots.parquet", rows)
    lake = tmp_path / "lake"
    (row,) = ingest_host_index([path], lake, max_reject_rate=0.5)
    assert dict(row["rejected_by_reason"]) == {"negative_count": 1}
    (landed,) = _committed(lake)
    assert landed["surt_host_name"] == "com,a"
    assert (landed["robots_200"], landed["robots_5xx"]) == (3, 1)
    assert (landed["robots_4xx"], landed["robots_not_modified"]) == (0, 2)
    assert landed["robots_redir_perm"] is None  # not in the file: null, not 0

    bare = _file(tmp_path / "old" / f"crawl={CRAWL}" / "p.parquet", [{"surt_host_name": "com,c"}])
    (row,) = ingest_host_index([bare], tmp_path / "lake-old")
    (landed,) = _committed(tmp_path / "lake-old")
    robots = [name for name in schemas.HOST_INDEX.names if name.startswith("robots_")]
    assert len(robots) == 9 and all(landed[name] is None for name in robots)
    assert any("robots_notModified" in note for note in row["schema_drift"])


def test_a_count_stored_as_text_is_refused_naming_file_and_column(tmp_path: Path):
    path = _file(
        tmp_path / f"crawl={CRAWL}" / "bad.parquet",
        [{"surt_host_name": "com,a", "nutch_fetched": "12"}],
    )
    lake = tmp_path / "lake"
    with pytest.raises(LakeError, match=r"bad\.parquet: column 'nutch_fetched' is string"):
        ingest_host_index([path], lake)
    assert manifest_rows(lake, "host_index") == []


def test_an_overflowing_count_is_refused_and_nothing_is_published(tmp_path: Path):
    schema = pa.schema([("surt_host_name", pa.string()), ("nutch_fetched", pa.uint64())])
    rows = [{"surt_host_name": f"com,h{i}", "nutch_fetched": i} for i in range(50)]
    rows.append({"surt_host_name": "com,big", "nutch_fetched": 2**63})
    path = _file(tmp_path / f"crawl={CRAWL}" / "big.parquet", rows, schema)
    lake = tmp_path / "lake"
    with pytest.raises(LakeError, match=r"big\.parquet: column 'nutch_fetched' does not fit int64"):
        ingest_host_index([path], lake, batch_rows=16)  # the overflow is in a later batch
    assert not list((lake / "host_index").rglob("*.parquet"))
    assert not list(lake.rglob("*.tmp"))
    assert manifest_rows(lake, "host_index") == []
    # a value that fits is cast and read exactly
    small = _file(tmp_path / f"crawl={CRAWL}" / "small.parquet", rows[:-1], schema)
    (row,) = ingest_host_index([small], lake)
    landed = pq.read_table(lake / row["output_files"][0])
    assert landed.column("nutch_fetched").to_pylist() == list(range(50))


def test_a_missing_surt_host_name_column_is_refused(tmp_path: Path):
    path = _file(tmp_path / f"crawl={CRAWL}" / "x.parquet", [{"fetch_200": 1}])
    with pytest.raises(LakeError, match=r"required column 'surt_host_name' is missing"):
        ingest_host_index([path], tmp_path / "lake")


def test_the_crawl_comes_from_the_folder_else_from_the_crawl_argument(tmp_path: Path):
    loose = _file(tmp_path / "loose" / "part.parquet", [_row("com,loose")])
    with pytest.raises(LakeError, match=r"no crawl=<id> folder in the path; pass --crawl"):
        ingest_host_index([loose], tmp_path / "lake")
    with pytest.raises(LakeError, match=r"not a crawl id: 'CC-MAIN-24'"):
        ingest_host_index([loose], tmp_path / "lake", crawl="CC-MAIN-24")
    foldered = _file(tmp_path / "crawl=CC-MAIN-2023-06" / "part.parquet", [_row("com,folder")])
    bad_folder = _file(tmp_path / "crawl=latest" / "part.parquet", [_row("com,x")])
    with pytest.raises(LakeError, match=r"not a crawl id: 'latest'"):
        ingest_host_index([bad_folder], tmp_path / "lake")
    assert not (tmp_path / "lake").exists()  # refused before any work

    with pytest.raises(  # neither the folder nor --crawl silently wins
        LakeError,
        match=r"part\.parquet: --crawl CC-MAIN-2024-10 contradicts its folder crawl=CC-MAIN-2023-0",
    ):
        ingest_host_index([loose, foldered], tmp_path / "lake", crawl=CRAWL)
    nested = _file(
        tmp_path / "crawl=CC-MAIN-2023-06" / "crawl=CC-MAIN-2023-14" / "p.parquet", [_row("com,n")]
    )
    with pytest.raises(LakeError, match=r"p\.parquet: nested crawl= folders name different"):
        ingest_host_index([nested], tmp_path / "lake")
    assert not (tmp_path / "lake").exists()  # refused before any work

    rows = ingest_host_index([loose], tmp_path / "lake", crawl=CRAWL)
    rows += ingest_host_index([foldered], tmp_path / "lake")
    assert [row["crawl"] for row in rows] == [CRAWL, "CC-MAIN-2023-06"]
    assert [(row["crawl"], row["surt_host_name"]) for row in _committed(tmp_path / "lake")] == [
        ("CC-MAIN-2023-06", "com,folder"),
        (CRAWL, "com,loose"),
    ]


def test_invalid_rows_are_rejected_and_counted(tmp_path: Path):
    rows = [_row(f"com,h{i}", nutch_fetched=i) for i in range(20)]
    rows[3] = _row(None)
    rows[7] = _row("")
    rows[11] = _row("com,negative", nutch_fetched=-1)
    rows[12] = _row("com,negative2", fetch_200=-5)
    rows[13] = _row(None, fetch_200=-1)  # both: counted once, as the missing host
    rows[17] = _row("com,nulls", fetch_200=None)  # a null count is fine
    path = _file(tmp_path / f"crawl={CRAWL}" / "x.parquet", rows)
    lake = tmp_path / "lake"
    with pytest.raises(LakeError, match=r"5 of 20 records rejected"):
        ingest_host_index([path], lake)
    (row,) = ingest_host_index([path], lake, max_reject_rate=0.5, batch_rows=8)
    assert (row["records_read"], row["records_written"], row["records_rejected"]) == (20, 15, 5)
    assert dict(row["rejected_by_reason"]) == {"missing_surt_host_name": 3, "negative_count": 2}
    assert [example.split(": ")[0].rsplit(":", 1)[1] for example in row["rejected_examples"]] == [
        "row 3",
        "row 7",
        "row 13",
        "row 11",
        "row 12",
    ]
    hosts = [landed["surt_host_name"] for landed in _committed(lake)]
    assert len(hosts) == 15 and "com,negative" not in hosts and "" not in hosts
    assert "com,nulls" in hosts


def test_more_rejects_than_examples_are_all_counted(tmp_path: Path):
    rows = [_row(f"com,h{i}") for i in range(100)] + [_row(None) for _ in range(30)]
    path = _file(tmp_path / f"crawl={CRAWL}" / "x.parquet", rows)
    (row,) = ingest_host_index([path], tmp_path / "lake", max_reject_rate=0.5, batch_rows=7)
    assert dict(row["rejected_by_reason"]) == {"missing_surt_host_name": 30}
    assert row["records_read"] == row["records_written"] + row["records_rejected"] == 130


def test_rerun_is_a_no_op(tiny_crawl: Crawl, tmp_path: Path):
    lake = tmp_path / "lake"
    inputs = _inputs(tiny_crawl)
    assert len(ingest_host_index(inputs, lake)) == len(inputs)
    before = _snapshot(lake)
    assert ingest_host_index(inputs, lake) == []
    assert _snapshot(lake) == before
    # the same bytes under another name are the same input
    copy = tmp_path / "copy" / f"crawl={CRAWL}" / "again.parquet"
    copy.parent.mkdir(parents=True)
    shutil.copy(inputs[-1], copy)
    assert ingest_host_index([copy], lake) == []


def test_crash_between_publish_and_commit_then_rerun(tiny_crawl, tmp_path, monkeypatch):
    inputs = _inputs(tiny_crawl)
    clean = tmp_path / "clean"
    ingest_host_index(inputs, clean)

    import ingest.lake_manifest

    real_commit = ingest.lake_manifest.commit_manifest
    calls = []

    def commit_then_crash(*args, **kwargs):
        calls.append(args[2].path)
        if len(calls) == 3:  # the third file's parts are published, its manifest never written
            raise KeyboardInterrupt("killed")
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(ingest.lake_manifest, "commit_manifest", commit_then_crash)
    lake = tmp_path / "lake"
    with pytest.raises(KeyboardInterrupt):
        ingest_host_index(inputs, lake, workers=1)  # the patch lives in this process
    assert len(manifest_rows(lake, "host_index")) == 2
    assert len(list((lake / "host_index").rglob("part-*.parquet"))) == 3
    # an orphan part is invisible when read through the manifest
    assert {row["crawl"] for row in _committed(lake)} == {
        path.parent.name.removeprefix("crawl=") for path in inputs[:2]
    }
    third = inputs[2].parent.name
    (lake / "host_index" / third / ".part-abc.1.tmp").write_bytes(b"half a part")

    monkeypatch.setattr(ingest.lake_manifest, "commit_manifest", real_commit)
    rows = ingest_host_index(inputs, lake)
    assert len(rows) == len(inputs) - 2
    assert len(manifest_rows(lake, "host_index")) == len(inputs)
    assert len(list((lake / "host_index").rglob("part-*.parquet"))) == len(inputs)
    assert not list(lake.rglob("*.tmp"))
    committed = _committed(lake)
    keys = [(row["crawl"], row["surt_host_name"]) for row in committed]
    assert len(keys) == len(set(keys)) == sum(pq.read_metadata(p).num_rows for p in inputs)
    assert committed == _committed(clean)


def test_no_inputs_is_an_error(tmp_path: Path):
    with pytest.raises(LakeError, match="no input files"):
        ingest_host_index([], tmp_path / "lake")


def test_an_unreadable_file_is_refused_naming_it(tmp_path: Path):
    path = tmp_path / f"crawl={CRAWL}" / "broken.parquet"
    path.parent.mkdir()
    path.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(LakeError, match=r"broken\.parquet: not a readable Parquet file"):
        ingest_host_index([path], tmp_path / "lake")


def test_a_damaged_data_page_is_a_lake_error_naming_the_file(tmp_path: Path):
    path = _file(
        tmp_path / f"crawl={CRAWL}" / "damaged.parquet", [_row(f"com,h{i}") for i in range(999)]
    )
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little")
    for index in range(4, len(data) - 8 - footer):  # every page, not the footer
        data[index] ^= 0x5A
    path.write_bytes(bytes(data))
    lake = tmp_path / "lake"
    with pytest.raises(LakeError, match=r"damaged\.parquet: not a readable Parquet file: \S"):
        ingest_host_index([path], lake)
    assert manifest_rows(lake, "host_index") == []
    assert not list(lake.rglob("*.tmp")) and not list((lake / "host_index").rglob("*.parquet"))
