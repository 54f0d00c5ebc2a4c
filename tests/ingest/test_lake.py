"""`ingest.lake`: the write protocol every lake ingest shares."""

from __future__ import annotations

import errno
import logging
import os
import subprocess
import sys
import time
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
    commit_parts,
    committed_parts,
    expand_inputs,
    file_key,
    manifest_rows,
    missing_parts,
    new_inputs,
    remove_leftovers,
    sha256_of,
    table_lock,
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


def test_finished_parts_are_handed_back_then_renamed_and_committed_in_that_order(tmp_path: Path):
    source = tmp_path / "input.txt"
    source.write_text("0\t1\n")
    sha = sha256_of(source)
    with PartWriter(tmp_path, "host_edges", file_key(sha), schemas.HOST_EDGES, "release") as w:
        w.write("r2", _edges((5, 6)))
        w.write("r1", _edges((0, 1), (1, 2)))
        finished = w.finish()
        w.discard()  # the writer no longer owns what it handed back
    assert [(part.final, part.rows) for part in finished] == [
        (f"host_edges/release=r1/part-{file_key(sha)}.parquet", 2),
        (f"host_edges/release=r2/part-{file_key(sha)}.parquet", 1),
    ]
    assert all(part.temporary.is_file() for part in finished)
    assert (
        not list(tmp_path.rglob("part-*.parquet")) and manifest_rows(tmp_path, "host_edges") == []
    )
    report = IngestReport(source, read=3, written=3)
    started = datetime.now(UTC)
    row = commit_parts(tmp_path, "host_edges", report, sha, finished, started, release="r1")
    assert row["output_files"] == [part.final for part in finished]
    assert not any(part.temporary.exists() for part in finished)
    assert sorted(committed_parts(tmp_path)) == row["output_files"]
    assert pq.read_table(tmp_path / row["output_files"][0]).num_rows == 2


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


def _commit(lake: Path, source: Path, table: str = "host_edges", release: str = "r1") -> dict:
    """One input file committed to ``table`` (one edge), through the protocol's own steps."""
    sha = sha256_of(source)
    with PartWriter(lake, table, file_key(sha), schemas.HOST_EDGES, "release") as writer:
        writer.write(release, _edges((0, 1)))
        outputs = writer.publish()
    report = IngestReport(source, read=1, written=1)
    return commit_manifest(lake, table, report, sha, outputs, datetime.now(UTC), release=release)


def test_remove_leftovers_removes_temporary_files_and_orphan_parts_only(tmp_path: Path):
    source = tmp_path / "input.txt"
    source.write_text("0\t1\n")
    lake = tmp_path / "lake"
    row = _commit(lake, source)
    (committed,) = row["output_files"]
    part = (lake / committed).parent
    (part / ".part-abc.12.tmp").write_text("x")
    (part / "part-abc.parquet").write_text("renamed into place, never committed")
    elsewhere = lake / "host_edges" / "release=r2" / f"part-{row['part_key']}.parquet"
    elsewhere.parent.mkdir()
    elsewhere.write_text("the committed key, but not a committed path")
    manifest = lake / "_manifest" / "host_edges"
    (manifest / ".abc.12.tmp").write_text("x")
    other = lake / "host_ranks" / "release=X"
    other.mkdir(parents=True)
    (other / ".part-abc.12.tmp").write_text("another table's")
    (other / "part-abc.parquet").write_text("another table's")
    remove_leftovers(lake, ["host_edges"])
    assert sorted(str(p.relative_to(lake)) for p in lake.rglob("*") if p.is_file()) == sorted(
        [
            f"_manifest/host_edges/{row['part_key']}.parquet",
            committed,
            "host_ranks/release=X/.part-abc.12.tmp",
            "host_ranks/release=X/part-abc.parquet",
        ]
    )
    assert committed_parts(lake) == {committed: manifest_rows(lake, "host_edges")[0]}


