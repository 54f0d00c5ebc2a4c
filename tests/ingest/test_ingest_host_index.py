"""`ingest.host_index`: Common Crawl's host-index Parquet -> lake `host_index`, schema drift,
rejects, idempotency and a crash between publishing parts and committing the manifest."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from demo.config import CRAWLS, DRIFTED_CRAWL
from ingest import schemas
from ingest.__main__ import main
from ingest.host_index import SOURCE_NAMES, ingest_host_index
from ingest.hosts import registry_suffix
from ingest.lake import LakeError, manifest_rows
from tests.fixtures.crawls import Crawl

CRAWL = "CC-MAIN-2024-10"
NUTCH = [name for name in schemas.HOST_INDEX.names if name.startswith("nutch_")]


def _inputs(crawl: Crawl) -> list[Path]:
    return sorted((crawl.root / "host-index").glob("crawl=*/*.parquet"))


def _source_name(column: str) -> str:
    return SOURCE_NAMES.get(column, column)


def _committed(lake: Path) -> list[dict]:
    """The lake's host_index rows read through the manifest: parts joined on their key."""
    parts = f"{lake}/host_index/*/part-*.parquet"
    manifest = f"{lake}/_manifest/host_index/*.parquet"
    relation = duckdb.connect().sql(
        f"""
        select parts.* exclude (filename)
        from read_parquet('{parts}', hive_partitioning = true, filename = true) as parts
        inner join read_parquet('{manifest}') as manifest
            on regexp_extract(parts.filename, 'part-([0-9a-f]+)\\.parquet$', 1)
                = manifest.part_key
        order by parts.crawl, parts.surt_host_name
        """
    )
    return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]


def _snapshot(lake: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(lake)): path.read_bytes() for path in lake.rglob("*") if path.is_file()
    }


def _row(surt: str | None = "com,example", **counts) -> dict:
    row = {"surt_host_name": surt, "url_host_tld": "com", "hcrank": 1.5, "fetch_200": 3}
    row.update(counts)
    return row


