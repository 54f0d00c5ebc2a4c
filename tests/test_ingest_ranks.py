"""The ranks-file reader on Common Crawl's exact format and its edge cases."""

from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pytest

from ingest.ranks import HOST_HEADER, RanksError, read_ranks
from ingest.synth.config import GRAPH_RELEASES
from tests.conftest import Crawl


def _write(path: Path, lines: list[str]) -> Path:
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    return path


def _read(path: Path, **options) -> tuple[list[dict], object]:
    batches, reports = [], []
    for batch, running in read_ranks(path, **options):
        batches.append(batch)
        reports.append(running)
    return pa.Table.from_batches(batches).to_pylist() if batches else [], reports[-1]


def test_java_floats_missing_values_and_surt_hosts(tmp_path: Path):
    path = _write(
        tmp_path / "x-host-ranks.txt.gz",
        [
            HOST_HEADER,
            "1\t3.4626736E7\t3\t0.005384977821460953\tcom.facebook",
            "3\t3.007577E7\t1\t0.008634952900502719\tcom.google",
            "14\t2.337092E7\t47\t3.794876113587071E-4\tbe.youtu",
            "15\t---\t31\t0.0010706467268355303\tcom.example.sub",
        ],
    )
    rows, report = _read(path)
    assert rows[0] == {
        "surt_host_name": "com,facebook",
        "hc_pos": 1,
        "hc_val": 34626736.0,
        "pr_pos": 3,
        "pr_val": 0.005384977821460953,
    }
    assert rows[2]["pr_val"] == pytest.approx(3.794876113587071e-4, rel=0, abs=0)
    assert rows[3]["hc_val"] is None and rows[3]["surt_host_name"] == "com,example,sub"
    assert (report.read, report.written, sum(report.rejected.values())) == (4, 4, 0)


def test_malformed_lines_are_counted_with_their_line_numbers(tmp_path: Path):
    path = _write(
        tmp_path / "bad-host-ranks.txt.gz",
        [
            HOST_HEADER,
            "1\t1.0\t1\t0.5\tcom.a",
            "2\t1.0\t2",  # line 3: two columns short
            "3\tabc\t3\t0.1\tcom.c",  # line 4: not a number
            "4\t1.0\t4\t0.1\tcom.d",
        ],
    )
    rows, report = _read(path, max_reject_rate=1.0)
    assert [row["surt_host_name"] for row in rows] == ["com,a", "com,d"]
    assert report.read == 4 and report.written == 2
    assert dict(report.rejected) == {"wrong_column_count": 1, "malformed_hc_val": 1}
    assert any(":3: wrong_column_count" in example for example in report.examples)
    assert any(":4: malformed_hc_val" in example for example in report.examples)
    with pytest.raises(RanksError, match=r"2 of 4 rows rejected"):
        _read(path, max_reject_rate=0.1)


def test_a_file_without_the_ranks_header_is_refused(tmp_path: Path):
    path = _write(tmp_path / "other.txt.gz", ["harmonicc_pos\tvalue", "1\t2"])
    with pytest.raises(RanksError, match=r"other.txt.gz:1: not a Common Crawl ranks header"):
        _read(path)


def test_reads_the_demo_crawls_ranks_exactly(tiny_crawl: Crawl):
    release = GRAPH_RELEASES[0]
    path = tiny_crawl.root / "webgraph" / release / f"{release}-host-ranks.txt.gz"
    rows, report = _read(path, block_size=4096)  # several blocks
    with gzip.open(path, "rt") as handle:
        lines = handle.read().splitlines()[1:]
    assert report.read == report.written == len(lines) == len(rows)
    for row, line in zip(rows, lines, strict=True):
        hc_pos, hc_val, pr_pos, pr_val, host = line.split("\t")
        assert row == {
            "surt_host_name": host.replace(".", ","),
            "hc_pos": int(hc_pos),
            "hc_val": float(hc_val),
            "pr_pos": int(pr_pos),
            "pr_val": float(pr_val),
        }
