"""`ingest.webgraph`: graph files as they come: uncompressed, CRLF, empty, damaged gzip, bad
UTF-8, impossible values (nulled and counted), and files that are no gzip at all.

References are plain Python (`gzip`, `str.split`, `float`), never the code under test.
"""

from __future__ import annotations

import gzip
import random
import re
from pathlib import Path

import pytest

from ingest.__main__ import main
from ingest.lake import LakeError, manifest_rows
from ingest.webgraph import (
    EDGES,
    HOST_HEADER,
    VERTICES,
    ingest_graph,
)
from tests.ingest.graph_files import (
    BAD_RANKS_LINE,
    RELEASE,
    _lake_rows,
    _ranks_line,
    _read,
    _rejections,
    _write,
)


def test_uncompressed_text_files_are_read_too(tmp_path: Path):
    ranks = _write(
        tmp_path / "r.txt", [HOST_HEADER, "1\t3.4626736E7\t2\t3.794876113587071E-4\tcom.a"], False
    )
    edges = _write(tmp_path / "e.txt", ["0\t1", "1\t0"], compress=False)
    lake = tmp_path / "lake"
    ingest_graph(RELEASE, lake, ranks=ranks, edges=[edges])
    assert _lake_rows(lake, "host_ranks") == [
        {
            "surt_host_name": "com,a",
            "hc_pos": 1,
            "hc_val": 34626736.0,
            "pr_pos": 2,
            "pr_val": 3.794876113587071e-4,
        }
    ]
    assert len(_lake_rows(lake, "host_edges")) == 2
    # and the careful path on an uncompressed file
    bad = _write(tmp_path / "bad.txt", ["0\t1", "x\t1", "1\t0"], compress=False)
    rows, report, resets = _read(bad, EDGES)
    assert (len(rows), _rejections(report), resets) == (2, {2: "malformed_from_vertex_id"}, 1)


@pytest.mark.parametrize("careful", [False, True], ids=["fast", "careful"])
def test_crlf_line_ends_and_a_missing_last_newline(tmp_path: Path, careful: bool):
    lines = [HOST_HEADER, _ranks_line(1), _ranks_line(2)] + ([BAD_RANKS_LINE] if careful else [])
    path = tmp_path / "r.txt.gz"
    path.write_bytes(gzip.compress("\r\n".join([*lines, _ranks_line(3)]).encode()))
    rows, report, resets = _read(path)
    assert resets == int(careful)
    assert [row["host_rev"] for row in rows] == ["com.h1", "com.h2", "com.h3"]
    assert _rejections(report) == ({4: "malformed_host_rev"} if careful else {})


def test_empty_vertices_and_edges_files_are_empty_not_errors(tmp_path: Path):
    empty_gz = tmp_path / "e.txt.gz"
    empty_gz.write_bytes(gzip.compress(b""))
    empty = tmp_path / "v.txt"
    empty.write_bytes(b"")
    lake = tmp_path / "lake"
    rows = ingest_graph(RELEASE, lake, vertices=[empty], edges=[empty_gz])
    assert [(row["records_read"], row["output_files"]) for row in rows] == [(0, [])] * 2
    assert len(manifest_rows(lake, "host_edges")) == 1
    # a ranks file lists every host of its release: one with its header and no lines is cut
    header_only = _write(tmp_path / "r.txt.gz", [HOST_HEADER])
    with pytest.raises(LakeError, match=r"r\.txt\.gz: a ranks file with its header and no lines"):
        ingest_graph(RELEASE, lake, ranks=header_only)
    assert manifest_rows(lake, "host_ranks") == []
    with pytest.raises(LakeError, match="not a Common Crawl ranks header: ''"):
        ingest_graph("cc-main-2024-feb-apr-may", lake, ranks=empty_gz)


def _gzipped_vertices(count: int) -> bytes:
    return gzip.compress("".join(f"{i}\tcom.h{i}\n" for i in range(count)).encode())


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda data: data[: len(data) // 2], "Compressed file ended before the end-of-stream"),
        (lambda data: data[:10], "Compressed file ended before the end-of-stream"),
        (
            lambda data: data[:1000] + bytes(b ^ 0x55 for b in data[1000:1100]) + data[1100:],
            "",
        ),
        (lambda data: b"\x1f\x8b\x00garbage", ""),
    ],
    ids=["truncated", "header-only", "corrupt", "bad-gzip-header"],
)
def test_a_damaged_gzip_file_is_a_lake_error_naming_it(tmp_path: Path, damage, message):
    path = tmp_path / "v.txt.gz"
    path.write_bytes(damage(_gzipped_vertices(50_000)))
    lake = tmp_path / "lake"
    with pytest.raises(LakeError, match=rf"v\.txt\.gz: not a readable gzip file: {message}"):
        ingest_graph(RELEASE, lake, vertices=[path], block_size=4096)
    assert not list((lake / "host_vertices").rglob("*.parquet"))
    assert not list(lake.rglob("*.tmp"))


