"""`python -m ingest graph` on real bytes: the heads of four published host-ranks files.

The fixtures (`tests/fixtures/real/webgraph/`, see its SOURCES.md) are the first 1,001 lines of
the real `<release>-host-ranks.txt.gz`, rebuilt from the exact field text that
cc-webgraph-statistics keeps. References are plain Python (`gzip`, `str.split`, `int`,
`float`) and values copied from that text, never the code under test. Two of the releases
(2025-26 and 2026) keep a leading `www` in host names; the reference applies the merge rule of
`ingest.webgraph` (each measure's position and value from the vertex it ranks higher) by hand.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ingest import schemas
from ingest.__main__ import main
from ingest.lake import manifest_rows
from ingest.webgraph import HOST_HEADER, RANKS, read_text_table

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "webgraph"
RELEASES = (
    "cc-main-2024-nov-feb-apr",
    "cc-main-2024-25-dec-jan-feb",
    "cc-main-2025-26-nov-dec-jan",
    "cc-main-2026-apr-may-jun",
)
WWW_RELEASES = ("cc-main-2025-26-nov-dec-jan", "cc-main-2026-apr-may-jun")


def _fixture(release: str) -> Path:
    return FIXTURES / f"{release}-host-ranks.txt.gz"


def _text_lines(release: str) -> list[list[str]]:
    with gzip.open(_fixture(release), "rt", encoding="utf-8", newline="") as handle:
        text = handle.read()
    assert text.endswith("\n") and "\r" not in text
    return [line.split("\t") for line in text[:-1].split("\n")]


def _landed(lake: Path, release: str) -> tuple[dict, list[dict]]:
    (row,) = [row for row in manifest_rows(lake, "host_ranks") if row["release"] == release]
    table = pa.concat_tables(pq.read_table(lake / part) for part in row["output_files"])
    return row, table.to_pylist()


def _key(host_rev: str) -> str:
    """The host key the warehouse gives a reversed host name: one trailing `www` dropped."""
    labels = host_rev.split(".")
    if len(labels) > 2 and labels[-1] == "www":
        labels = labels[:-1]
    return ",".join(labels)


def _expected_rows(release: str) -> tuple[list[dict], int]:
    """One row per host key, each measure from the line that ranks it higher; lines merged."""
    by_key: dict[str, dict] = {}
    for hc_pos, hc_val, pr_pos, pr_val, host in _text_lines(release)[1:]:
        line = {"hc": (int(hc_pos), float(hc_val)), "pr": (int(pr_pos), float(pr_val))}
        kept = by_key.setdefault(_key(host), line)
        for measure in ("hc", "pr"):
            kept[measure] = min(kept[measure], line[measure])  # the smaller position
    rows = [
        {
            "surt_host_name": key,
            "hc_pos": row["hc"][0],
            "hc_val": row["hc"][1],
            "pr_pos": row["pr"][0],
            "pr_val": row["pr"][1],
        }
        for key, row in by_key.items()
    ]
    rows.sort(key=lambda row: row["hc_pos"])
    return rows, 1000 - len(rows)


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One lake holding the three releases, each ingested by the command line."""
    folder = tmp_path_factory.mktemp("real-graph") / "lake"
    for release in RELEASES:
        argv = ["graph", "--release", release, "--ranks", str(_fixture(release))]
        assert main([*argv, "--lake", str(folder)]) == 0
    return folder


@pytest.mark.parametrize("release", RELEASES)
def test_the_fixtures_are_the_bytes_sources_md_names(release: str):
    text = gzip.decompress(_fixture(release).read_bytes())
    sources = (FIXTURES / "SOURCES.md").read_text()
    (line,) = [line for line in sources.splitlines() if line.startswith(f"| `{release}-host-")]
    assert hashlib.sha256(text).hexdigest()[:16] in line
    lines = _text_lines(release)
    assert "\t".join(lines[0]) == HOST_HEADER
    assert len(lines) == 1001 and {len(fields) for fields in lines} == {5}