def _file(path: Path, rows: list[dict], schema: pa.Schema | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


def _contradictory(source: pa.Table) -> list[bool]:
    """Rows whose nutch_fetched exceeds nutch_numRecords (both are nulled on ingest)."""
    return [
        fetched is not None and known is not None and fetched > known
        for fetched, known in zip(
            source.column("nutch_fetched").to_pylist(),
            source.column("nutch_numRecords").to_pylist(),
            strict=True,
        )
    ]


def _expected(source: pa.Table, name: str) -> list:
    """A source column as the lake holds it: the contradictory nutch pair nulled."""
    values = source.column(name).to_pylist()
    if name not in ("nutch_fetched", "nutch_numRecords"):
        return values
    return [
        None if bad else value for value, bad in zip(values, _contradictory(source), strict=True)
    ]


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

    import ingest.host_index

    real_commit = ingest.host_index.commit_manifest
    calls = []

    def commit_then_crash(*args, **kwargs):
        calls.append(args[2].path)
        if len(calls) == 3:  # the third file's parts are published, its manifest never written
            raise KeyboardInterrupt("killed")
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(ingest.host_index, "commit_manifest", commit_then_crash)
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

    monkeypatch.setattr(ingest.host_index, "commit_manifest", real_commit)
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


# ----------------------------------------------------------------------- real bytes

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "host-index"
REAL_CRAWL = "CC-MAIN-2025-13"
# The rows the cc-host-index README prints (its two LOTE example queries, crawl CC-MAIN-2025-13):
# surt_host_name, hcrank10, fetch_200_lote_pct, fetch_200_lote.
README_ROWS = [
    ("va,vaticannews", 5.472, 89, 18872),
    ("va,vatican", 5.164, 73, 14549),
    ("va,museivaticani", 4.826, 77, 568),
    ("va,vatican,press", 4.821, 67, 3804),
    ("va,clerus", 4.813, 79, 68),
    ("va,osservatoreromano", 4.783, 98, 3305),
    ("va,vaticanstate", 4.738, 73, 509),
    ("va,migrants-refugees", 4.732, 67, 2055),
    ("va,iubilaeum2025", 4.73, 85, 672),
    ("va,cultura", 4.724, 67, 80),
    ("org,wikipedia,fr", 5.885, 99, 55334),
    ("org,wikipedia,es", 5.631, 100, 48527),
    ("com,chrome,developer", 5.62, 92, 29298),
    ("ar,gob,argentina", 5.613, 95, 16580),
    ("fr,ebay", 5.579, 100, 24633),
    ("org,wikipedia,ja", 5.55, 100, 49008),
    ("ru,gosuslugi", 5.535, 100, 1560),
    ("org,wikipedia,de", 5.508, 100, 48223),
    ("com,acidholic", 5.477, 100, 356),
    ("ph,telegra", 5.455, 92, 57153),
]
V2_STRINGS = ["surt_host_name", "url_host_registered_domain", "url_host_tld"]
V2_DOUBLES = ["hcrank10", "prank10", "prank", "hcrank"]


def _real_file() -> Path:
    return REAL / f"crawl={REAL_CRAWL}" / "part-0.parquet"


def _fixture_script():
    spec = importlib.util.spec_from_file_location("make_fixture", REAL / "make_fixture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_real_fixture_has_the_v2_schema_and_is_what_its_script_writes():
    parquet = pq.ParquetFile(_real_file())
    schema = parquet.schema_arrow
    assert len(schema) == 42 and schema.names[: 3 + 4] == V2_STRINGS + V2_DOUBLES
    assert [schema.field(name).type for name in V2_STRINGS] == [pa.string()] * 3
    assert [schema.field(name).type for name in V2_DOUBLES] == [pa.float64()] * 4
    assert {field.type for field in schema if field.name not in V2_STRINGS + V2_DOUBLES} == {
        pa.int32()
    }
    assert all(field.nullable for field in schema)
    assert "crawl" not in schema.names  # the Hive partition is the folder
    for name in ("nutch_numRecords", "nutch_redirTemp", "fetch_notModified", "robots_redirPerm"):
        assert name in schema.names
    script = _fixture_script()
    written = pa.Table.from_pylist(script.rows(), schema=script.SCHEMA)
    assert pq.read_table(_real_file()).equals(written)
    sources = (REAL / "SOURCES.md").read_text()
    digest = hashlib.sha256(_real_file().read_bytes()).hexdigest()[:16]
    assert f"`crawl={REAL_CRAWL}/part-0.parquet`" in sources and digest in sources


def test_the_readme_rows_land_with_their_printed_values(tmp_path: Path, capsys):
    lake = tmp_path / "lake"
    assert main(["host-index", "--path", str(REAL), "--lake", str(lake)]) == 0
    assert capsys.readouterr().out == (
        "host-index: 1 files ingested into host_index, 20 records read, 20 written, 0 rejected\n"
    )
    (row,) = manifest_rows(lake, "host_index")
    assert (row["crawl"], row["records_read"], row["records_written"]) == (REAL_CRAWL, 20, 20)
    assert (row["records_rejected"], row["schema_drift"]) == (0, [])  # v2 is the reference
    assert row["source_sha256"] == hashlib.sha256(_real_file().read_bytes()).hexdigest()
    landed = {host["surt_host_name"]: host for host in _committed(lake)}
    assert set(landed) == {host for host, *_ in README_ROWS}
    for host, hcrank10, lote_pct, lote in README_ROWS:
        got = landed[host]
        assert got["crawl"] == REAL_CRAWL
        assert (got["hcrank10"], got["fetch_200_lote_pct"], got["fetch_200_lote"]) == (
            hcrank10,
            lote_pct,
            lote,
        )
        assert got["url_host_tld"] == host.split(",")[0]  # the last label: va, org, ar
    assert landed["va,vaticannews"]["url_host_tld"] == "va"
    assert landed["ar,gob,argentina"]["url_host_tld"] == "ar"
    assert landed["ar,gob,argentina"]["url_host_registered_domain"] == "argentina.gob.ar"
    # the public suffix apart from the last label: gob.ar, not ar
    assert landed["ar,gob,argentina"]["url_host_registry_suffix"] == "gob.ar"
    # every kept column, the invented ones too, as the file has it (int32 counts widened)
    source = pq.read_table(_real_file()).to_pylist()
    for expected in source:
        got = landed[expected["surt_host_name"]]
        for column in schemas.HOST_INDEX.names:
            if column == "url_host_registry_suffix":  # derived from the registered domain
                domain = expected["url_host_registered_domain"]
                assert got[column] == registry_suffix(domain), column
                continue
            assert got[column] == expected[_source_name(column)], column
    assert landed["va,vaticannews"]["nutch_num_records"] == 22204  # nutch_numRecords


# ----------------------------------------------------------------------- issue 17: values, keys


def test_bad_host_keys_are_rejected_by_the_one_host_key_rule(tmp_path: Path):
    bad = ["com,exa mple", "com,b,,a", "%41", "Com,Example", "va,", "com," + "a" * 64]
    good = ["com,example", "com,blogspot,-foo", "de,xn--bcher-kva", "com,a_b"]
    path = _file(tmp_path / f"crawl={CRAWL}" / "p.parquet", [_row(key) for key in bad + good])
    (row,) = ingest_host_index([path], tmp_path / "lake", max_reject_rate=1.0)
    assert dict(row["rejected_by_reason"]) == {"bad_surt_host_name": len(bad)}
    assert [host["surt_host_name"] for host in _committed(tmp_path / "lake")] == sorted(good)
    assert "row 0: bad_surt_host_name: " in row["rejected_examples"][0]


def test_impossible_values_are_nulled_and_counted_by_reason(tmp_path: Path):
    rows = [
        _row("com,a", hcrank=float("nan"), prank=2.5e-9),
        _row("com,b", hcrank=float("inf"), prank=float("-inf"), hcrank10=11.0),
        _row("com,c", hcrank=-3.0, prank=1.5, prank10=-0.1, fetch_200_lote_pct=101),
        _row("com,d", nutch_numRecords=10, nutch_fetched=12, nutch_unfetched=1),
        _row(
            "com,e",
            hcrank=1.371761e07,
            prank=2.503322e-09,
            hcrank10=2.988,
            prank10=10.0,
            nutch_numRecords=12,
            nutch_fetched=12,
            fetch_200_lote_pct=100,
        ),
    ]
    schema = pa.schema(
        [("surt_host_name", pa.string()), ("url_host_tld", pa.string())]
        + [(name, pa.float64()) for name in ("hcrank", "prank", "hcrank10", "prank10")]
        + [
            (name, pa.int32())
            for name in ("fetch_200", "fetch_200_lote_pct", "nutch_numRecords", "nutch_fetched")
        ]
        + [("nutch_unfetched", pa.int32())]
    )
    path = _file(tmp_path / f"crawl={CRAWL}" / "p.parquet", rows, schema)
    (row,) = ingest_host_index([path], tmp_path / "lake")
    assert (row["records_read"], row["records_written"], row["records_rejected"]) == (5, 5, 0)
    assert dict(row["nulled_by_reason"]) == {
        "non_finite_hcrank": 2,
        "non_finite_prank": 1,
        "out_of_range_hcrank": 1,
        "out_of_range_prank": 1,
        "out_of_range_hcrank10": 1,
        "out_of_range_prank10": 1,
        "out_of_range_fetch_200_lote_pct": 1,
        "nutch_fetched_above_num_records": 1,
    }
    hosts = {host["surt_host_name"]: host for host in _committed(tmp_path / "lake")}
    columns = ("hcrank", "prank", "hcrank10", "prank10", "fetch_200_lote_pct")
    assert [tuple(hosts[f"com,{h}"][c] for c in columns) for h in "abcde"] == [
        (None, 2.5e-9, None, None, None),
        (None, None, None, None, None),
        (None, None, None, None, None),
        (1.5, None, None, None, None),
        (1.371761e07, 2.503322e-09, 2.988, 10.0, 100),
    ]
    # the contradictory pair: both nulled, the rest of the row kept
    d = hosts["com,d"]
    assert (d["nutch_num_records"], d["nutch_fetched"], d["nutch_unfetched"]) == (None, None, 1)
    assert (hosts["com,e"]["nutch_num_records"], hosts["com,e"]["nutch_fetched"]) == (12, 12)
    nulled = [example for example in row["rejected_examples"] if "(nulled)" in example]
    assert any(
        example.endswith(
            ":row 3: nutch_fetched_above_num_records (nulled): "
            "'nutch_fetched=12, nutch_num_records=10'"
        )
        for example in nulled
    )


def test_more_non_english_captures_than_captures_nulls_the_language_split(tmp_path: Path):
    rows = [
        _row("com,a", fetch_200=4, fetch_200_lote=5, fetch_200_lote_pct=100),
        _row("com,b", fetch_200=4, fetch_200_lote=4, fetch_200_lote_pct=100),
        _row("com,c", fetch_200=0, fetch_200_lote=2**63 - 1, fetch_200_lote_pct=0),
    ]
    schema = pa.schema(
        [("surt_host_name", pa.string()), ("url_host_tld", pa.string()), ("hcrank", pa.float64())]
        + [(name, pa.int64()) for name in ("fetch_200", "fetch_200_lote", "fetch_200_lote_pct")]
    )
    path = _file(tmp_path / f"crawl={CRAWL}" / "p.parquet", rows, schema)
    (row,) = ingest_host_index([path], tmp_path / "lake")
    assert (row["records_written"], dict(row["nulled_by_reason"])) == (
        3,
        {"fetch_200_lote_above_fetch_200": 2},
    )
    hosts = {host["surt_host_name"]: host for host in _committed(tmp_path / "lake")}
    columns = ("fetch_200", "fetch_200_lote", "fetch_200_lote_pct")
    assert [tuple(hosts[f"com,{h}"][c] for c in columns) for h in "abc"] == [
        (4, None, None),
        (4, 4, 100),
        (0, None, None),
    ]


def test_a_string_column_that_is_not_utf8_refuses_the_file_naming_it(tmp_path: Path):
    """Found by the fuzz campaign: Arrow reads such a page without a word, and the bytes
    reached the lake (or a later decode raised an internal error)."""
    hosts = pa.array([b"com,example", b"com,\xffbad"], pa.binary()).view(pa.string())
    table = pa.table({"surt_host_name": hosts, "fetch_200": pa.array([1, 2], pa.int64())})
    path = tmp_path / f"crawl={CRAWL}" / "p.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(table, path)
    with pytest.raises(LakeError, match=r"p\.parquet: not a readable Parquet file: column "):
        ingest_host_index([path], tmp_path / "lake")
    assert manifest_rows(tmp_path / "lake", "host_index") == []
