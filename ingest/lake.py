"""The Parquet lake's write protocol, shared by every ingest (DESIGN.md, "the data contract").

Layout under the lake folder:

* ``<table>/<partition>=<value>/part-<key>.parquet``: the rows of one input file in one
  partition. ``<key>`` is the first 20 hex digits of the input file's SHA-256, so a rerun
  writes the same names.
* ``_manifest/<table>/<key>.parquet``: one row per input file (``schemas.MANIFEST``): what was
  read, written and rejected by reason, the schema drift met, the parts written. It is written
  last, by rename: it is the commit record. Staging models read only parts whose key has a
  manifest row, so a crash at any point leaves the lake consistent; a file without a manifest
  row is redone from scratch and its half-published parts are overwritten.
* ``_schemas/<table>/<partition>=_/empty.parquet`` and ``_schemas/_manifest/empty.parquet``:
  zero-row files with each table's schema. dbt sources read them beside the data, so a table
  that has no input yet (no edges were ingested, say) is an empty relation, not an error.

Parts are written under a temporary name (``.part-<key>.<pid>.tmp``, never matched by readers)
and renamed into place.

What counts as committed has one definition, :func:`committed_parts`: a part file whose path
within the lake is one of the ``output_files`` of a manifest row (its key *and* its partition).
Staging models apply the same rule. Anything else under a table's folder is a leftover of an
interrupted run: a temporary file, or a part renamed into place whose manifest row was never
written (an "orphan"); :func:`prepare_tables` deletes both.

One writer per table folder: an ingest holds :func:`table_lock` on every table folder it writes
(``<lake>/_locks/<table>.lock``, an ``flock`` the kernel releases when the process dies, however
it dies); a second ingest of the same table waits for the first. Leftovers are removed only under
the lock, so an ingest never deletes another's temporary files.

An input file's identity is its checksum *and* where it went: a file committed under one crawl
given again under another is refused (naming the crawl it is in) unless the ingest is asked to
``replace`` it; a committed file whose parts are missing or changed size is ingested again when
it is given again, and reported otherwise (:func:`new_inputs`).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import glob
import hashlib
import logging
import multiprocessing
import os
import queue
import signal
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ingest import schemas

__all__ = [
    "IngestReport",
    "LakeError",
    "PartWriter",
    "commit_manifest",
    "committed_parts",
    "die_with_parent",
    "expand_inputs",
    "file_key",
    "manifest_rows",
    "map_files",
    "missing_parts",
    "new_inputs",
    "prepare_tables",
    "remove_leftovers",
    "sha256_of",
    "table_lock",
    "temporary_part",
    "uncommit",
    "warn_missing_parts",
    "write_schema_files",
]

log = logging.getLogger(__name__)

_EXAMPLES = 10  # rejected records kept verbatim in the manifest, per file
# Default cap on file workers: each holds a few record batches in flight (~0.3 GB with the
# host index's 256k-row batches), so the default stays far below 4 GB on big machines.
_DEFAULT_WORKERS_MAX = 4


class LakeError(RuntimeError):
    """An ingest that cannot start or finish: bad arguments, unreadable input, too many rejects."""


def file_key(sha256: str) -> str:
    """The stable name part of an input file's lake outputs."""
    return sha256[:20]


