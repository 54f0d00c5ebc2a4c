"""One key per host in every graph release: a `www` vertex joins its bare host.

Releases from cc-main-2025-26-nov-dec-jan on name `www.example.com` `com.example.www`, beside
`com.example` (two vertices); the warehouse keys both `com,example`. Small hand-written files
here (the real 2026 head is `test_ingest_graph_real.py`'s); expected rows are written out by
hand from the lines, never computed by the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.hosts import graph_host_key, surt_host_name
from ingest.lake import manifest_rows
from ingest.webgraph import HOST_HEADER, ingest_graph
from tests.ingest.graph_files import BAD_RANKS_LINE, RELEASE, _lake_rows, _write

# hc_pos, hc_val, pr_pos, pr_val, host: com.a.www is more central by harmonic centrality,
# com.a by PageRank; com.b.www has no bare vertex; com.www and com.c.www.www keep a `www`.
RANKS_LINES = [
    HOST_HEADER,
    "1\t9.0E6\t3\t0.2\tcom.a.www",
    "2\t8.0E6\t1\t0.4\tcom.b.www",
    "3\t7.0E6\t2\t0.3\tcom.a",
    "4\t6.0E6\t5\t0.01\tcom.www",
    "5\t5.0E6\t4\t0.05\tcom.c.www.www",
    "6\t4.0E6\t6\t0.001\tcom.c",
]


@pytest.mark.parametrize(
    ("rev_host", "url"),
    [
        ("com.facebook.www", "https://www.facebook.com/"),
        ("com.facebook", "https://facebook.com/"),
        ("com.www", "https://www.com/"),
        ("com.example.www.www", "https://www.www.example.com/"),
        ("uk.ac.ox.www", "https://www.ox.ac.uk/x"),
    ],
)
def test_a_vertex_name_keys_as_the_documents_key_its_host(rev_host: str, url: str):
    assert graph_host_key(rev_host) == surt_host_name(url)


def test_a_www_vertex_merges_with_its_bare_host_each_measure_from_its_better_vertex(
    tmp_path: Path,
):
    ranks = _write(tmp_path / "r.txt.gz", RANKS_LINES)
    (row,) = ingest_graph(RELEASE, tmp_path / "lake", ranks=ranks)
    assert _lake_rows(tmp_path / "lake", "host_ranks") == [
        # hc from com.a.www (position 1), PageRank from com.a (position 2)
        {"surt_host_name": "com,a", "hc_pos": 1, "hc_val": 9.0e6, "pr_pos": 2, "pr_val": 0.3},
        {"surt_host_name": "com,b", "hc_pos": 2, "hc_val": 8.0e6, "pr_pos": 1, "pr_val": 0.4},
        {"surt_host_name": "com,www", "hc_pos": 4, "hc_val": 6.0e6, "pr_pos": 5, "pr_val": 0.01},
        {
            "surt_host_name": "com,c,www",
            "hc_pos": 5,
            "hc_val": 5.0e6,
            "pr_pos": 4,
            "pr_val": 0.05,
        },
        {"surt_host_name": "com,c", "hc_pos": 6, "hc_val": 4.0e6, "pr_pos": 6, "pr_val": 0.001},
    ]
    # 6 lines, 5 hosts: the merged line is counted, not towards --max-reject-rate (0.1%)
    assert (row["records_read"], row["records_written"], row["records_rejected"]) == (6, 5, 1)
    assert row["rejected_by_reason"] == [("merged_www_twin", 1)]
    assert row["schema_drift"] == [
        "host names keep a leading www: 3 www vertices keyed to their bare host, 1 merged with "
        "the bare host's vertex (each measure's position and value from the vertex it ranks "
        "higher), 2 renamed (no bare vertex)"
    ]
    assert not list((tmp_path / "lake").glob(".graph-merge-*"))


def test_the_careful_path_merges_the_same_way(tmp_path: Path):
    ranks = _write(tmp_path / "r.txt.gz", [*RANKS_LINES, BAD_RANKS_LINE])
    (row,) = ingest_graph(RELEASE, tmp_path / "lake", ranks=ranks, max_reject_rate=0.5)
    rows = _lake_rows(tmp_path / "lake", "host_ranks")
    keys = [row["surt_host_name"] for row in rows]
    assert keys == ["com,a", "com,b", "com,www", "com,c,www", "com,c"]
    assert rows[0] == {
        "surt_host_name": "com,a",
        "hc_pos": 1,
        "hc_val": 9.0e6,
        "pr_pos": 2,
        "pr_val": 0.3,
    }
    assert row["rejected_by_reason"] == [("malformed_host_rev", 1), ("merged_www_twin", 1)]
    assert (row["records_read"], row["records_written"]) == (7, 5)


def test_a_missing_value_stays_with_its_position(tmp_path: Path):
    # com.d.www ranks higher by harmonic centrality but its value is missing (`---`): the
    # measure keeps its position and its null, not the other vertex's value
    lines = [HOST_HEADER, "1\t---\t2\t0.1\tcom.d.www", "2\t5.0E6\t1\t0.2\tcom.d"]
    ingest_graph(RELEASE, tmp_path / "lake", ranks=_write(tmp_path / "r.txt.gz", lines))
    assert _lake_rows(tmp_path / "lake", "host_ranks") == [
        {"surt_host_name": "com,d", "hc_pos": 1, "hc_val": None, "pr_pos": 1, "pr_val": 0.2}
    ]


def test_a_ranks_file_without_www_names_is_written_as_read(tmp_path: Path):
    lines = [HOST_HEADER, "1\t9.0E6\t2\t0.2\tcom.b", "2\t8.0E6\t1\t0.4\tcom.a.sub"]
    (row,) = ingest_graph(RELEASE, tmp_path / "lake", ranks=_write(tmp_path / "r.txt.gz", lines))
    assert [r["surt_host_name"] for r in _lake_rows(tmp_path / "lake", "host_ranks")] == [
        "com,b",
        "com,a,sub",
    ]
    assert (row["records_written"], row["rejected_by_reason"], row["schema_drift"]) == (2, [], [])


def test_vertices_keep_one_row_each_and_a_www_vertex_takes_its_bare_key(tmp_path: Path):
    vertices = _write(
        tmp_path / "v.txt.gz", ["0\tcom.a", "1\tcom.a.sub", "2\tcom.a.www", "3\tcom.b.www"]
    )
    edges = _write(tmp_path / "e.txt.gz", ["0\t3", "2\t1", "3\t2"])
    lake = tmp_path / "lake"
    vertex_row, edge_row = ingest_graph(RELEASE, lake, vertices=[vertices], edges=[edges])
    assert _lake_rows(lake, "host_vertices") == [
        {"vertex_id": 0, "surt_host_name": "com,a"},
        {"vertex_id": 1, "surt_host_name": "com,a,sub"},
        {"vertex_id": 2, "surt_host_name": "com,a"},  # www.a.com: its edges join com,a
        {"vertex_id": 3, "surt_host_name": "com,b"},
    ]
    assert vertex_row["schema_drift"] == [
        "host names keep a leading www: 2 www vertices keyed to their bare host (a host with "
        "both names has two vertex ids, and the edges of either join its one key)"
    ]
    assert _lake_rows(lake, "host_edges") == [
        {"from_vertex_id": 0, "to_vertex_id": 3},
        {"from_vertex_id": 2, "to_vertex_id": 1},
        {"from_vertex_id": 3, "to_vertex_id": 2},
    ]
    assert edge_row["schema_drift"] == []


def test_a_merge_folder_left_by_a_killed_run_is_removed(tmp_path: Path):
    lake = tmp_path / "lake"
    left = lake / ".graph-merge-x1"
    (left / "spill").mkdir(parents=True)
    (left / "unmerged.parquet").write_bytes(b"half")
    ingest_graph(RELEASE, lake, ranks=_write(tmp_path / "r.txt.gz", RANKS_LINES))
    assert not left.exists()
    assert len(manifest_rows(lake, "host_ranks")) == 1