def test_an_unreadable_manifest_row_is_an_error_naming_it(tmp_path: Path):
    manifest = tmp_path / "_manifest" / "host_index"
    manifest.mkdir(parents=True)
    (manifest / "abc.parquet").write_text("not parquet")
    with pytest.raises(LakeError, match=r"_manifest/host_index/abc\.parquet.*unreadable"):
        manifest_rows(tmp_path, "host_index")


def test_the_manifest_records_part_sizes_and_missing_parts_are_found(tmp_path: Path):
    source = tmp_path / "input.txt"
    source.write_text("0\t1\n")
    row = _commit(tmp_path, source)
    (relative,) = row["output_files"]
    assert row["output_sizes"] == [(tmp_path / relative).stat().st_size]
    assert missing_parts(tmp_path, row) == []
    with (tmp_path / relative).open("ab") as handle:
        handle.write(b"x")
    assert missing_parts(tmp_path, row) == [relative]
    (tmp_path / relative).unlink()
    assert missing_parts(tmp_path, row) == [relative]
    assert missing_parts(tmp_path, {**row, "output_sizes": None}) == [relative]


def test_new_inputs_skips_same_content_and_committed_files(tmp_path: Path, caplog):
    lake = tmp_path / "lake"
    first = tmp_path / "a.txt"
    first.write_text("0\t1\n")
    copy = tmp_path / "copy.txt"
    copy.write_text("0\t1\n")
    other = tmp_path / "b.txt"
    other.write_text("1\t2\n")
    with caplog.at_level(logging.WARNING):
        todo = new_inputs(lake, "host_edges", [first, copy, first, other])
    assert [path for path, _ in todo] == [first, other]
    assert f"{copy}: the same content as {first}, ingested once" in caplog.text
    _commit(lake, first)
    assert [path for path, _ in new_inputs(lake, "host_edges", [copy, other])] == [other]


def test_new_inputs_refuses_another_crawl_unless_replace(tmp_path: Path):
    lake = tmp_path / "lake"
    source = tmp_path / "a.txt"
    source.write_text("0\t1\n")
    sha = sha256_of(source)
    with PartWriter(lake, "host_index", file_key(sha), schemas.HOST_EDGES, "crawl") as writer:
        writer.write("CC-MAIN-2024-10", _edges((0, 1)))
        outputs = writer.publish()
    report = IngestReport(source, read=1, written=1)
    commit_manifest(
        lake, "host_index", report, sha, outputs, datetime.now(UTC), crawl="CC-MAIN-2024-10"
    )
    same = {source: "CC-MAIN-2024-10"}
    assert new_inputs(lake, "host_index", [source], same) == []
    moved = {source: "CC-MAIN-2024-18"}
    with pytest.raises(LakeError, match=r"already in the lake as crawl CC-MAIN-2024-10.*--replace"):
        new_inputs(lake, "host_index", [source], moved)
    assert len(manifest_rows(lake, "host_index")) == 1, "a refusal changes nothing"
    assert new_inputs(lake, "host_index", [source], moved, replace=True) == [(source, sha)]
    # The old copy stays committed until the new one replaces it, in one rename.
    (old,) = manifest_rows(lake, "host_index")
    assert old["output_files"] == outputs and (lake / outputs[0]).is_file()
    with PartWriter(lake, "host_index", file_key(sha), schemas.HOST_EDGES, "crawl") as writer:
        writer.write("CC-MAIN-2024-18", _edges((0, 1)))
        parts = writer.finish()
    new = commit_parts(
        lake, "host_index", report, sha, parts, datetime.now(UTC), crawl="CC-MAIN-2024-18"
    )
    assert manifest_rows(lake, "host_index") == [new]
    assert new["output_files"] == [f"host_index/crawl=CC-MAIN-2024-18/part-{file_key(sha)}.parquet"]
    assert not (lake / outputs[0]).exists(), "the old copy's part is deleted once replaced"


