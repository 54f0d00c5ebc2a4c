"""Reading Parquet inputs whose schema drifts: map, cast and report, never guess.

Common Crawl's host index says "some partitions have a different schema from others" (FORMATS.md
§2.1): a column missing, an integer stored as int64 instead of int32, another column order. Each
input file is read by column name into the lake's explicit schema:

* a column the lake needs but the file lacks is null (refused if the column is required);
* a column of another type of the same family (int32/int64/uint, float/double, string/large
  string, timestamps of any unit and zone, read as UTC) is cast safely (an overflow is an
  error naming the file and column);
* a type of another family (text where a count belongs) is an error naming the file and column;
* every such difference from the source's reference schema is reported, in the file's manifest
  row (``schema_drift``) and in the log.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ingest.lake import LakeError

__all__ = [
    "ColumnPlan",
    "crawl_of_folder",
    "crawl_of_path",
    "open_parquet",
    "plan_columns",
    "read_planned",
]

_CRAWL = re.compile(r"^CC-MAIN-[0-9]{4}-[0-9]{2}$")
_CRAWL_IN_PATH = re.compile(r"(?:^|/)crawl=([^/]+)(?=/)")  # lookahead: nested folders all match


def crawl_of_folder(path: Path, crawl: str | None) -> str | None:
    """The crawl a file's ``crawl=<id>`` folder names, checked against ``crawl`` (``--crawl``).

    Returns ``crawl`` when no folder names one (None when neither does).

    Raises:
        LakeError: ``crawl`` is not a crawl id; the folder's name is not one; folders at
            several depths name different crawls (``crawl=A/…/crawl=B/``: ambiguous, refused
            rather than guessed); or ``crawl`` contradicts the folder (refused naming both:
            neither silently wins).
    """
    if crawl is not None and not is_crawl_id(crawl):
        raise LakeError(f"not a crawl id: {crawl!r} (expected CC-MAIN-YYYY-WW)")
    found = _CRAWL_IN_PATH.findall(path.resolve().as_posix())
    if not found:
        return crawl
    if len(set(found)) > 1:
        raise LakeError(
            f"{path}: nested crawl= folders name different crawls "
            f"({', '.join(repr(name) for name in found)}): move the file under one"
        )
    folder = found[-1]
    if not is_crawl_id(folder):
        raise LakeError(f"{path}: not a crawl id: {folder!r} (expected CC-MAIN-YYYY-WW)")
    if crawl is not None and crawl != folder:
        raise LakeError(
            f"{path}: --crawl {crawl} contradicts its folder crawl={folder}: drop --crawl, "
            "or move the file"
        )
    return folder


def crawl_of_path(path: Path, crawl: str | None) -> str:
    """The crawl of an input file: its ``crawl=<id>`` folder, else ``crawl`` (``--crawl``).

    Raises:
        LakeError: when neither names a crawl, or as :func:`crawl_of_folder`.
    """
    found = crawl_of_folder(path, crawl)
    if found is None:
        raise LakeError(f"{path}: no crawl=<id> folder in the path; pass --crawl")
    return found


def is_crawl_id(text: str) -> bool:
    """Whether ``text`` is a Common Crawl crawl id (``CC-MAIN-2024-10``)."""
    return bool(_CRAWL.fullmatch(text))  # fullmatch: "$" alone lets a final newline through


def open_parquet(path: Path) -> pq.ParquetFile:
    """Open a Parquet file, or raise :class:`LakeError` naming it.

    The footer must agree with itself: every column chunk of every row group has its column's
    physical type (a damaged footer can hold a chunk of another type, which would only fail
    when that column is read, if it ever is).
    """
    try:
        parquet = pq.ParquetFile(path)
        metadata, schema = parquet.metadata, parquet.schema
        for group in range(metadata.num_row_groups):
            row_group = metadata.row_group(group)
            for index in range(row_group.num_columns):
                found = row_group.column(index).physical_type
                wanted = schema.column(index).physical_type
                if found != wanted:
                    raise LakeError(
                        f"{path}: not a readable Parquet file: row group {group} holds column "
                        f"{schema.column(index).path!r} as {found}, its schema says {wanted}"
                    )
    except (pa.ArrowInvalid, OSError, UnicodeDecodeError) as error:  # a name not UTF-8, too
        raise LakeError(f"{path}: not a readable Parquet file: {error}") from error
    return parquet


def _family(kind: pa.DataType) -> str:
    if pa.types.is_integer(kind):
        return "integer"
    if pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return "float"
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return "string"
    if pa.types.is_boolean(kind):
        return "boolean"
    if pa.types.is_timestamp(kind):
        return "timestamp"
    if pa.types.is_dictionary(kind):
        return _family(kind.value_type)
    return str(kind)


def _can_cast(source: pa.DataType, target: pa.DataType) -> bool:
    source_family, target_family = _family(source), _family(target)
    if source_family == target_family:
        return True
    return source_family == "integer" and target_family == "float"  # counts read as doubles


@dataclass(frozen=True)
class ColumnPlan:
    """How to fill each lake column from one file: the source column, or null."""

    path: Path
    target: pa.Schema
    sources: tuple[str | None, ...]  # per target field: the file's column name, or None

    @property
    def read_columns(self) -> list[str]:
        """The file's columns to read."""
        return [name for name in self.sources if name is not None]


