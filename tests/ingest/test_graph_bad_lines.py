"""`ingest.webgraph`: malformed graph lines are rejected with their reason and line number.

The careful path (text, line by line) must number lines exactly across blocks, and the fast
path (Arrow's typed CSV parser) must give the same rows as the careful one. References are
plain Python (`gzip`, `str.split`, `float`), never the code under test.
"""

from __future__ import annotations

import gzip
import random
import re
from pathlib import Path

import pytest

from demo.config import GRAPH_RELEASES
from ingest.webgraph import (
    EDGES,
    HOST_HEADER,
    RANKS,
    VERTICES,
    ingest_graph,
)
from tests.fixtures.crawls import Crawl
from tests.ingest.graph_files import (
    BAD_RANKS_LINE,
    RELEASE,
    _lake_rows,
    _ranks_line,
    _read,
    _rejections,
    _release_files,
    _write,
)

RANKS_BAD_LINES = [
    ("1\t1.0\t1", "wrong_column_count"),
    ("1\t1.0\t1\t0.5\tcom.a\t7", "wrong_column_count"),
    ("1\t1.0\t1\t0.5\tcom.a\t", "wrong_column_count"),
    ("", "malformed_hc_pos"),  # a blank line is a line too
    ("x\t1.0\t1\t0.5\tcom.a", "malformed_hc_pos"),
    ("1.5\t1.0\t1\t0.5\tcom.a", "malformed_hc_pos"),
    ("0\t1.0\t1\t0.5\tcom.a", "malformed_hc_pos"),
    ("-3\t1.0\t1\t0.5\tcom.a", "malformed_hc_pos"),
    ("99999999999999999999\t1.0\t1\t0.5\tcom.a", "malformed_hc_pos"),
    ("1\tabc\t1\t0.5\tcom.a", "malformed_hc_val"),
    ("1\t1,5\t1\t0.5\tcom.a", "malformed_hc_val"),
    ("1\t\t1\t0.5\tcom.a", "malformed_hc_val"),
    ("1\t1.0\t0\t0.5\tcom.a", "malformed_pr_pos"),
    ("1\t1.0\t-1\t0.5\tcom.a", "malformed_pr_pos"),
    ("1\t1.0\t1\t0.5.1\tcom.a", "malformed_pr_val"),
    ("1\t1.0\t1\t1E\tcom.a", "malformed_pr_val"),
    ("1\t1.0\t1\t0.5\tcom..x", "malformed_host_rev"),
    ("1\t1.0\t1\t0.5\tCom.Example", "malformed_host_rev"),
    ("1\t1.0\t1\t0.5\t", "malformed_host_rev"),
    ("1\t1.0\t1\t0.5\t.com.x", "malformed_host_rev"),
    ("1\t1.0\t1\t0.5\tcom.x.", "malformed_host_rev"),
    ("1\t1.0\t1\t0.5\tcom.ex ample", "malformed_host_rev"),
    ("1\t1.0\t1\t0.5\tde.bücher", "malformed_host_rev"),
    ("1\t1.0\t1\t0.5\t---", "malformed_host_rev"),
    ("1\t1.0\t1\t0.5\tcom.%41", "malformed_host_rev"),
    ("1\t1.0\t1\t0.5\tcom,b", "malformed_host_rev"),  # a SURT comma in a reversed name
    ("1\t1.0\t1\t0.5\tcom." + "a" * 64, "malformed_host_rev"),  # a label over 63
    ("1\t1.0\t1\t0.5\t" + ".".join(["a" * 60] * 5), "malformed_host_rev"),  # over 253
    ("NaN\t1.0\t1\t0.5\tcom.a", "malformed_hc_pos"),
    ("1\t1.0\tInfinity\t0.5\tcom.a", "malformed_pr_pos"),
    ("1e0\t1.0\t1\t0.5\tcom.a", "malformed_hc_pos"),
    ("0\tabc\t1\t0.5\tcom..x", "malformed_hc_pos"),  # the first bad column names the reason
]


@pytest.mark.parametrize(("bad", "reason"), RANKS_BAD_LINES)
def test_each_malformed_ranks_line_is_rejected_with_its_reason_and_line(tmp_path, bad, reason):
    lines = [HOST_HEADER] + [_ranks_line(position) for position in range(1, 8)]
    lines.insert(5, bad)  # file line 6
    path = _write(tmp_path / "r.txt.gz", lines)
    rows, report, resets = _read(path)
    assert resets == 1
    assert [row["host_rev"] for row in rows] == [f"com.h{i}" for i in range(1, 8)]
    assert (report.read, report.written, dict(report.rejected)) == (8, 7, {reason: 1})
    assert _rejections(report) == {6: reason}