def test_a_replace_that_cannot_be_written_keeps_the_old_copy_and_names_the_input(
    tmp_path: Path, monkeypatch
):
    """Finding 8: a --replace used to uncommit the old copy before writing the new one."""
    lake = tmp_path / "lake"
    source = tmp_path / "a.txt"
    source.write_text("0\t1\n")
    sha = sha256_of(source)
    old = _commit(lake, source, table="host_index", release="CC-MAIN-2024-10")
    crawls = {source: "CC-MAIN-2024-18"}
    assert new_inputs(lake, "host_index", [source], crawls, replace=True) == [(source, sha)]
    before = sorted(str(path) for path in lake.rglob("*") if path.is_file())
    with PartWriter(lake, "host_index", file_key(sha), schemas.HOST_EDGES, "crawl") as writer:
        writer.write("CC-MAIN-2024-18", _edges((0, 1), (1, 2)))
        parts = writer.finish()
    real = os.replace

    def full(source, target, *args, **kwargs):
        if "_manifest" in str(target):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(source))
        return real(source, target, *args, **kwargs)

    monkeypatch.setattr("ingest.lake_manifest.os.replace", full)
    report = IngestReport(source, read=2, written=2)
    with pytest.raises(LakeError, match=rf"{source}: cannot commit .*earlier copy stays") as error:
        commit_parts(lake, "host_index", report, sha, parts, datetime.now(UTC), crawl="X")
    assert "No space left on device" in str(error.value)
    assert manifest_rows(lake, "host_index") == [old]
    assert not missing_parts(lake, old)
    assert sorted(str(path) for path in lake.rglob("*") if path.is_file()) == before


def test_the_document_tables_keep_a_replaced_input_committed_too(tmp_path: Path):
    """The document ingest leaves a replaced input's own rows out when it looks for duplicates
    (``test_ingest_documents``), so its old copy stays committed until the new one is."""
    lake = tmp_path / "lake"
    source = tmp_path / "a.txt"
    source.write_text("0\t1\n")
    row = _commit(lake, source, table="documents", release="CC-MAIN-2024-10")
    crawls = {source: "CC-MAIN-2024-18"}
    assert len(new_inputs(lake, "documents", [source], crawls, replace=True)) == 1
    assert manifest_rows(lake, "documents") == [row]
    assert (lake / row["output_files"][0]).exists()


def test_new_inputs_redoes_a_file_whose_part_was_deleted_and_reports_others(tmp_path: Path, caplog):
    lake = tmp_path / "lake"
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("0\t1\n")
    second.write_text("1\t2\n")
    rows = [_commit(lake, first), _commit(lake, second)]
    for row in rows:
        (lake / row["output_files"][0]).unlink()
    with caplog.at_level(logging.WARNING):
        todo = new_inputs(lake, "host_edges", [first])
    assert [path for path, _ in todo] == [first]
    # the first stays committed until its new copy is; the second is reported
    assert {row["source_file"] for row in manifest_rows(lake, "host_edges")} == {
        str(first),
        str(second),
    }
    assert f"{first}: committed parts missing or changed" in caplog.text
    assert f"parts of {second} are missing or changed ({rows[1]['output_files'][0]})" in (
        caplog.text
    )


_SECOND_WRITER = """
import sys, time
from pathlib import Path
from ingest.lake import table_lock
with table_lock(Path(sys.argv[1]), ["document_scores"]):
    Path(sys.argv[2]).write_text(str(time.time()))
"""


def test_a_second_writer_of_a_table_waits_for_the_first(tmp_path: Path):
    """Synchronised on the second writer's own message, never on a sleep: on a loaded machine
    it may take any time to reach the lock, and it says so when it does."""
    lake = tmp_path / "lake"
    done = tmp_path / "second"
    log = tmp_path / "second.log"
    message = f"another ingest (pid {os.getpid()}) is writing lake table document_scores"
    with table_lock(lake, ["documents", "document_scores"]), log.open("w") as stderr:
        second = subprocess.Popen(
            [sys.executable, "-c", _SECOND_WRITER, str(lake), str(done)],
            cwd=Path(__file__).resolve().parents[2],
            stderr=stderr,
        )
        try:
            deadline = time.monotonic() + 120
            while message not in log.read_text():
                assert second.poll() is None, f"the second writer ended: {log.read_text()}"
                assert time.monotonic() < deadline, "the second writer never reached the lock"
                time.sleep(0.02)
            # It said it waits, and it cannot take the lock while this process holds it.
            assert not done.exists(), "the second writer did not wait"
            assert second.poll() is None
            holder = (lake / "_locks" / "document_scores.lock").read_text().strip()
            assert holder == str(os.getpid())
            released = time.time()
        except BaseException:
            second.kill()
            raise
    assert second.wait(timeout=60) == 0, log.read_text()
    assert float(done.read_text()) >= released


