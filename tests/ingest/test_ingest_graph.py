"""`ingest.webgraph`: Common Crawl's host-graph text files (ranks, vertices, edges) -> lake.

The reader has a fast path (Arrow's typed CSV parser) and a careful path (text, line by line,
with line numbers); most tests run both, by appending one bad line to force the careful one.
References are plain Python (`gzip`, `str.split`, `float`), never the code under test.
"""

from __future__ import annotations

import gzip
import math
import random
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from demo.config import GRAPH_RELEASES
from ingest import schemas
from ingest.__main__ import main
from ingest.lake import LakeError, manifest_rows
from ingest.webgraph import (
    EDGES,
    GRAPH_RELEASES_CSV,
    HOST_HEADER,
    RANKS,
    VERTICES,
    TextFormat,
    ingest_graph,
    known_releases,
    read_text_table,
)
from tests.fixtures.crawls import Crawl

RELEASE = "cc-main-2024-nov-feb-apr"
DOMAIN_HEADER = HOST_HEADER + "\t#n_hosts"
BAD_RANKS_LINE = "1\t1.0\t1\t0.5\tcom..broken"  # a bad host: sends any file to the careful path


def _write(path: Path, lines: list[str], compress: bool = True) -> Path:
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


class _Sink:
    """Collects the batches read_text_table hands out; counts resets (= careful path taken)."""

    def __init__(self) -> None:
        self.batches: list[pa.RecordBatch] = []
        self.resets = 0

    def __call__(self, batch: pa.RecordBatch) -> None:
        self.batches.append(batch)

    def reset(self) -> None:
        self.resets += 1
        self.batches.clear()

    def rows(self) -> list[dict]:
        return pa.Table.from_batches(self.batches).to_pylist() if self.batches else []


def _read(path: Path, text_format: TextFormat = RANKS, block_size: int = 1 << 20):
    sink = _Sink()
    report = read_text_table(path, text_format, sink, sink.reset, block_size)
    return sink.rows(), report, sink.resets


def _rejections(report) -> dict[int, str]:
    """{file line: reason} from the report's examples ("<path>:<line>: <reason>: <text>")."""
    found = {}
    for example in report.examples:
        line, reason = re.match(
            re.escape(str(report.path)) + r":(-?\d+): (\w+): ", example
        ).groups()
        assert int(line) not in found, f"line {line} rejected twice"
        found[int(line)] = reason
    return found


def _ranks_line(position: int, host: str | None = None) -> str:
    host = host or f"com.h{position}"
    return f"{position}\t{position * 1.25}E3\t{position}\t{position}.5E-4\t{host}"


def _lake_rows(lake: Path, table: str, release: str | None = None) -> list[dict]:
    """The rows of a lake table that the manifest commits (optionally of one release)."""
    rows = []
    for row in manifest_rows(lake, table):
        if release is not None and row["release"] != release:
            continue
        for relative in row["output_files"]:
            rows.extend(pq.read_table(lake / relative).to_pylist())
    return rows


def _snapshot(lake: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(lake)): path.read_bytes() for path in lake.rglob("*") if path.is_file()
    }