def plan_columns(
    path: Path,
    file_schema: pa.Schema,
    target: pa.Schema,
    source_names: Mapping[str, str],
    reference_types: Mapping[str, pa.DataType],
    required: Sequence[str],
) -> tuple[ColumnPlan, list[str]]:
    """Match a file's columns to the lake schema; return the plan and the drift found.

    Args:
        path: the file (for messages).
        file_schema: its Arrow schema.
        target: the lake table's schema.
        source_names: lake column → the source's column name, where they differ.
        reference_types: source column → its type in the source's reference schema.
        required: lake columns the file must have.

    Raises:
        LakeError: a required column is missing, or a column has a type of another family.
    """
    present = {field.name: field.type for field in file_schema}
    folded = {name.lower(): name for name in present}
    sources: list[str | None] = []
    drift: list[str] = []
    for field in target:
        wanted = source_names.get(field.name, field.name)
        name = wanted if wanted in present else folded.get(wanted.lower())
        if name is None:
            if field.name in required:
                raise LakeError(f"{path}: required column {wanted!r} is missing")
            drift.append(f"missing column {wanted}: read as null")
            sources.append(None)
            continue
        kind = present[name]
        if not _can_cast(kind, field.type):
            raise LakeError(
                f"{path}: column {name!r} is {kind}, which cannot be read as {field.type}"
            )
        if name != wanted:
            drift.append(f"column {name} spelt differently from {wanted}: read by name")
        reference = reference_types.get(wanted)
        if reference is not None and kind != reference:
            drift.append(f"column {name} is {kind} (reference {reference}): cast to {field.type}")
        sources.append(name)
    return ColumnPlan(path, target, tuple(sources)), drift


def read_planned(
    parquet: pq.ParquetFile, plan: ColumnPlan, batch_rows: int
) -> Iterator[pa.RecordBatch]:
    """The file's rows in the lake schema, batch by batch (nulls for missing columns).

    Raises:
        LakeError: a value does not fit the lake type (an overflow), naming file and column;
            or the file's data is damaged (an unreadable page, a string that is not UTF-8).
    """
    batches = parquet.iter_batches(batch_size=batch_rows, columns=plan.read_columns)
    first_row = 0
    batch: pa.RecordBatch | None = None
    while True:
        if batch is not None:
            first_row += batch.num_rows
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (OSError, pa.ArrowInvalid) as error:  # a damaged page
            first_line = str(error).splitlines()[0]
            raise LakeError(f"{plan.path}: not a readable Parquet file: {first_line}") from error
        arrays = []
        for field, source in zip(plan.target, plan.sources, strict=True):
            if source is None:
                arrays.append(pa.nulls(batch.num_rows, field.type))
                continue
            column = batch.column(source)
            if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
                try:  # Parquet strings are UTF-8; Arrow does not check that when reading
                    column.validate(full=True)
                except pa.ArrowInvalid as error:
                    raise LakeError(
                        f"{plan.path}: not a readable Parquet file: column {source!r} "
                        f"(rows {first_row:,}..{first_row + batch.num_rows - 1:,}): {error}"
                    ) from error
            if column.type != field.type:
                try:
                    column = column.cast(field.type)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
                    raise LakeError(
                        f"{plan.path}: column {source!r} does not fit {field.type}: {error}"
                    ) from error
            arrays.append(column)
        yield pa.RecordBatch.from_arrays(arrays, schema=plan.target)