def test_a_lake_that_cannot_be_written_is_a_one_line_error(tmp_path: Path, monkeypatch):
    lake = tmp_path / "lake"
    (lake / "_locks").mkdir(parents=True)
    if os.geteuid() == 0:  # root writes through file modes: make the file system refuse

        def read_only(path, *args, **kwargs):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

        monkeypatch.setattr("ingest.lake_locks.os.open", read_only)
    else:
        lake.chmod(0o500)
        (lake / "_locks").chmod(0o500)
    try:
        with (
            pytest.raises(LakeError, match=f"cannot write to the lake {lake}: "),
            table_lock(lake, ["host_index"]),
        ):
            pass
    finally:
        lake.chmod(0o700)
        (lake / "_locks").chmod(0o700)


def test_schema_files(tmp_path: Path):
    write_schema_files(tmp_path)
    write_schema_files(tmp_path)  # idempotent
    empty = pq.read_table(tmp_path / "_schemas" / "host_index" / "crawl=_" / "empty.parquet")
    assert empty.num_rows == 0 and empty.schema == schemas.HOST_INDEX
    ranks = pq.read_table(tmp_path / "_schemas" / "host_ranks" / "release=_" / "empty.parquet")
    assert ranks.schema == schemas.HOST_RANKS
    assert not list(tmp_path.rglob("*.tmp"))


def test_schema_files_left_half_written_by_a_killed_ingest_are_removed(tmp_path: Path):
    """Finding 12: a kill while ``_schemas/`` was written left ``.empty.<pid>.tmp`` for good.

    Another table's ingest may be writing these files at the same time (its lock is not
    ours), so only a file whose pid no process has is removed.
    """
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    folder = tmp_path / "_schemas" / "host_index" / "crawl=_"
    folder.mkdir(parents=True)
    stale = folder / f".empty.{int(gone.stdout)}.tmp"
    stale.write_bytes(b"half a schema file")
    running = tmp_path / "_schemas" / "_manifest" / ".empty.1.tmp"  # pid 1 always runs
    running.parent.mkdir(parents=True)
    running.write_bytes(b"being written")
    write_schema_files(tmp_path)
    assert not stale.exists()
    assert running.read_bytes() == b"being written"
    assert sorted(path.name for path in tmp_path.rglob(".*.tmp")) == [".empty.1.tmp"]
    assert pq.read_schema(folder / "empty.parquet") == schemas.HOST_INDEX


def test_ingest_report_books_must_balance():
    report = IngestReport(Path("f"), read=10, written=9)
    with pytest.raises(LakeError, match=r"read 10 != written 9 \+ rejected 0 \(a bug"):
        report.check(1.0)
    report.reject("wrong_column_count", 4, "text")
    report.check(0.1)  # exactly at the rate is fine
    with pytest.raises(LakeError, match=r"f: 1 of 10 records rejected \(more than"):
        report.check(0.09)
    IngestReport(Path("empty")).check(0.0)


def test_ingest_report_keeps_ten_examples_but_counts_all():
    report = IngestReport(Path("f"))
    for line in range(25):
        report.reject("wrong_column_count", line, "x" * 500)
    report.reject("negative_count", 99, "y", count=5)
    assert report.rejected_count == 30
    assert dict(report.rejected) == {"wrong_column_count": 25, "negative_count": 5}
    assert len(report.examples) == 10
    assert report.examples[0] == "f:0: wrong_column_count: " + repr("x" * 160)


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