def sha256_of(path: Path) -> str:
    """SHA-256 of a file, streamed."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def expand_inputs(patterns: Sequence[str]) -> list[Path]:
    """Input files from paths, folders (every file below) and glob patterns, sorted, each once.

    A path that exists is taken literally (``crawl [1].warc.gz`` is a file name, not a glob);
    only a pattern that names no file or folder is expanded as a glob. Files are named by their
    absolute path, so one file given twice (relative and absolute) is one input.
    """
    found: set[Path] = set()
    for pattern in patterns:
        path = Path(pattern)
        if path.is_dir():
            matches = [child for child in path.rglob("*") if not child.name.startswith(".")]
        elif path.exists():
            matches = [path]
        else:
            matches = [Path(match) for match in glob.glob(pattern, recursive=True)]
        files = [match.absolute() for match in matches if match.is_file()]
        if not files:
            raise LakeError(f"no input file matches {pattern!r}")
        found.update(files)
    return sorted(found)


@dataclass
class IngestReport:
    """What reading one input file found: records read = written + rejected, by reason."""

    path: Path
    read: int = 0
    written: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)  # "file:where: reason: text", the first few
    nulled: Counter[str] = field(default_factory=Counter)  # values nulled in written records
    drift: list[str] = field(default_factory=list)  # schema differences met and how they were read

    def reject(self, reason: str, where: str | int, text: str, count: int = 1) -> None:
        """Count rejected records (keeping the first few verbatim as examples).

        Args:
            reason: a short snake_case reason (``malformed_hc_val``).
            where: the line number or record position in the file.
            text: the record as read (shortened).
            count: how many records this call rejects (one example is kept).
        """
        self.rejected[reason] += count
        if len(self.examples) < _EXAMPLES:
            self.examples.append(f"{self.path}:{where}: {reason}: {text[:160]!r}")

    def null(self, reason: str, where: str | int, text: str, count: int = 1) -> None:
        """Count values set to null in records that are still written (a NaN rank, say).

        Args:
            reason: a short snake_case reason (``non_finite_hc_val``).
            where: the line number or record position in the file.
            text: the value or record as read (shortened).
            count: how many values this call nulls (one example is kept).
        """
        self.nulled[reason] += count
        if len(self.examples) < _EXAMPLES:
            self.examples.append(f"{self.path}:{where}: {reason} (nulled): {text[:160]!r}")

    def reject_rows(
        self,
        reasons: Iterable[tuple[str, np.ndarray]],
        first_row: int,
        describe: Callable[[int], str],
    ) -> None:
        """Count the rows of a batch each boolean mask marks, keeping three examples per reason.

        Args:
            reasons: (reason, mask over the batch's rows) pairs; masks should not overlap.
            first_row: the file position of the batch's first row.
            describe: the text of the example kept for a row (its index in the batch).
        """
        for reason, mask in reasons:
            rows = np.flatnonzero(mask)
            for row in rows[:3].tolist():
                self.reject(reason, f"row {first_row + row}", describe(row))
            if rows.size > 3:
                self.rejected[reason] += int(rows.size - 3)

    @property
    def rejected_count(self) -> int:
        """All rejected records."""
        return sum(self.rejected.values())

    def check(self, max_reject_rate: float) -> None:
        """Raise :class:`LakeError` when the books do not balance or too much was rejected."""
        if self.read != self.written + self.rejected_count:
            raise LakeError(
                f"{self.path}: read {self.read:,} != written {self.written:,} + rejected "
                f"{self.rejected_count:,} (a bug: every record must be written or rejected)"
            )
        if self.read and self.rejected_count / self.read > max_reject_rate:
            raise LakeError(
                f"{self.path}: {self.rejected_count:,} of {self.read:,} records rejected (more "
                f"than --max-reject-rate {max_reject_rate:.2%}); first: "
                + "; ".join(self.examples[:3])
            )


# ----------------------------------------------------------------------- writing parts


def part_path(lake: Path, table: str, partition: str, key: str) -> Path:
    """Where the rows of input ``key`` in one partition (``crawl=CC-MAIN-2024-10``) live."""
    return lake / table / partition / f"part-{key}.parquet"


def temporary_part(final: Path) -> Path:
    """The name a part is written under before it is renamed to ``final`` (readers skip it)."""
    key = final.name.removeprefix("part-").removesuffix(".parquet")
    return final.parent / f".part-{key}.{os.getpid()}.tmp"


class PartWriter:
    """Writes one input file's rows of one lake table, one part per partition value.

    Batches are encoded and written by a background thread (Parquet encoding releases the GIL,
    so it overlaps with parsing) through a short queue, so memory stays bounded; parts live
    under temporary names until :meth:`publish` renames them into place. Used as a context
    manager, an exception removes the temporary files. Columns in ``dictionary_columns`` are
    dictionary-encoded (low-cardinality strings); the others are not, since keys such as host
    names are nearly all distinct. ``column_encoding`` picks Parquet encodings per column
    (``DELTA_BINARY_PACKED`` for sorted positions and ids, ``BYTE_STREAM_SPLIT`` for floats:
    smaller and about a third faster to write than plain + zstd alone).
    """

    _DONE = object()

    def __init__(
        self,
        lake: Path,
        table: str,
        key: str,
        schema: pa.Schema,
        partition_column: str,
        dictionary_columns: Sequence[str] = (),
        row_group_size: int = 1 << 20,
        column_encoding: Mapping[str, str] | None = None,
    ) -> None:
        self.lake = lake
        self.table = table
        self.key = key
        self.schema = schema
        self.partition_column = partition_column
        self.dictionary_columns = list(dictionary_columns)
        self.row_group_size = row_group_size
        self.column_encoding = dict(column_encoding or {})
        self.rows: Counter[str] = Counter()
        self._writers: dict[str, tuple[pq.ParquetWriter, Path]] = {}
        self._queue: queue.Queue = queue.Queue(maxsize=2)
        self._failure: BaseException | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> PartWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if kind is not None:
            self.discard()

    def _final(self, value: str) -> Path:
        return part_path(self.lake, self.table, f"{self.partition_column}={value}", self.key)

    def _work(self) -> None:
        while (item := self._queue.get()) is not self._DONE:
            if self._failure is not None:
                continue  # drain after a failure
            value, batch = item
            try:
                if value not in self._writers:
                    final = self._final(value)
                    final.parent.mkdir(parents=True, exist_ok=True)
                    temporary = temporary_part(final)
                    writer = pq.ParquetWriter(
                        temporary,
                        self.schema,
                        compression="zstd",
                        use_dictionary=self.dictionary_columns,
                        column_encoding=self.column_encoding or None,
                        write_statistics=True,
                    )
                    self._writers[value] = (writer, temporary)
                writer = self._writers[value][0]
                if isinstance(batch, pa.Table):
                    writer.write_table(batch, row_group_size=self.row_group_size)
                else:
                    writer.write_batch(batch, row_group_size=self.row_group_size)
            except BaseException as error:  # re-raised in the caller's thread
                self._failure = error

    def _stop(self) -> None:
        if self._thread is not None:
            self._queue.put(self._DONE)
            self._thread.join()
            self._thread = None
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

    def write(self, value: str, batch: pa.RecordBatch | pa.Table) -> None:
        """Append rows (with exactly the table's schema) to the part of partition ``value``."""
        if batch.num_rows == 0:
            return
        if batch.schema != self.schema:
            raise LakeError(f"{self.table}: batch schema differs from the lake schema (a bug)")
        if self._failure is not None:
            self._stop()
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name=f"write-{self.table}")
            self._thread.start()
        self._queue.put((value, batch))
        self.rows[value] += batch.num_rows

    @property
    def written(self) -> int:
        """Rows handed to the writer so far, over all partitions."""
        return sum(self.rows.values())

    def publish(self) -> list[str]:
        """Finish writing, rename every part into place; return their paths within the lake."""
        self._stop()
        published = []
        for value, (writer, temporary) in sorted(self._writers.items()):
            writer.close()
            final = self._final(value)
            os.replace(temporary, final)
            published.append(str(final.relative_to(self.lake)))
        self._writers.clear()
        return published

    def discard(self) -> None:
        """Stop writing; close and delete every temporary part."""
        try:
            self._stop()
        except BaseException as error:  # the original exception matters more
            log.debug("writer failed while discarding: %s", error)
        for writer, temporary in self._writers.values():
            try:
                writer.close()
            finally:
                temporary.unlink(missing_ok=True)
        self._writers.clear()
        self.rows.clear()


# ----------------------------------------------------------------------- the manifest


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
    pq.write_table(pa.Table.from_pylist([row], schema=schemas.MANIFEST), temporary)
    os.replace(temporary, folder / f"{key}.parquet")
    return row


def uncommit(lake: Path, table: str, row: dict) -> None:
    """Remove an input file from a table: its manifest row first, then its parts."""
    key = row["part_key"] or file_key(row["source_sha256"])
    (_manifest_folder(lake, table) / f"{key}.parquet").unlink()
    for relative in row["output_files"] or []:
        (lake / relative).unlink(missing_ok=True)


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


@contextlib.contextmanager
def table_lock(lake: Path, tables: Iterable[str]) -> Iterator[None]:
    """Hold the write lock of the given table folders (a second ingest of them waits).

    The locks are ``flock``s on ``<lake>/_locks/<table>.lock``, taken in name order (two
    ingests that share tables cannot deadlock); the kernel releases them when the process ends,
    so a killed ingest never leaves a stale lock. The file holds the holder's pid, for the
    message a waiting ingest logs.

    Raises:
        LakeError: when the lake cannot be written (read-only, not a folder).
    """
    handles: list[int] = []
    try:
        folder = lake / "_locks"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for table in sorted(set(tables)):
                path = folder / f"{table}.lock"
                handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
                handles.append(handle)
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = os.pread(handle, 32, 0).decode(errors="replace").strip() or "?"
                    log.warning(
                        "another ingest (pid %s) is writing lake table %s; waiting for it",
                        holder,
                        table,
                    )
                    fcntl.flock(handle, fcntl.LOCK_EX)
                os.ftruncate(handle, 0)
                os.pwrite(handle, f"{os.getpid()}\n".encode(), 0)
        except OSError as error:
            raise LakeError(f"cannot write to the lake {lake}: {error.strerror or error}") from None
        yield
    finally:
        for handle in handles:
            os.close(handle)


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
    (Spark does) finds each, empty or not.
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
        temporary = target.parent / f".empty.{os.getpid()}.tmp"
        pq.write_table(schema.empty_table(), temporary)
        os.replace(temporary, target)


_PR_SET_PDEATHSIG = 1  # prctl(2) option: the signal a process gets when its parent dies


def die_with_parent() -> None:
    """Make this (forked worker) process be killed when its parent dies, however it dies.

    On Linux the kernel sends SIGKILL (``prctl(PR_SET_PDEATHSIG)``); a parent that died before
    this call is caught by its pid having changed. Elsewhere it does nothing.
    """
    parent = os.getppid()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent or parent == 1:
        os._exit(1)


def map_files(function: Callable[..., dict], jobs: list[tuple], workers: int | None) -> list[dict]:
    """``function(*job)`` for every job, in worker processes when there are several files.

    ``workers`` defaults to one per core, at most four.

    Each job ingests and commits one input file on its own, so files are independent: every
    job runs even when another fails, results come back in job order, and when files failed a
    :class:`LakeError` names each of them once all jobs are done (the others stay committed).
    Workers are forked, as for the document ingest (Arrow re-creates its thread pools after a
    fork), so a calling script needs no ``if __name__ == "__main__"`` guard, and they die with
    the ingest (:func:`die_with_parent`).
    """
    count = max(1, min(workers or min(os.cpu_count() or 1, _DEFAULT_WORKERS_MAX), len(jobs)))
    results: list[dict] = []
    failures: list[str] = []

    def collect(outcome: Callable[[], dict]) -> None:
        try:
            results.append(outcome())
        except LakeError as error:
            failures.append(str(error))

    if count == 1:
        for job in jobs:
            collect(lambda job=job: function(*job))
    else:
        with ProcessPoolExecutor(
            max_workers=count,
            mp_context=multiprocessing.get_context("fork"),
            initializer=die_with_parent,
        ) as pool:
            for future in [pool.submit(function, *job) for job in jobs]:
                collect(future.result)
    if failures:
        raise LakeError(files_failed(failures, len(jobs)))
    return results


def files_failed(failures: Sequence[str], files: int) -> str:
    """One message for the files an ingest refused (each named by its own error)."""
    if len(failures) == 1:
        return failures[0]
    return f"{len(failures)} of {files} files refused: " + "; ".join(failures)


def new_inputs(
    lake: Path,
    table: str,
    inputs: Iterable[Path],
    crawls: Mapping[Path, str | None] | None = None,
    replace: bool = False,
    tables: Iterable[str] | None = None,
) -> list[tuple[Path, str]]:
    """Prepare the lake for an ingest into ``table``; return the inputs to ingest, with checksums.

    Call it under :func:`table_lock` of ``tables`` (default: ``table``), the table folders the
    ingest writes; it runs :func:`prepare_tables` on them. An input is skipped (logged) when a
    manifest row of ``table`` commits its checksum already, whole and under the same crawl
    (``crawls`` maps inputs to the crawl they go to, where that is known before reading); the
    second of two inputs with the same content is skipped too. An input committed under another
    crawl is refused unless ``replace``; with ``replace`` every committed input given is
    uncommitted and ingested again. A committed input whose parts are missing or changed is
    uncommitted and ingested again; committed files not given whose parts are missing are
    logged as warnings, naming the parts and the file that would restore them.

    Raises:
        LakeError: an input committed under another crawl (nothing is changed then), or a lake
            that cannot be written.
    """
    prepare_tables(lake, list(tables) if tables is not None else [table])
    committed = {row["source_sha256"]: row for row in manifest_rows(lake, table)}
    crawls = crawls or {}
    todo: list[tuple[Path, str]] = []
    redo: list[dict] = []
    given: dict[str, Path] = {}
    for path in inputs:
        sha = sha256_of(path)
        if sha in given:
            log.warning("%s: the same content as %s, ingested once", path, given[sha])
            continue
        given[sha] = path
        row = committed.get(sha)
        if row is None:
            todo.append((path, sha))
            continue
        crawl = crawls.get(path)
        if crawl is not None and row["crawl"] is not None and crawl != row["crawl"] and not replace:
            raise LakeError(
                f"{path}: already in the lake as crawl {row['crawl']} (ingested from "
                f"{row['source_file']}), not {crawl}; pass --replace to move it to {crawl}"
            )
        missing = missing_parts(lake, row)
        if replace or missing:
            if missing:
                log.warning(
                    "%s: committed parts missing or changed (%s), ingesting it again",
                    path,
                    ", ".join(missing),
                )
            redo.append(row)
            todo.append((path, sha))
        else:
            log.info("%s: already in the lake (same checksum), skipped", path)
    for row in redo:
        uncommit(lake, table, row)
    warn_missing_parts(lake, table, set(given))
    return todo


def warn_missing_parts(lake: Path, table: str, given: set[str]) -> None:
    """Warn of every committed file of ``table`` whose parts are missing or changed.

    Files whose checksum is in ``given`` are left out (the ingest redoes them); the warning
    names the parts and the input file that restores them.
    """
    for row in manifest_rows(lake, table):
        if row["source_sha256"] not in given and (missing := missing_parts(lake, row)):
            log.warning(
                "lake table %s: parts of %s are missing or changed (%s); ingest that file "
                "again to restore them",
                table,
                row["source_file"],
                ", ".join(missing),
            )
