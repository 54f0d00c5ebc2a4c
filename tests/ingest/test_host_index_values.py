"""`ingest.host_index`: the values that land: the real host-index fixture's rows as its README
prints them, and bad values rejected or nulled by reason (host keys, impossible counts, bad
UTF-8).
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ingest import schemas
from ingest.__main__ import main
from ingest.host_index import ingest_host_index
from ingest.hosts import registry_suffix
from ingest.lake import LakeError, manifest_rows
from tests.ingest.host_index_files import CRAWL, _committed, _file, _row, _source_name

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