@pytest.mark.parametrize("release", RELEASES)
def test_a_real_ranks_head_lands_value_for_value(lake: Path, release: str):
    manifest, rows = _landed(lake, release)
    expected, merged = _expected_rows(release)
    assert rows == expected  # doubles compared exactly: each is the nearest to its text
    assert (merged > 0) == (release in WWW_RELEASES)
    # positions as published: sorted and unique, a merged twin's left out
    assert [row["hc_pos"] for row in rows] == sorted({row["hc_pos"] for row in rows})
    assert len({row["pr_pos"] for row in rows}) == len(rows) == 1000 - merged
    assert not [row for row in rows if row["surt_host_name"].endswith(",www")]
    # the books: every line read was written, nothing rejected, the file's checksum
    path = _fixture(release)
    assert manifest["source_file"].endswith(path.name)
    assert manifest["source_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert manifest["source_size_bytes"] == path.stat().st_size
    assert (manifest["records_read"], manifest["records_written"]) == (1000, 1000 - merged)
    assert manifest["records_rejected"] == merged
    assert manifest["rejected_by_reason"] == ([("merged_www_twin", merged)] if merged else [])
    (part,) = manifest["output_files"]
    assert re.fullmatch(rf"host_ranks/release={release}/part-[0-9a-f]+\.parquet", part)
    assert pq.read_schema(lake / part) == schemas.HOST_RANKS


def test_values_as_the_published_text_gives_them(lake: Path):
    _, rows = _landed(lake, "cc-main-2024-nov-feb-apr")
    by_host = {row["surt_host_name"]: row for row in rows}
    # row 1 of the file: 1  3.6108172E7  3  0.005212838739635792  com.facebook
    assert by_host["com,facebook"] == {
        "surt_host_name": "com,facebook",
        "hc_pos": 1,
        "hc_val": 36108172.0,
        "pr_pos": 3,
        "pr_val": 0.005212838739635792,
    }
    # row 13: 13  2.4757108E7  21  9.330852427901495E-4  com.google.support (an exponent)
    assert by_host["com,google,support"]["pr_val"] == 0.0009330852427901495
    assert by_host["com,google,support"]["hc_val"] == 24757108.0
    assert by_host["org,wikipedia,en"]["hc_pos"] == 19
    _, rows = _landed(lake, "cc-main-2024-25-dec-jan-feb")
    by_host = {row["surt_host_name"]: row for row in rows}
    # FORMATS.md §1.4 quotes: 14  2.337092E7  47  3.794876113587071E-4  be.youtu
    assert by_host["be,youtu"] == {
        "surt_host_name": "be,youtu",
        "hc_pos": 14,
        "hc_val": 23370920.0,
        "pr_pos": 47,
        "pr_val": 0.0003794876113587071,
    }


@pytest.mark.parametrize(
    ("release", "www_vertices", "merged"),
    [("cc-main-2025-26-nov-dec-jan", 398, 22), ("cc-main-2026-apr-may-jun", 456, 30)],
)
def test_www_vertices_are_counted_merged_or_renamed(
    lake: Path, release: str, www_vertices: int, merged: int
):
    # counted by hand on the fixture's text: names `<…>.www` with more than two labels, and
    # those whose bare name is a line of the file too
    lines = _text_lines(release)[1:]
    hosts = {fields[4] for fields in lines}
    www = [host for host in hosts if host.endswith(".www") and host.count(".") >= 2]
    assert len(www) == www_vertices
    assert len([host for host in www if host.removesuffix(".www") in hosts]) == merged
    manifest, rows = _landed(lake, release)
    assert manifest["schema_drift"] == [
        f"host names keep a leading www: {www_vertices:,} www vertices keyed to their bare "
        f"host, {merged:,} merged with the bare host's vertex (each measure's position and "
        f"value from the vertex it ranks higher), {www_vertices - merged:,} renamed "
        "(no bare vertex)"
    ]
    assert len(rows) == 1000 - merged


def test_the_2026_head_keys_every_host_once_with_its_more_central_name(lake: Path):
    _, rows = _landed(lake, "cc-main-2026-apr-may-jun")
    by_host = {row["surt_host_name"]: row for row in rows}
    # line 1: 1  3.546816E7  3  0.005439944157144132  com.facebook.www
    # line 27: 27  2.2955628E7  60  3.4125141683170656E-4  com.facebook (merged away)
    assert by_host["com,facebook"] == {
        "surt_host_name": "com,facebook",
        "hc_pos": 1,
        "hc_val": 35468160.0,
        "pr_pos": 3,
        "pr_val": 0.005439944157144132,
    }
    assert 27 not in {row["hc_pos"] for row in rows} and 60 not in {row["pr_pos"] for row in rows}
    # the bare name more central: 7  2.879265E7  11  0.0024210721691717576  com.twitter
    # (com.twitter.www: 35  2.2676586E7  87 …)
    assert (by_host["com,twitter"]["hc_pos"], by_host["com,twitter"]["pr_pos"]) == (7, 11)
    assert by_host["com,twitter"]["hc_val"] == 28792650.0
    # the measures disagree: com.evernote.www 715 / 9295, com.evernote 975 / 3421
    assert by_host["com,evernote"] == {
        "surt_host_name": "com,evernote",
        "hc_pos": 715,
        "hc_val": 19101904.0,
        "pr_pos": 3421,
        "pr_val": 3.6036402239226904e-06,
    }
    # org.wikipedia 743 / 2322, org.wikipedia.www 922 / 1943; org.wikipedia.en its own host
    assert (by_host["org,wikipedia"]["hc_pos"], by_host["org,wikipedia"]["pr_pos"]) == (743, 1943)
    assert by_host["org,wikipedia,en"]["hc_pos"] == 14
    # only a www name: 4  3.141674E7  4  0.004679704025601445  com.googletagmanager.www
    assert by_host["com,googletagmanager"] == {
        "surt_host_name": "com,googletagmanager",
        "hc_pos": 4,
        "hc_val": 31416740.0,
        "pr_pos": 4,
        "pr_val": 0.004679704025601445,
    }
    assert by_host["com,tiktok"]["hc_pos"] == 26


def test_releases_before_2025_26_are_landed_as_before(lake: Path):
    # no name of theirs ends in www: every line is a host of its own, keyed as written
    for release in ("cc-main-2024-nov-feb-apr", "cc-main-2024-25-dec-jan-feb"):
        manifest, rows = _landed(lake, release)
        names = [fields[4] for fields in _text_lines(release)[1:]]
        assert [row["surt_host_name"] for row in rows] == [n.replace(".", ",") for n in names]
        assert manifest["schema_drift"] == []


@pytest.mark.parametrize("release", RELEASES)
def test_real_heads_take_the_fast_path(release: str):
    batches: list[pa.RecordBatch] = []
    resets = []
    report = read_text_table(_fixture(release), RANKS, batches.append, lambda: resets.append(1))
    assert resets == [] and report.rejected_count == 0
    assert sum(batch.num_rows for batch in batches) == report.read == 1000
