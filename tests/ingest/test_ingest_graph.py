"""`ingest.webgraph`: one release's graph files into the lake: skipping, replacing, round trips,
crashes, release names and the releases seed, `*.paths.gz` listings.

The reading of the lines themselves is tested in `test_graph_headers_and_numbers.py`,
`test_graph_bad_lines.py` and `test_graph_file_damage.py`. References are plain Python
(`gzip`, `str.split`, `float`), never the code under test.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

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
    ingest_graph,
    known_releases,
)
from tests.fixtures.crawls import Crawl
from tests.ingest.graph_files import (
    BAD_RANKS_LINE,
    RELEASE,
    _lake_rows,
    _ranks_line,
    _raw_lines,
    _read,
    _release_files,
    _snapshot,
    _write,
)


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


def test_crash_before_the_manifest_is_redone_on_the_next_run(tmp_path, monkeypatch):
    ranks = _write(tmp_path / "r.txt.gz", [HOST_HEADER, _ranks_line(1), _ranks_line(2)])
    lake = tmp_path / "lake"

    def crash(*args, **kwargs):
        raise KeyboardInterrupt("killed before the commit")

    monkeypatch.setattr("ingest.lake_manifest.commit_manifest", crash)
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