def _raw_lines(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        return [line.split("\t") for line in handle.read().splitlines()]


def _release_files(crawl: Crawl, release: str) -> dict[str, Path]:
    folder = crawl.root / "webgraph" / release
    return {
        kind: folder / f"{release}-host-{kind}.txt.gz" for kind in ("ranks", "vertices", "edges")
    }


# ----------------------------------------------------------------------- headers


def test_host_header_is_read_and_skipped(tmp_path: Path):
    path = _write(tmp_path / "r.txt.gz", [HOST_HEADER, _ranks_line(1)])
    rows, report, resets = _read(path)
    assert rows == [
        {"hc_pos": 1, "hc_val": 1250.0, "pr_pos": 1, "pr_val": 1.5e-4, "host_rev": "com.h1"}
    ]
    assert (report.read, report.written, report.rejected_count, resets) == (1, 1, 0, 0)


def test_domain_level_ranks_file_is_refused_with_a_clear_message(tmp_path: Path):
    path = _write(
        tmp_path / "d.txt.gz",
        [DOMAIN_HEADER, "15\t2.2095914E7\t31\t0.0010706467268355303\torg.wikipedia\t2099"],
    )
    with pytest.raises(LakeError, match=r"d\.txt\.gz:1: a domain-level ranks file \(#n_hosts"):
        _read(path)


@pytest.mark.parametrize(
    "first",
    [
        _ranks_line(1),  # no header at all
        "harmonicc_pos\tharmonicc_val\tpr_pos\tpr_val\thost_rev",  # without the #
        "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val",  # a column short
        "",  # an empty first line
    ],
)
def test_ranks_file_without_the_host_header_is_refused(tmp_path: Path, first: str):
    path = _write(tmp_path / "other.txt.gz", [first, _ranks_line(2)])
    with pytest.raises(LakeError, match=r"other\.txt\.gz:1: not a Common Crawl ranks header"):
        _read(path)


@pytest.mark.parametrize(
    ("text_format", "lines"),
    [(VERTICES, ["#id\thost_rev", "0\tcom.a"]), (EDGES, ["#from\tto", "0\t1"])],
)
def test_vertices_and_edges_files_with_a_header_are_refused(tmp_path, text_format, lines):
    path = _write(tmp_path / "x.txt.gz", lines)
    with pytest.raises(LakeError, match=rf"x\.txt\.gz:1: a header line, but a {text_format.name}"):
        _read(path, text_format)


def test_a_ranks_file_given_as_vertices_is_refused(tmp_path: Path):
    path = _write(tmp_path / "ranks.txt.gz", [HOST_HEADER, _ranks_line(1)])
    with pytest.raises(LakeError, match="a header line, but a vertices file has none"):
        ingest_graph(RELEASE, tmp_path / "lake", vertices=[path])
    assert not list((tmp_path / "lake" / "host_vertices").rglob("*.parquet"))
    assert manifest_rows(tmp_path / "lake", "host_vertices") == []


# ----------------------------------------------------------------------- numbers and hosts

JAVA_NUMBERS = [
    "3.4626736E7",  # Float.toString of the most central host (FORMATS.md §1.4)
    "3.007577E7",
    "2.337092E7",
    "2.2095914E7",
    "3.794876113587071E-4",  # Double.toString
    "0.005384977821460953",
    "0.0010706467268355303",
    "134.08333",
    "1.0",
    "0.0",
    "-0.0",
    "-1.5E-3",
    "-2.5E10",
    "1.0E-10",
    "4.9E-324",  # the smallest double
    "1.7976931348623157E308",  # the largest double
    "1.4E-45",  # the smallest float
    "NaN",
    "Infinity",
    "-Infinity",
]


def _possible(text: str, high: float | None) -> float | None:
    """The value a ranks line's text should land as: the double, or None when impossible."""
    value = float(text)
    if not math.isfinite(value) or value < 0 or (high is not None and value > high):
        return None
    return value


@pytest.mark.parametrize("careful", [False, True], ids=["fast", "careful"])
def test_java_float_and_double_text_is_read_exactly(tmp_path: Path, careful: bool):
    lines = [HOST_HEADER]
    for position, text in enumerate(JAVA_NUMBERS, start=1):
        lines.append(f"{position}\t{text}\t{position}\t{JAVA_NUMBERS[-position]}\tcom.h{position}")
    path = _write(tmp_path / "r.txt.gz", lines + ([BAD_RANKS_LINE] if careful else []))
    rows, report, resets = _read(path)
    assert resets == int(careful)
    assert len(rows) == len(JAVA_NUMBERS) == report.written
    for position, row in enumerate(rows, start=1):
        # repr() tells -0.0 from 0.0; float() is the reference
        assert repr(row["hc_val"]) == repr(_possible(JAVA_NUMBERS[position - 1], None))
        assert repr(row["pr_val"]) == repr(_possible(JAVA_NUMBERS[-position], 1.0))
        assert (row["hc_pos"], row["pr_pos"]) == (position, position)
    assert rows[0]["hc_val"] == 34626736.0
    assert rows[4]["hc_val"] == 3.794876113587071e-4
    assert rows[10]["hc_val"] == 0.0 and math.copysign(1, rows[10]["hc_val"]) == -1  # -0.0
    assert rows[15]["hc_val"] == 1.7976931348623157e308
    assert rows[17]["hc_val"] is None and rows[18]["hc_val"] is None  # NaN, Infinity
    # nulled, not rejected: each impossible value counted by reason
    assert dict(report.nulled) == {
        "non_finite_hc_val": 3,  # NaN, Infinity, -Infinity
        "out_of_range_hc_val": 2,  # -1.5E-3, -2.5E10
        "non_finite_pr_val": 3,
        "out_of_range_pr_val": 2 + 6,  # the negatives; the four E7s, 134.08333 and the max
    }


def test_both_paths_accept_the_same_number_spellings(tmp_path: Path):
    """Spellings Java does not write but Arrow's parser takes: the careful path must agree."""
    spellings = ["inf", "INF", "-inf", "+Infinity", "nan", "NAN", "nAn", "+1.5", ".5", "1.", "1e5"]
    lines = [HOST_HEADER]
    for position, text in enumerate(spellings, start=1):
        lines.append(f"{position}\t{text}\t{position}\t0.5\tcom.h{position}")
    clean = _write(tmp_path / "clean.txt.gz", lines)
    forced = _write(tmp_path / "forced.txt.gz", [*lines, BAD_RANKS_LINE])
    fast_rows, _, fast_resets = _read(clean)
    careful_rows, careful, careful_resets = _read(forced)
    assert (fast_resets, careful_resets) == (0, 1)
    assert [repr(row["hc_val"]) for row in careful_rows] == [
        repr(row["hc_val"]) for row in fast_rows
    ]
    assert [repr(row["hc_val"]) for row in fast_rows] == [
        repr(_possible(t, None)) for t in spellings
    ]
    assert dict(careful.rejected) == {"malformed_host_rev": 1}
    assert dict(careful.nulled) == {"non_finite_hc_val": 7}


@pytest.mark.parametrize("careful", [False, True], ids=["fast", "careful"])
def test_three_dashes_are_missing_positions_and_values(tmp_path: Path, careful: bool):
    lines = [
        HOST_HEADER,
        "1\t3.4626736E7\t3\t0.005384977821460953\tcom.facebook",
        "2\t---\t1\t0.008634952900502719\tcom.google",
        "3\t2.337092E7\t---\t---\tbe.youtu",
        "---\t---\t2\t3.794876113587071E-4\tcom.example.sub",
    ]
    path = _write(tmp_path / "r.txt.gz", lines + ([BAD_RANKS_LINE] if careful else []))
    rows, report, resets = _read(path)
    assert resets == int(careful)
    assert [(r["hc_pos"], r["hc_val"], r["pr_pos"], r["pr_val"]) for r in rows] == [
        (1, 34626736.0, 3, 0.005384977821460953),
        (2, None, 1, 0.008634952900502719),
        (3, 23370920.0, None, None),
        (None, None, 2, 3.794876113587071e-4),
    ]
    assert report.written == 4


def test_reversed_hosts_become_surt_keys_in_the_lake(tmp_path: Path):
    ranks = _write(
        tmp_path / "r.txt.gz",
        [HOST_HEADER, _ranks_line(1, "com.example.sub"), _ranks_line(2, "uk.co.bbc.www-news")],
    )
    vertices = _write(tmp_path / "v.txt.gz", ["0\tcom.example.sub", "1\tva", "2\tde.xn--bcher-kva"])
    lake = tmp_path / "lake"
    ingest_graph(RELEASE, lake, ranks=ranks, vertices=[vertices])
    assert [row["surt_host_name"] for row in _lake_rows(lake, "host_ranks")] == [
        "com,example,sub",
        "uk,co,bbc,www-news",
    ]
    assert _lake_rows(lake, "host_vertices") == [
        {"vertex_id": 0, "surt_host_name": "com,example,sub"},
        {"vertex_id": 1, "surt_host_name": "va"},
        {"vertex_id": 2, "surt_host_name": "de,xn--bcher-kva"},
    ]


# ----------------------------------------------------------------------- malformed lines

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
    monkeypatch.setattr("ingest.lake._EXAMPLES", 10_000)  # keep every rejected line
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


# ----------------------------------------------------------------------- fast and careful paths


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


# ----------------------------------------------------------------------- into the lake


def test_too_many_rejects_fail_the_file_and_publish_nothing(tmp_path: Path):
    lines = [HOST_HEADER] + [_ranks_line(position) for position in range(1, 101)]
    lines[50] = BAD_RANKS_LINE
    path = _write(tmp_path / "r.txt.gz", lines)
    lake = tmp_path / "lake"
    with pytest.raises(LakeError, match=r"1 of 100 records rejected .*:51: malformed_host_rev"):
        ingest_graph(RELEASE, lake, ranks=path, max_reject_rate=0.001, block_size=256)
    assert not list((lake / "host_ranks").rglob("*.parquet"))
    assert not list(lake.rglob("*.tmp"))
    assert manifest_rows(lake, "host_ranks") == []
    # at a looser rate the same file goes in, its rejected line counted
    (row,) = ingest_graph(RELEASE, lake, ranks=path, max_reject_rate=0.01, block_size=256)
    assert (row["records_read"], row["records_written"], row["records_rejected"]) == (100, 99, 1)
    assert len(_lake_rows(lake, "host_ranks")) == 99


def test_same_file_again_is_skipped(tmp_path: Path):
    ranks = _write(tmp_path / "r.txt.gz", [HOST_HEADER, _ranks_line(1), _ranks_line(2)])
    vertices = _write(tmp_path / "v.txt.gz", ["0\tcom.a", "1\tcom.b"])
    edges = _write(tmp_path / "e.txt.gz", ["0\t1"])
    lake = tmp_path / "lake"
    first = ingest_graph(RELEASE, lake, ranks=ranks, vertices=[vertices], edges=[edges])
    assert [row["lake_table"] for row in first] == ["host_ranks", "host_vertices", "host_edges"]
    before = _snapshot(lake)
    again = ingest_graph(
        RELEASE, lake, ranks=ranks, vertices=[vertices, vertices], edges=[edges], replace=True
    )
    assert again == []
    assert _snapshot(lake) == before
    assert len(_lake_rows(lake, "host_ranks")) == 2
    assert len(_lake_rows(lake, "host_vertices")) == 2
    assert len(_lake_rows(lake, "host_edges")) == 1


def test_a_second_ranks_file_for_a_release_needs_replace(tmp_path: Path):
    old = _write(tmp_path / "old.txt.gz", [HOST_HEADER, _ranks_line(1, "com.old"), _ranks_line(2)])
    new = _write(tmp_path / "new.txt.gz", [HOST_HEADER, _ranks_line(1, "com.new")])
    lake = tmp_path / "lake"
    ingest_graph(RELEASE, lake, ranks=old)
    with pytest.raises(LakeError, match=r"has ranks from .*old\.txt\.gz already; pass --replace"):
        ingest_graph(RELEASE, lake, ranks=new)
    assert [r["surt_host_name"] for r in _lake_rows(lake, "host_ranks")] == ["com,old", "com,h2"]

    (row,) = ingest_graph(RELEASE, lake, ranks=new, replace=True)
    assert row["source_file"] == str(new.resolve())
    assert [r["surt_host_name"] for r in _lake_rows(lake, "host_ranks")] == ["com,new"]
    assert [Path(r["source_file"]).name for r in manifest_rows(lake, "host_ranks")] == [
        "new.txt.gz"
    ]
    parts = list((lake / "host_ranks").rglob("*.parquet"))
    assert [str(part.relative_to(lake)) for part in parts] == row["output_files"]
    # another release takes its own ranks file without --replace
    ingest_graph("cc-main-2024-25-nov-dec-jan", lake, ranks=old)
    assert len(manifest_rows(lake, "host_ranks")) == 2


def test_a_replacement_that_fails_keeps_the_old_ranks(tmp_path: Path):
    old = _write(tmp_path / "old.txt.gz", [HOST_HEADER, _ranks_line(1, "com.old")])
    bad = _write(tmp_path / "bad.txt.gz", [HOST_HEADER, _ranks_line(1), BAD_RANKS_LINE])
    lake = tmp_path / "lake"
    ingest_graph(RELEASE, lake, ranks=old)
    with pytest.raises(LakeError, match="1 of 2 records rejected"):
        ingest_graph(RELEASE, lake, ranks=bad, replace=True)
    assert [r["surt_host_name"] for r in _lake_rows(lake, "host_ranks")] == ["com,old"]
    assert len(list((lake / "host_ranks").rglob("*.parquet"))) == 1


def test_the_same_vertices_file_serves_two_releases(tmp_path: Path):
    vertices = _write(tmp_path / "v.txt.gz", ["0\tcom.a", "1\tcom.b", "2\tcom.c"])
    lake = tmp_path / "lake"
    (first,) = ingest_graph(GRAPH_RELEASES[0], lake, vertices=[vertices])
    (second,) = ingest_graph(GRAPH_RELEASES[1], lake, vertices=[vertices])
    assert first["source_sha256"] == second["source_sha256"]
    assert first["part_key"] != second["part_key"]
    assert sorted(row["release"] for row in manifest_rows(lake, "host_vertices")) == sorted(
        GRAPH_RELEASES
    )
    for release in GRAPH_RELEASES:
        assert (lake / "host_vertices" / f"release={release}").is_dir()
        assert [r["surt_host_name"] for r in _lake_rows(lake, "host_vertices", release)] == [
            "com,a",
            "com,b",
            "com,c",
        ]
    assert ingest_graph(GRAPH_RELEASES[1], lake, vertices=[vertices]) == []


@pytest.mark.parametrize("release", GRAPH_RELEASES)
def test_tiny_crawl_graph_round_trips_exactly(tiny_crawl: Crawl, tmp_path: Path, release: str):
    files = _release_files(tiny_crawl, release)
    lake = tmp_path / "lake"
    rows = ingest_graph(
        release,
        lake,
        ranks=files["ranks"],
        vertices=[files["vertices"]],
        edges=[files["edges"]],
        block_size=4096,  # several blocks
    )
    assert [row["records_rejected"] for row in rows] == [0, 0, 0]

    raw_ranks = _raw_lines(files["ranks"])
    assert "\t".join(raw_ranks[0]) == HOST_HEADER
    expected_ranks = [
        {
            "surt_host_name": host.replace(".", ","),
            "hc_pos": int(hc_pos),
            "hc_val": float(hc_val),
            "pr_pos": int(pr_pos),
            "pr_val": float(pr_val),
        }
        for hc_pos, hc_val, pr_pos, pr_val, host in raw_ranks[1:]
    ]
    assert _lake_rows(lake, "host_ranks") == expected_ranks
    assert len(expected_ranks) == tiny_crawl.truth["hosts"]["graph_host_count"]

    expected_vertices = [
        {"vertex_id": int(vertex), "surt_host_name": host.replace(".", ",")}
        for vertex, host in _raw_lines(files["vertices"])
    ]
    assert _lake_rows(lake, "host_vertices") == expected_vertices
    expected_edges = [
        {"from_vertex_id": int(source), "to_vertex_id": int(target)}
        for source, target in _raw_lines(files["edges"])
    ]
    assert _lake_rows(lake, "host_edges") == expected_edges
    edge_counts = tiny_crawl.truth["graph"]["edge_counts"]
    assert len(expected_edges) == edge_counts[GRAPH_RELEASES.index(release)]

    for row, table in zip(rows, ("host_ranks", "host_vertices", "host_edges"), strict=True):
        assert row["release"] == release and row["lake_table"] == table
        assert row["records_read"] == row["records_written"] == len(_lake_rows(lake, table))
        (part,) = row["output_files"]
        assert part == f"{table}/release={release}/part-{row['part_key']}.parquet"
        assert pq.read_schema(lake / part) == schemas.TABLES[table][0]


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
    header_only = _write(tmp_path / "r.txt.gz", [HOST_HEADER])
    lake = tmp_path / "lake"
    rows = ingest_graph(RELEASE, lake, ranks=header_only, vertices=[empty], edges=[empty_gz])
    assert [(row["records_read"], row["output_files"]) for row in rows] == [(0, [])] * 3
    assert len(manifest_rows(lake, "host_edges")) == 1
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


def test_crash_before_the_manifest_is_redone_on_the_next_run(tmp_path, monkeypatch):
    ranks = _write(tmp_path / "r.txt.gz", [HOST_HEADER, _ranks_line(1), _ranks_line(2)])
    lake = tmp_path / "lake"

    def crash(*args, **kwargs):
        raise KeyboardInterrupt("killed before the commit")

    monkeypatch.setattr("ingest.webgraph.commit_manifest", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest_graph(RELEASE, lake, ranks=ranks)
    assert len(list((lake / "host_ranks").rglob("part-*.parquet"))) == 1  # published ...
    assert manifest_rows(lake, "host_ranks") == []  # ... not committed
    leftover = lake / "host_ranks" / f"release={RELEASE}" / ".part-0123.999.tmp"
    leftover.write_bytes(b"half a part")
    monkeypatch.undo()
    (row,) = ingest_graph(RELEASE, lake, ranks=ranks)
    assert row["records_written"] == 2
    assert len(_lake_rows(lake, "host_ranks")) == 2
    assert len(list((lake / "host_ranks").rglob("part-*.parquet"))) == 1
    assert not leftover.exists()


@pytest.mark.parametrize("release", ["", "a/b", "x=y", "_", "has space"])
def test_bad_release_names_are_refused(tmp_path: Path, release: str):
    ranks = _write(tmp_path / "r.txt.gz", [HOST_HEADER, _ranks_line(1)])
    with pytest.raises(LakeError, match="not a graph release name"):
        ingest_graph(release, tmp_path / "lake", ranks=ranks)


def test_nothing_to_ingest_and_missing_files_are_refused(tmp_path: Path):
    with pytest.raises(LakeError, match="nothing to ingest"):
        ingest_graph(RELEASE, tmp_path / "lake")
    with pytest.raises(LakeError, match="no such file"):
        ingest_graph(RELEASE, tmp_path / "lake", edges=[tmp_path / "missing.txt.gz"])


def test_schema_files_are_written_for_every_table(tmp_path: Path):
    edges = _write(tmp_path / "e.txt.gz", ["0\t1"])
    lake = tmp_path / "lake"
    ingest_graph(RELEASE, lake, edges=[edges])
    for table, (schema, partition) in schemas.TABLES.items():
        empty = pq.read_table(lake / "_schemas" / table / f"{partition}=_" / "empty.parquet")
        assert empty.num_rows == 0 and empty.schema == schema
    manifest = pq.read_table(lake / "_schemas" / "_manifest" / "empty.parquet")
    assert manifest.schema == schemas.MANIFEST


# ----------------------------------------------------------------------- releases and listings


def test_a_release_the_seed_lacks_is_refused_in_one_line_before_the_lake_is_touched(
    tmp_path: Path, capsys
):
    ranks = _write(tmp_path / "r.txt.gz", [HOST_HEADER, _ranks_line(1)])
    lake = tmp_path / "lake"
    argv = ["graph", "--release", "cc-main-2099-adversarial", "--ranks", str(ranks)]
    assert main([*argv, "--lake", str(lake)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert error.startswith(
        "python -m ingest graph: error: unknown graph release 'cc-main-2099-adversarial': "
        f"add its row to {GRAPH_RELEASES_CSV} (release,first_crawl,last_crawl,crawls,"
    )
    assert not lake.exists()
    # the name cc-webgraph-statistics shows for the first release is not graphinfo's id
    with pytest.raises(LakeError, match="unknown graph release 'cc-main-2017-feb-mar-apr'"):
        ingest_graph("cc-main-2017-feb-mar-apr", lake, ranks=ranks)


def _seed_with(tmp_path: Path, *rows: str) -> Path:
    seed = tmp_path / "graph_releases.csv"
    seed.write_text(GRAPH_RELEASES_CSV.read_text() + "".join(f"{row}\n" for row in rows))
    return seed


def test_a_row_added_to_the_seed_makes_its_release_known(tmp_path: Path):
    ranks = _write(tmp_path / "r.txt.gz", [HOST_HEADER, _ranks_line(1), _ranks_line(2)])
    lake = tmp_path / "lake"
    release = "cc-main-2026-may-jun-jul"
    with pytest.raises(LakeError, match=f"unknown graph release '{release}'"):
        ingest_graph(release, lake, ranks=ranks)
    crawls = "CC-MAIN-2026-21;CC-MAIN-2026-25;CC-MAIN-2026-30"
    seed = _seed_with(tmp_path, f"{release},CC-MAIN-2026-21,CC-MAIN-2026-30,{crawls},")
    assert known_releases(seed)[release] == tuple(crawls.split(";"))
    (row,) = ingest_graph(release, lake, ranks=ranks, releases_csv=seed)
    assert (row["release"], row["records_written"]) == (release, 2)
    assert [r["surt_host_name"] for r in _lake_rows(lake, "host_ranks", release)] == [
        "com,h1",
        "com,h2",
    ]


@pytest.mark.parametrize(
    ("row", "why"),
    [
        (
            "cc-main-x,CC-MAIN-2026-21,CC-MAIN-2026-21,CC-MAIN-2026-99,",
            "not a crawl id: 'CC-MAIN-2026-99'",
        ),
        (
            "cc-main-x,CC-MAIN-2026-21,CC-MAIN-2026-21,CC-MAIN-26-21,",
            "not a crawl id: 'CC-MAIN-26-21'",
        ),
        (
            "cc-main-x,CC-MAIN-2026-21,CC-MAIN-2026-25,CC-MAIN-2026-25;CC-MAIN-2026-21,",
            "time order",
        ),
        (
            "cc-main-x,CC-MAIN-2026-17,CC-MAIN-2026-25,CC-MAIN-2026-21;CC-MAIN-2026-25,",
            "first_crawl",
        ),
        ("cc-main-2024-nov-feb-apr,CC-MAIN-2024-18,CC-MAIN-2024-18,CC-MAIN-2024-18,", "twice"),
        ("cc-main-x,CC-MAIN-2026-21,CC-MAIN-2026-21", "not a crawl id: ''"),
    ],
    ids=["week-99", "short-year", "unordered", "wrong-ends", "duplicate", "no-crawls"],
)
def test_a_malformed_seed_row_is_named_by_its_line(tmp_path: Path, row: str, why: str):
    seed = _seed_with(tmp_path, row)
    line = len(seed.read_text().splitlines())
    ranks = _write(tmp_path / "r.txt.gz", [HOST_HEADER, _ranks_line(1)])
    with pytest.raises(LakeError, match=rf"graph_releases\.csv:{line}: release '[^']+': .*{why}"):
        ingest_graph("cc-main-x", tmp_path / "lake", ranks=ranks, releases_csv=seed)


def _listing(path: Path, lines: list[str]) -> Path:
    path.write_bytes(gzip.compress("".join(f"{line}\n" for line in lines).encode()))
    return path


LISTED = [
    "projects/hyperlinkgraph/cc-main-2024-nov-feb-apr/host/vertices/"
    "part-00000-6c2a8f40-2d1c-4b5e-9a40-3b1f1f0f6a11-c000.txt.gz",
    "projects/hyperlinkgraph/cc-main-2024-nov-feb-apr/host/vertices/"
    "part-00001-6c2a8f40-2d1c-4b5e-9a40-3b1f1f0f6a11-c000.txt.gz",
]


@pytest.mark.parametrize("kind", ["ranks", "vertices", "edges"])
def test_a_paths_listing_is_refused_by_its_name(tmp_path: Path, kind: str):
    path = _listing(tmp_path / f"cc-main-2024-nov-feb-apr-host-{kind}.paths.gz", LISTED)
    lake = tmp_path / "lake"
    arguments = {"ranks": path} if kind == "ranks" else {kind: [path]}
    with pytest.raises(LakeError, match=r"host-\w+\.paths\.gz: a \*\.paths\.gz listing of files"):
        ingest_graph(RELEASE, lake, **arguments)
    assert not lake.exists()


@pytest.mark.parametrize("kind", ["ranks", "vertices", "edges"])
@pytest.mark.parametrize(
    "prefix",
    ["", "https://data.commoncrawl.org/", "s3://commoncrawl/"],
    ids=["path", "https", "s3"],
)
def test_a_paths_listing_under_another_name_is_refused_by_its_first_line(
    tmp_path: Path, kind: str, prefix: str
):
    path = _listing(tmp_path / "downloaded.txt.gz", [prefix + line for line in LISTED])
    text_format = {"ranks": RANKS, "vertices": VERTICES, "edges": EDGES}[kind]
    with pytest.raises(
        LakeError,
        match=rf"downloaded\.txt\.gz:1: a listing of files to download \('{re.escape(prefix)}"
        rf"projects/hyperlinkgraph/.*'\), not {kind} data",
    ):
        _read(path, text_format)
    lake = tmp_path / "lake"
    arguments = {"ranks": path} if kind == "ranks" else {kind: [path]}
    with pytest.raises(LakeError, match="a listing of files to download"):
        ingest_graph(RELEASE, lake, **arguments)
    table = f"host_{kind}"
    assert manifest_rows(lake, table) == []
    assert not list((lake / table).rglob("part-*.parquet"))
