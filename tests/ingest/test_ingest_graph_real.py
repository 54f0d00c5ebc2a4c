"""`python -m ingest graph` on real bytes: the heads of three published host-ranks files.

The fixtures (`tests/fixtures/real/webgraph/`, see its SOURCES.md) are the first 1,001 lines of
the real `<release>-host-ranks.txt.gz`, rebuilt from the exact field text that
cc-webgraph-statistics keeps. References are plain Python (`gzip`, `str.split`, `int`,
`float`) and values copied from that text, never the code under test.
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
)


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
    expected = [
        {
            "surt_host_name": host.replace(".", ","),
            "hc_pos": int(hc_pos),
            "hc_val": float(hc_val),
            "pr_pos": int(pr_pos),
            "pr_val": float(pr_val),
        }
        for hc_pos, hc_val, pr_pos, pr_val, host in _text_lines(release)[1:]
    ]
    assert rows == expected  # doubles compared exactly: each is the nearest to its text
    assert [row["hc_pos"] for row in rows] == list(range(1, 1001))  # the file is by hc_pos
    assert len({row["pr_pos"] for row in rows}) == 1000
    # the books: every line read was written, nothing rejected, the file's checksum
    path = _fixture(release)
    assert manifest["source_file"].endswith(path.name)
    assert manifest["source_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert manifest["source_size_bytes"] == path.stat().st_size
    assert (manifest["records_read"], manifest["records_written"]) == (1000, 1000)
    assert (manifest["records_rejected"], manifest["rejected_by_reason"]) == (0, [])
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


def test_since_2025_26_nov_dec_jan_www_hosts_are_hosts_of_their_own(lake: Path):
    _, rows = _landed(lake, "cc-main-2025-26-nov-dec-jan")
    by_host = {row["surt_host_name"]: row for row in rows}
    # 1  3.827359E7  5  0.004996143351040313  com.facebook.www
    assert by_host["com,facebook,www"]["hc_pos"] == 1
    assert by_host["com,facebook,www"]["hc_val"] == 38273590.0
    assert by_host["com,facebook,www"]["pr_val"] == 0.004996143351040313
    assert "com,facebook" in by_host  # the bare name is a different vertex
    assert by_host["com,facebook"]["hc_pos"] > 1
    _, earlier = _landed(lake, "cc-main-2024-nov-feb-apr")
    assert not [row for row in earlier if row["surt_host_name"].endswith(",www")]


@pytest.mark.parametrize("release", RELEASES)
def test_real_heads_take_the_fast_path(release: str):
    batches: list[pa.RecordBatch] = []
    resets = []
    report = read_text_table(_fixture(release), RANKS, batches.append, lambda: resets.append(1))
    assert resets == [] and report.rejected_count == 0
    assert sum(batch.num_rows for batch in batches) == report.read == 1000