@pytest.mark.parametrize(
    ("text_format", "good", "bad", "reason"),
    [
        (VERTICES, "{i}\tcom.h{i}", "5", "wrong_column_count"),
        (VERTICES, "{i}\tcom.h{i}", "5\tcom.a\tx", "wrong_column_count"),
        (VERTICES, "{i}\tcom.h{i}", "-1\tcom.a", "malformed_vertex_id"),
        (VERTICES, "{i}\tcom.h{i}", "x\tcom.a", "malformed_vertex_id"),
        (VERTICES, "{i}\tcom.h{i}", "---\tcom.a", "malformed_vertex_id"),
        (VERTICES, "{i}\tcom.h{i}", "5\tcom..a", "malformed_host_rev"),
        (VERTICES, "{i}\tcom.h{i}", "5\tCom.A", "malformed_host_rev"),
        (VERTICES, "{i}\tcom.h{i}", "5\t", "malformed_host_rev"),
        (VERTICES, "{i}\tcom.h{i}", "5\t---", "malformed_host_rev"),
        (EDGES, "{i}\t{j}", "1\t2\t3", "wrong_column_count"),
        (EDGES, "{i}\t{j}", "1", "wrong_column_count"),
        (EDGES, "{i}\t{j}", "a\t1", "malformed_from_vertex_id"),
        (EDGES, "{i}\t{j}", "-1\t1", "malformed_from_vertex_id"),
        (EDGES, "{i}\t{j}", "1\t-2", "malformed_to_vertex_id"),
        (EDGES, "{i}\t{j}", "1\t---", "malformed_to_vertex_id"),
        (EDGES, "{i}\t{j}", "1\t2.0", "malformed_to_vertex_id"),
    ],
)
def test_each_malformed_vertex_or_edge_line_is_rejected(tmp_path, text_format, good, bad, reason):
    lines = [good.format(i=i, j=i + 1) for i in range(6)]
    lines.insert(3, bad)  # file line 4 (no header)
    path = _write(tmp_path / "x.txt.gz", lines)
    rows, report, resets = _read(path, text_format)
    assert resets == 1
    assert len(rows) == 6 and rows[0][text_format.columns[0][0]] == 0
    assert (report.read, report.written, dict(report.rejected)) == (7, 6, {reason: 1})
    assert _rejections(report) == {4: reason}


def test_vertex_id_zero_is_valid_but_position_zero_is_not(tmp_path: Path):
    vertices = _write(tmp_path / "v.txt.gz", ["0\tcom.a", "1\tcom.b"])
    edges = _write(tmp_path / "e.txt.gz", ["0\t1", "1\t0"])
    assert _read(vertices, VERTICES)[0] == [
        {"vertex_id": 0, "host_rev": "com.a"},
        {"vertex_id": 1, "host_rev": "com.b"},
    ]
    assert _read(edges, EDGES)[0] == [
        {"from_vertex_id": 0, "to_vertex_id": 1},
        {"from_vertex_id": 1, "to_vertex_id": 0},
    ]


def test_wrong_width_line_before_another_bad_line_in_the_same_block(tmp_path: Path):
    lines = [HOST_HEADER] + [_ranks_line(position) for position in range(1, 40)]
    lines[5] = "5\t1.0\t5"  # line 6: wrong width
    lines[6] = "6\tabc\t6\t0.1\tcom.x"  # line 7
    lines[20] = "20\t1\t0\t1\tcom.y"  # line 21: position 0, just before ...
    lines[21] = "x\ty"  # line 22: ... a wrong-width line
    lines[22] = "20\t1\t5\t1\tcom..y"  # line 23
    lines[30] = "a"  # lines 31, 32: two wrong-width lines in a row
    lines[31] = "a"
    lines[32] = "20\t1\t5\t1\tCom.Example"  # line 33
    path = _write(tmp_path / "r.txt.gz", lines)
    for block_size in (64, 100, 256, 1 << 20):
        rows, report, _ = _read(path, block_size=block_size)
        assert _rejections(report) == {
            6: "wrong_column_count",
            7: "malformed_hc_val",
            21: "malformed_pr_pos",
            22: "wrong_column_count",
            23: "malformed_host_rev",
            31: "wrong_column_count",
            32: "wrong_column_count",
            33: "malformed_host_rev",
        }, block_size
        assert report.read == 39 and report.written == len(rows) == 31


