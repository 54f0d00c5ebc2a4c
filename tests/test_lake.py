"""`ingest.lake`: the write protocol every lake ingest shares."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ingest import schemas
from ingest.lake import (
    IngestReport,
    LakeError,
    PartWriter,
    commit_manifest,
    expand_inputs,
    file_key,
    manifest_rows,
    remove_leftovers,
    sha256_of,
    uncommit,
    write_schema_files,
)

KEY = "0123456789abcdef0123"


def _edges(*pairs: tuple[int, int]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist(
        [{"from_vertex_id": a, "to_vertex_id": b} for a, b in pairs], schema=schemas.HOST_EDGES
    )


def test_part_writer_writes_under_temporary_names_then_publishes(tmp_path: Path):
    with PartWriter(tmp_path, "host_edges", KEY, schemas.HOST_EDGES, "release") as writer:
        writer.write("r1", _edges((0, 1), (1, 2)))
        writer.write("r2", _edges((5, 6)))
        writer.write("r1", pa.Table.from_batches([_edges((2, 3))]))
        writer.write("r1", _edges())  # nothing
        writer._stop()  # let the background thread catch up, as publish() does first
        temporary = sorted(path.name for path in tmp_path.rglob("*") if path.is_file())
        assert temporary == [f".part-{KEY}.{os.getpid()}.tmp"] * 2
        assert writer.written == 4 and dict(writer.rows) == {"r1": 3, "r2": 1}
        published = writer.publish()
    assert published == [
        f"host_edges/release=r1/part-{KEY}.parquet",
        f"host_edges/release=r2/part-{KEY}.parquet",
    ]
    assert pq.read_table(tmp_path / published[0]).to_pylist() == [
        {"from_vertex_id": 0, "to_vertex_id": 1},
        {"from_vertex_id": 1, "to_vertex_id": 2},
        {"from_vertex_id": 2, "to_vertex_id": 3},
    ]
    assert pq.read_table(tmp_path / published[1]).num_rows == 1
    assert not list(tmp_path.rglob("*.tmp"))


def test_part_writer_discards_its_temporary_parts_on_an_exception(tmp_path: Path):
    with (
        pytest.raises(ValueError, match="parse error"),
        PartWriter(tmp_path, "host_edges", KEY, schemas.HOST_EDGES, "release") as writer,
    ):
        writer.write("r1", _edges((0, 1)))
        raise ValueError("parse error")
    assert not [path for path in tmp_path.rglob("*") if path.is_file()]
    assert writer.written == 0


def test_part_writer_refuses_another_schema(tmp_path: Path):
    other = pa.RecordBatch.from_pylist([{"from_vertex_id": 1}])
    with (
        pytest.raises(LakeError, match="batch schema differs"),
        PartWriter(tmp_path, "host_edges", KEY, schemas.HOST_EDGES, "release") as writer,
    ):
        writer.write("r1", other)


def test_a_failure_in_the_writer_thread_reaches_the_caller(tmp_path: Path):
    (tmp_path / "host_edges").write_text("a file where a folder belongs")
    with (
        pytest.raises(OSError),
        PartWriter(tmp_path, "host_edges", KEY, schemas.HOST_EDGES, "release") as writer,
    ):
        writer.write("r1", _edges((0, 1)))
        writer.publish()


def test_manifest_commit_read_and_uncommit(tmp_path: Path):
    source = tmp_path / "input.txt"
    source.write_text("0\t1\n")
    sha = sha256_of(source)
    assert len(sha) == 64 and file_key(sha) == sha[:20]
    with PartWriter(tmp_path, "host_edges", file_key(sha), schemas.HOST_EDGES, "release") as w:
        w.write("r1", _edges((0, 1)))
        outputs = w.publish()
    report = IngestReport(source, read=3, written=1)
    report.reject("malformed_to_vertex_id", 2, "0\tx")
    report.reject("wrong_column_count", 3, "0", count=1)
    report.drift.append("a note")
    started = datetime(2024, 1, 2, tzinfo=UTC)
    row = commit_manifest(tmp_path, "host_edges", report, sha, outputs, started, release="r1")
    assert (tmp_path / "_manifest" / "host_edges" / f"{file_key(sha)}.parquet").is_file()
    (stored,) = manifest_rows(tmp_path, "host_edges")
    assert stored["source_file"] == str(source.resolve()) == row["source_file"]
    assert stored["source_size_bytes"] == 4
    assert (stored["records_read"], stored["records_written"], stored["records_rejected"]) == (
        3,
        1,
        2,
    )
    assert stored["rejected_by_reason"] == [
        ("malformed_to_vertex_id", 1),
        ("wrong_column_count", 1),
    ]
    assert stored["rejected_examples"][0] == f"{source}:2: malformed_to_vertex_id: '0\\tx'"
    assert stored["schema_drift"] == ["a note"]
    assert stored["output_files"] == outputs and stored["part_key"] == file_key(sha)
    assert stored["started_at"] == started and stored["finished_at"] >= started
    assert manifest_rows(tmp_path, "host_ranks") == []

    uncommit(tmp_path, "host_edges", stored)
    assert manifest_rows(tmp_path, "host_edges") == []
    assert not (tmp_path / outputs[0]).exists()


def test_remove_leftovers_only_touches_temporary_files(tmp_path: Path):
    part = tmp_path / "host_index" / "crawl=CC-MAIN-2024-10"
    part.mkdir(parents=True)
    (part / ".part-abc.12.tmp").write_text("x")
    (part / "part-abc.parquet").write_text("kept")
    manifest = tmp_path / "_manifest" / "host_index"
    manifest.mkdir(parents=True)
    (manifest / ".abc.12.tmp").write_text("x")
    (manifest / "abc.parquet").write_text("kept")
    other = tmp_path / "documents" / "crawl=X"
    other.mkdir(parents=True)
    (other / ".part-abc.12.tmp").write_text("another table's")
    remove_leftovers(tmp_path, ["host_index"])
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()) == [
        "_manifest/host_index/abc.parquet",
        "documents/crawl=X/.part-abc.12.tmp",
        "host_index/crawl=CC-MAIN-2024-10/part-abc.parquet",
    ]


def test_schema_files(tmp_path: Path):
    write_schema_files(tmp_path)
    write_schema_files(tmp_path)  # idempotent
    empty = pq.read_table(tmp_path / "_schemas" / "host_index" / "crawl=_" / "empty.parquet")
    assert empty.num_rows == 0 and empty.schema == schemas.HOST_INDEX
    ranks = pq.read_table(tmp_path / "_schemas" / "host_ranks" / "release=_" / "empty.parquet")
    assert ranks.schema == schemas.HOST_RANKS
    assert not list(tmp_path.rglob("*.tmp"))


def test_ingest_report_books_must_balance():
    report = IngestReport(Path("f"), read=10, written=9)
    with pytest.raises(LakeError, match=r"read 10 != written 9 \+ rejected 0 \(a bug"):
        report.check(1.0)
    report.reject("bad", 4, "text")
    report.check(0.1)  # exactly at the rate is fine
    with pytest.raises(LakeError, match=r"f: 1 of 10 records rejected \(more than"):
        report.check(0.09)
    IngestReport(Path("empty")).check(0.0)


def test_ingest_report_keeps_ten_examples_but_counts_all():
    report = IngestReport(Path("f"))
    for line in range(25):
        report.reject("bad", line, "x" * 500)
    report.reject("worse", 99, "y", count=5)
    assert report.rejected_count == 30 and dict(report.rejected) == {"bad": 25, "worse": 5}
    assert len(report.examples) == 10
    assert report.examples[0] == "f:0: bad: " + repr("x" * 160)


def test_expand_inputs(tmp_path: Path):
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    for name in ("a.txt.gz", "b.txt.gz", "sub/c.txt.gz", ".hidden", "sub/.hidden.tmp"):
        (folder / name).write_text("x")
    found = expand_inputs([str(folder), str(folder / "*.gz"), str(folder / "a.txt.gz")])
    assert [path.relative_to(folder).as_posix() for path in found] == [
        "a.txt.gz",
        "b.txt.gz",
        "sub/c.txt.gz",
    ]
    assert expand_inputs([str(folder / "**" / "c.*")]) == [folder / "sub" / "c.txt.gz"]
    with pytest.raises(LakeError, match=r"no input file matches '.*nothing\*'"):
        expand_inputs([str(folder / "a.txt.gz"), str(folder / "nothing*")])
    with pytest.raises(LakeError, match="no input file matches"):
        expand_inputs([str(tmp_path / "empty-folder-that-does-not-exist")])
