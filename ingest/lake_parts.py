"""Writing a lake table's parts under temporary names, and renaming them into place.

Part of the lake's write protocol (:mod:`ingest.lake` describes the whole of it). A part is
``<table>/<partition>=<value>/part-<key>.parquet`` (:func:`part_path`); it is written under a
temporary name (``.part-<key>.<pid>.tmp``, :func:`temporary_part`, never matched by readers) by
a :class:`PartWriter`, whose :meth:`PartWriter.finish` hands back the finished temporary parts
(:class:`FinishedPart`); :func:`publish_parts` renames them into place. Nothing is committed
until the manifest row is written (``ingest.lake_manifest.commit_parts`` does both, in that
order).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import pyarrow as pa
import pyarrow.parquet as pq

from ingest.lake_books import LakeError

__all__ = [
    "FinishedPart",
    "PartWriter",
    "file_key",
    "part_path",
    "publish_parts",
    "temporary_part",
]

log = logging.getLogger(__name__)


def file_key(sha256: str) -> str:
    """The stable name part of an input file's lake outputs."""
    return sha256[:20]


def part_path(lake: Path, table: str, partition: str, key: str) -> Path:
    """Where the rows of input ``key`` in one partition (``crawl=CC-MAIN-2024-10``) live."""
    return lake / table / partition / f"part-{key}.parquet"


def temporary_part(final: Path) -> Path:
    """The name a part is written under before it is renamed to ``final`` (readers skip it)."""
    key = final.name.removeprefix("part-").removesuffix(".parquet")
    return final.parent / f".part-{key}.{os.getpid()}.tmp"


@dataclass(frozen=True)
class FinishedPart:
    """A part written whole under its temporary name, not yet renamed into place.

    ``final`` is its path within the lake once published, ``rows`` its row count. It can be
    handed from a worker process to the one that publishes it.
    """

    temporary: Path
    final: str
    rows: int


def publish_parts(lake: Path, parts: Sequence[FinishedPart]) -> list[str]:
    """Rename finished parts into place, in order; return their paths within the lake."""
    published = []
    for part in parts:
        os.replace(part.temporary, lake / part.final)
        published.append(part.final)
    return published


class PartWriter:
    """Writes one input file's rows of one lake table, one part per partition value.

    Batches are encoded and written by a background thread (Parquet encoding releases the GIL,
    so it overlaps with parsing) through a short queue, so memory stays bounded; parts live
    under temporary names until :meth:`finish` hands them back (to publish with the manifest
    row) or :meth:`publish` renames them into place. Used as a context manager, an exception
    removes the temporary files (those not handed back yet). Columns in ``dictionary_columns`` are
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

    def finish(self) -> list[FinishedPart]:
        """Finish writing without renaming; return the temporary parts, in partition order.

        The caller publishes them (:func:`publish_parts`, or ``commit_parts`` with the manifest
        row); until then they are leftovers the next ingest of the table removes. The writer
        no longer owns them: :meth:`discard` leaves them alone.
        """
        self._stop()
        finished = []
        for value, (writer, temporary) in sorted(self._writers.items()):
            writer.close()
            final = str(self._final(value).relative_to(self.lake))
            finished.append(FinishedPart(temporary, final, self.rows[value]))
        self._writers.clear()
        return finished

    def publish(self) -> list[str]:
        """Finish writing, rename every part into place; return their paths within the lake."""
        return publish_parts(self.lake, self.finish())

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