def _reference_reason(fields: list[str]) -> str | None:
    """An independent check of one ranks line (the generator below only makes these cases)."""
    if fields == [""]:  # a blank line: five empty fields to Arrow, the first one is bad
        return "malformed_hc_pos"
    if len(fields) != 5:
        return "wrong_column_count"
    for name, text in zip(("hc_pos", "hc_val", "pr_pos", "pr_val"), fields, strict=False):
        if text == "---":
            continue
        try:
            number = float(text) if name.endswith("val") else int(text)
        except ValueError:
            return f"malformed_{name}"
        if name.endswith("pos") and number < 1:
            return f"malformed_{name}"
    if not re.fullmatch(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*", fields[4]) or fields[4] == "---":
        return "malformed_host_rev"
    return None


_CORRUPTIONS = [
    lambda f: f[:3],
    lambda f: [*f, "extra"],
    lambda f: ["0", *f[1:]],
    lambda f: [f[0], "1.2.3", *f[2:]],
    lambda f: [*f[:2], "-4", *f[3:]],
    lambda f: [*f[:3], "zz", f[4]],
    lambda f: [*f[:4], f[4].replace(".", "..", 1)],
    lambda f: [*f[:4], f[4].upper()],
    lambda f: [""],
    lambda f: [*f[:3], "---", f[4]],  # fine: a missing value
    lambda f: ["---", *f[1:]],  # fine: a missing position
]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("block_size", [64, 97, 256])
def test_rejected_line_numbers_across_many_small_blocks(tmp_path, monkeypatch, seed, block_size):
    monkeypatch.setattr("ingest.lake_books._EXAMPLES", 10_000)  # keep every rejected line
    rng = random.Random(seed)
    lines = [HOST_HEADER]
    expected_rows = []
    expected_rejections = {}
    for position in range(1, 400):
        fields = _ranks_line(position).split("\t")
        if rng.random() < 0.15:
            fields = rng.choice(_CORRUPTIONS)(fields)
        lines.append("\t".join(fields))
        reason = _reference_reason(fields)
        if reason:
            expected_rejections[len(lines)] = reason
        else:
            expected_rows.append(fields[4])
    path = _write(tmp_path / "r.txt.gz", lines)
    rows, report, _ = _read(path, block_size=block_size)
    assert len(expected_rejections) > 20
    assert _rejections(report) == expected_rejections
    assert [row["host_rev"] for row in rows] == expected_rows
    assert report.read == 399 == report.written + report.rejected_count


@pytest.mark.parametrize("kind", ["ranks", "vertices", "edges"])
def test_fast_and_careful_paths_give_identical_rows(tiny_crawl: Crawl, tmp_path, kind):
    source = _release_files(tiny_crawl, GRAPH_RELEASES[0])[kind]
    text_format = {"ranks": RANKS, "vertices": VERTICES, "edges": EDGES}[kind]
    bad = {"ranks": BAD_RANKS_LINE, "vertices": "x\tcom.a", "edges": "1\t2\t3"}[kind]
    lines = gzip.decompress(source.read_bytes()).decode().splitlines()
    forced = _write(tmp_path / "forced.txt.gz", [*lines, bad])
    fast_rows, fast, fast_resets = _read(source, text_format, block_size=2048)
    careful_rows, careful, careful_resets = _read(forced, text_format, block_size=2048)
    assert (fast_resets, careful_resets) == (0, 1)
    assert len(fast_rows) > 250
    assert careful_rows == fast_rows
    assert careful.read == fast.read + 1 and careful.written == fast.written
    assert _rejections(careful) == {len(lines) + 1: next(iter(careful.rejected))}


def test_a_bad_line_late_in_a_multi_block_file_leaves_no_fast_path_rows_behind(tmp_path: Path):
    lines = [HOST_HEADER] + [_ranks_line(position) for position in range(1, 301)]
    lines.insert(290, BAD_RANKS_LINE)
    path = _write(tmp_path / "r.txt.gz", lines)
    lake = tmp_path / "lake"
    (row,) = ingest_graph(RELEASE, lake, ranks=path, max_reject_rate=0.01, block_size=256)
    hosts = [r["surt_host_name"] for r in _lake_rows(lake, "host_ranks")]
    assert hosts == [f"com,h{position}" for position in range(1, 301)]
    assert (row["records_read"], row["records_written"], row["records_rejected"]) == (301, 300, 1)
    assert dict(row["rejected_by_reason"]) == {"malformed_host_rev": 1}
    assert row["rejected_examples"][0].endswith(f":291: malformed_host_rev: {BAD_RANKS_LINE!r}")
