"""The manifest: the commit record of each input file, and what "committed" means.

Part of the lake's write protocol (:mod:`ingest.lake` describes the whole of it). An input
file's parts are committed by one row in ``_manifest/<table>/<key>.parquet``
(``schemas.MANIFEST``), written last, by rename: :func:`commit_parts` renames the finished
parts into place and then writes that row (:func:`commit_manifest`). An input ingested again
keeps the same key, so its new row replaces its old one in that one rename: the old copy stays
committed until the new one is, and its parts are deleted only after. A part is committed when
a manifest row lists its path (:func:`committed_parts`, the one definition);
:func:`remove_leftovers` deletes what is not (temporary files, orphan parts), and
:func:`prepare_tables` readies the lake for an ingest.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from hostaware.processes import is_running
from ingest import schemas
from ingest.lake_books import IngestReport, LakeError
from ingest.lake_parts import FinishedPart, file_key

__all__ = [
    "commit_manifest",
    "commit_parts",
    "committed_parts",
    "manifest_rows",
    "missing_parts",
    "prepare_tables",
    "remove_leftovers",
    "uncommit",
    "write_schema_files",
]

log = logging.getLogger(__name__)


def _manifest_folder(lake: Path, table: str) -> Path:
    return lake / "_manifest" / table


def manifest_rows(lake: Path, table: str) -> list[dict]:
    """Every committed manifest row of a lake table."""
    folder = _manifest_folder(lake, table)
    files = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    if not files:
        return []
    tables = []
    for file in files:
        try:
            tables.append(pq.read_table(file, schema=schemas.MANIFEST))
        except (OSError, pa.ArrowException) as error:
            raise LakeError(
                f"{file}: manifest row unreadable ({error}); the lake was changed by hand: "
                "delete that file and ingest its input again"
            ) from None
    return pa.concat_tables(tables).to_pylist()


def commit_manifest(
    lake: Path,
    table: str,
    report: IngestReport,
    sha256: str,
    output_files: list[str],
    started_at: datetime,
    crawl: str | None = None,
    release: str | None = None,
    key: str | None = None,
) -> dict:
    """Write the manifest row that commits one input file's parts; return it.

    ``key`` names the parts and the manifest file; it defaults to :func:`file_key` of the
    checksum.
    """
    key = key or file_key(sha256)
    row = {
        "source_file": str(report.path.resolve()),
        "source_size_bytes": report.path.stat().st_size,
        "source_sha256": sha256,
        "lake_table": table,
        "part_key": key,
        "crawl": crawl,
        "release": release,
        "records_read": report.read,
        "records_written": report.written,
        "records_rejected": report.rejected_count,
        "rejected_by_reason": sorted(report.rejected.items()),
        "rejected_examples": list(report.examples),
        "nulled_by_reason": sorted(report.nulled.items()),
        "schema_drift": list(report.drift),
        "output_files": output_files,
        "output_sizes": [(lake / relative).stat().st_size for relative in output_files],
        "started_at": started_at,
        "finished_at": datetime.now(UTC),
    }
    folder = _manifest_folder(lake, table)
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{key}.{os.getpid()}.tmp"
    try:
        pq.write_table(pa.Table.from_pylist([row], schema=schemas.MANIFEST), temporary)
        os.replace(temporary, folder / f"{key}.parquet")  # the commit: one rename
    except BaseException:
        _remove(temporary)
        raise
    return row


def commit_parts(
    lake: Path,
    table: str,
    report: IngestReport,
    sha256: str,
    parts: Sequence[FinishedPart],
    started_at: datetime,
    crawl: str | None = None,
    release: str | None = None,
    key: str | None = None,
    replaces: Sequence[dict] = (),
) -> dict:
    """Rename one input file's finished parts into place, then commit them; return the row.

    The parts may lie in several table folders (a document ingest's row of ``documents``
    commits its ``document_scores`` part too). An input committed already under the same key
    (ingested again: ``--replace``, or its parts were missing) keeps its old row and parts
    committed until the new row takes the old one's place, in one rename of the manifest file;
    only then are the old parts the new row does not list deleted. An old part at a new part's
    path (the same crawl) is moved aside under a temporary name first and put back if the
    commit fails. A failure before the switch leaves the old copy committed as it was.
    ``replaces`` are committed rows of ``table`` under other keys this file takes the place of:
    they are uncommitted once the new parts are in place, just before the new manifest row is
    written. The other arguments are :func:`commit_manifest`'s.

    Raises:
        LakeError: a part or the manifest row could not be written (read-only or full), naming
            the input; its new parts are removed and what was committed stays committed.
    """
    key = key or file_key(sha256)
    previous = _manifest_row(lake, table, key)
    kept = set(previous["output_files"] or []) if previous else set()
    published: list[str] = []
    aside: dict[str, Path] = {}  # an old part at a new part's path, kept until the switch
    try:
        for part in parts:
            final = lake / part.final
            if part.final in kept and final.is_file():
                aside[part.final] = final.with_name(f".{final.name}.{os.getpid()}.old.tmp")
                os.replace(final, aside[part.final])
            os.replace(part.temporary, final)
            published.append(part.final)
        for row in replaces:
            uncommit(lake, table, row)
        row = commit_manifest(
            lake,
            table,
            report,
            sha256,
            published,
            started_at,
            crawl=crawl,
            release=release,
            key=key,
        )
    except OSError as error:
        for part in parts:
            _remove(part.temporary)
        for relative in published:
            _remove(lake / relative)
        for relative, old_part in aside.items():  # the old copy back where its row lists it
            os.replace(old_part, lake / relative)
        where = f" ({error.filename})" if error.filename else ""
        state = "its earlier copy stays committed" if previous else "nothing of it is committed"
        raise LakeError(
            f"{report.path}: cannot commit its rows to lake table {table}: "
            f"{error.strerror or error}{where}; {state}"
        ) from None
    for relative in kept - set(published):  # the old copy's parts, no longer committed
        _remove(lake / relative)
    for old_part in aside.values():
        _remove(old_part)
    return row


def uncommit(lake: Path, table: str, row: dict) -> None:
    """Remove an input file from a table: its manifest row first, then its parts."""
    key = row["part_key"] or file_key(row["source_sha256"])
    (_manifest_folder(lake, table) / f"{key}.parquet").unlink()
    for relative in row["output_files"] or []:
        (lake / relative).unlink(missing_ok=True)


def _manifest_row(lake: Path, table: str, key: str) -> dict | None:
    """The committed manifest row under ``key``, if there is one."""
    file = _manifest_folder(lake, table) / f"{key}.parquet"
    if not file.is_file():
        return None
    try:
        return pq.read_table(file, schema=schemas.MANIFEST).to_pylist()[0]
    except (OSError, pa.ArrowException, IndexError) as error:
        raise LakeError(
            f"{file}: manifest row unreadable ({error}); the lake was changed by hand: "
            "delete that file and ingest its input again"
        ) from None


def _remove(path: Path) -> None:
    """Delete a file if it is there, else leave it to the next ingest of its table.

    :func:`remove_leftovers` removes what no manifest row lists, and temporary files.
    """
    try:
        path.unlink(missing_ok=True)
    except OSError as error:
        log.warning("cannot remove %s (%s); the next ingest of its table will", path, error)


def committed_parts(lake: Path) -> dict[str, dict]:
    """Every committed part of the lake: its path within the lake -> the manifest row naming it.

    A part is committed when a manifest row lists it in ``output_files``. A document ingest's
    manifest row (table ``documents``) commits parts in two table folders (``documents`` and
    ``document_scores``), so the rule is over every manifest of the lake.
    """
    folder = lake / "_manifest"
    tables = sorted(child.name for child in folder.iterdir()) if folder.is_dir() else []
    parts: dict[str, dict] = {}
    for table in tables:
        for row in manifest_rows(lake, table):
            for relative in row["output_files"] or []:
                parts[relative] = row
    return parts


def missing_parts(lake: Path, row: dict) -> list[str]:
    """The output files of a manifest row that are gone or whose size is not the committed one.

    Manifests written before ``output_sizes`` existed are checked for existence only.
    """
    files = row["output_files"] or []
    sizes = row.get("output_sizes") or [None] * len(files)
    missing = []
    for relative, size in zip(files, sizes, strict=True):
        path = lake / relative
        if not path.is_file() or (size is not None and path.stat().st_size != size):
            missing.append(relative)
    return missing


def remove_leftovers(lake: Path, tables: Iterable[str]) -> None:
    """Delete what interrupted runs left in the folders of ``tables``; readers never match it.

    That is temporary files (``.part-*.tmp``, the manifest's ``.*.tmp``) and orphan parts: part
    files no manifest row commits (renamed into place by a run that died before its commit).
    Call it only under :func:`table_lock` of those tables, or it may delete a running ingest's
    files.
    """
    tables = list(tables)
    committed = committed_parts(lake)
    for table in tables:
        patterns = (f"{table}/*/.part-*.tmp", f"_manifest/{table}/.*.tmp")
        for pattern in patterns:
            for leftover in lake.glob(pattern):
                log.info("removing %s, left by an interrupted run", leftover)
                leftover.unlink(missing_ok=True)
        for part in lake.glob(f"{table}/*/part-*.parquet"):
            if str(part.relative_to(lake)) not in committed:
                log.info("removing %s, published by a run that died before its commit", part)
                part.unlink(missing_ok=True)


def prepare_tables(lake: Path, tables: Iterable[str]) -> None:
    """Make the lake ready for an ingest into ``tables`` (call under :func:`table_lock`).

    Creates the lake, removes leftovers of interrupted runs and (re)writes the schema files.

    Raises:
        LakeError: when the lake cannot be written.
    """
    try:
        lake.mkdir(parents=True, exist_ok=True)
        remove_leftovers(lake, tables)
        write_schema_files(lake)
    except OSError as error:
        raise LakeError(
            f"cannot write to the lake {lake}: {error.strerror or error}"
            + (f" ({error.filename})" if error.filename else "")
        ) from None


def write_schema_files(lake: Path) -> None:
    """(Re)write the zero-row schema file of every lake table and of the manifest.

    Every table's folder and manifest folder is created too, so that a reader that globs them
    (Spark does) finds each, empty or not. Each file is written as ``.empty.<pid>.tmp`` and
    renamed; such a file of a writer that is gone (killed while writing) is removed first.
    Ingests of other tables write these files too, under their own locks, so a temporary file
    is removed only when no process has its pid.
    """
    targets = [
        (lake / "_schemas" / table / f"{partition}=_" / "empty.parquet", schema)
        for table, (schema, partition) in schemas.TABLES.items()
    ]
    targets.append((lake / "_schemas" / "_manifest" / "empty.parquet", schemas.MANIFEST))
    for table in schemas.TABLES:  # every folder a source reads exists (Spark globs must match)
        (lake / table).mkdir(parents=True, exist_ok=True)
        _manifest_folder(lake, table).mkdir(parents=True, exist_ok=True)
    for target, schema in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        for leftover in target.parent.glob(".empty.*.tmp"):
            pid = leftover.name.removeprefix(".empty.").removesuffix(".tmp")
            if pid.isdigit() and not is_running(int(pid)):
                log.info("removing %s, left by an ingest killed while writing it", leftover)
                leftover.unlink(missing_ok=True)
        temporary = target.parent / f".empty.{os.getpid()}.tmp"
        pq.write_table(schema.empty_table(), temporary)
        os.replace(temporary, target)