def test_bytes_that_are_not_utf8_make_a_rejected_line(tmp_path: Path):
    path = tmp_path / "v.txt.gz"
    path.write_bytes(gzip.compress(b"0\tcom.a\n1\tcom.\xff\n2\tcom.c\n3\xff\tcom.d\n5\tcom.e\n"))
    rows, report, resets = _read(path, VERTICES)
    assert resets == 1
    assert [row["vertex_id"] for row in rows] == [0, 2, 5]
    assert _rejections(report) == {2: "malformed_host_rev", 4: "malformed_vertex_id"}
    assert report.examples[0].endswith(repr("1\tcom.\ufffd"))


@pytest.mark.parametrize("width", ["short", "long"])
def test_a_wrong_width_line_that_is_not_utf8_is_a_rejected_line(tmp_path: Path, width: str):
    """Arrow cannot hand such a line to the invalid-row handler: the careful path replaces
    the bytes first, so the line is rejected and the others are written (it failed the file)."""
    bad = b"\xff" if width == "short" else b"1\tcom.\xff\tx"
    path = tmp_path / "v.txt.gz"
    path.write_bytes(gzip.compress(b"0\tcom.a\n" + bad + b"\n2\tcom.c\n"))
    rows, report, resets = _read(path, VERTICES)
    assert resets == 1
    assert [(row["vertex_id"], row["host_rev"]) for row in rows] == [(0, "com.a"), (2, "com.c")]
    assert _rejections(report) == {2: "wrong_column_count"}
    assert report.examples[0].endswith(repr(bad.decode(errors="replace")))


def test_impossible_ranks_values_are_nulled_and_counted_in_the_manifest(tmp_path: Path):
    lines = [
        HOST_HEADER,
        "1\tNaN\t2\t0.5\tcom.a",
        "2\tInfinity\t3\t-Infinity\tcom.b",
        "3\t1e400\t1\t1e-400\tcom.c",  # overflows to inf; underflows to 0.0 (possible)
        "4\t-2.5E3\t4\t1.5\tcom.d",
        "5\t2.1519174E7\t5\t3.794876113587071E-4\tcom.e",  # real spellings, kept
    ]
    for careful in (False, True):
        lake = tmp_path / f"lake-{careful}"
        ranks = _write(
            tmp_path / f"r{careful}.txt.gz", lines + ([BAD_RANKS_LINE] if careful else [])
        )
        (row,) = ingest_graph(RELEASE, lake, ranks=ranks, max_reject_rate=0.5)
        got = sorted(
            (r["surt_host_name"], r["hc_pos"], r["hc_val"], r["pr_pos"], r["pr_val"])
            for r in _lake_rows(lake, "host_ranks")
        )
        assert got == [
            ("com,a", 1, None, 2, 0.5),
            ("com,b", 2, None, 3, None),
            ("com,c", 3, None, 1, 0.0),
            ("com,d", 4, None, 4, None),
            ("com,e", 5, 21519174.0, 5, 3.794876113587071e-4),
        ]
        assert dict(row["nulled_by_reason"]) == {
            "non_finite_hc_val": 3,
            "out_of_range_hc_val": 1,
            "non_finite_pr_val": 1,
            "out_of_range_pr_val": 1,
        }
        assert (row["records_read"], row["records_written"]) == (5 + careful, 5)
        examples = [e for e in row["rejected_examples"] if "(nulled)" in e]
        assert any(e.endswith(":2: non_finite_hc_val (nulled): 'hc_val=nan'") for e in examples)
        assert any(":5: out_of_range_pr_val (nulled): 'pr_val=1.5'" in e for e in examples)


@pytest.mark.parametrize("content", [b"", b"x", b"PK\x03\x04 not gzip at all", bytes(range(256))])
def test_a_gz_file_that_is_not_gzip_is_refused_naming_it(tmp_path: Path, content: bytes):
    path = tmp_path / "v.txt.gz"
    path.write_bytes(content)
    lake = tmp_path / "lake"
    with pytest.raises(LakeError, match=r"v\.txt\.gz: not a gzip file"):
        ingest_graph(RELEASE, lake, vertices=[path])
    assert not manifest_rows(lake, "host_vertices")


@pytest.mark.parametrize(
    ("magic", "message"),
    [(b"", "not a gzip file"), (b"\x1f\x8b", "not a readable gzip file")],
    ids=["garbage", "magic-then-garbage"],
)
def test_a_garbage_gz_file_is_a_one_line_cli_error(tmp_path: Path, capsys, magic, message):
    path = tmp_path / "g.txt.gz"
    path.write_bytes(magic + random.Random(3).randbytes(500))
    lake = str(tmp_path / "lake")
    code = main(["graph", "--release", RELEASE, "--lake", lake, "--ranks", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert re.match(rf"python -m ingest graph: error: .*g\.txt\.gz: {message}", err)
