"""`ingest.webgraph`: the header lines each graph file kind must (not) have, and the numbers read.

The reader has a fast path (Arrow's typed CSV parser) and a careful path (text, line by line,
with line numbers); most tests run both, by appending one bad line to force the careful one.
References are plain Python (`gzip`, `str.split`, `float`), never the code under test.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ingest.lake import LakeError, manifest_rows
from ingest.webgraph import (
    EDGES,
    HOST_HEADER,
    VERTICES,
    ingest_graph,
)
from tests.ingest.graph_files import (
    BAD_RANKS_LINE,
    DOMAIN_HEADER,
    RELEASE,
    _lake_rows,
    _ranks_line,
    _read,
    _write,
)


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
