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

A column may be named by a dotted path into struct columns (datatrove writes a document's fields
inside one ``metadata`` struct: ``metadata.score``). A name is read as the file's top-level column
of exactly that name when there is one (so a column whose own name holds a dot, like
``fasttext.prob``, is reachable); otherwise as a path, each step a field of the struct before it.
When a name reads as two different paths (a struct ``a`` with a field ``b.c`` and a struct
``a.b`` with a field ``c``) the file is refused, naming both: nothing silently wins
(:func:`find_column`). A file naming one top-level column twice is refused too
(:func:`refuse_duplicate_names`): which of the two is meant cannot be told.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ingest.lake import LakeError

__all__ = [
    "ColumnPlan",
    "ColumnRef",
    "column_paths",
    "column_type",
    "crawl_of_folder",
    "crawl_of_path",
    "extract",
    "find_column",
    "open_parquet",
    "plan_columns",
    "read_planned",
    "refuse_duplicate_names",
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


@dataclass(frozen=True)
class ColumnRef:
    """A top-level column of a file, or a field nested in it (``top``, then ``path``)."""

    top: str
    path: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The dotted name (``metadata.score``), as messages and the drift show it."""
        return ".".join((self.top, *self.path))


def _struct_children(kind: pa.DataType) -> list[pa.Field]:
    return list(kind) if pa.types.is_struct(kind) else []


def column_paths(schema: pa.Schema) -> list[str]:
    """Every column name a user can give: the top-level names and the dotted struct paths."""
    names: list[str] = []

    def walk(prefix: str, fields: list[pa.Field]) -> None:
        for field in fields:
            name = f"{prefix}{field.name}"
            names.append(name)
            walk(f"{name}.", _struct_children(field.type))

    walk("", list(schema))
    return names


def _readings(
    fields: list[pa.Field], parts: list[str], same
) -> list[tuple[tuple[str, ...], pa.DataType]]:
    """Every way ``parts`` (a name split at its dots) names a field: (steps, type)."""
    found = []
    for cut in range(len(parts), 0, -1):  # the longest name first: an exact name wins
        head = ".".join(parts[:cut])
        for field in fields:
            if not same(field.name, head):
                continue
            if cut == len(parts):
                found.append(((field.name,), field.type))
            else:
                found += [
                    ((field.name, *steps), kind)
                    for steps, kind in _readings(_struct_children(field.type), parts[cut:], same)
                ]
    return found


def find_column(
    path: Path, schema: pa.Schema, name: str, fold_case: bool = False
) -> ColumnRef | None:
    """The column ``name`` names in ``schema``: an exact top-level name first, else a dotted path.

    With ``fold_case``, a name spelt in another case is found when no exact one is.

    Raises:
        LakeError: the name reads as two different paths (naming both).
    """
    tests = [str.__eq__] + ([lambda a, b: a.lower() == b.lower()] if fold_case else [])
    for same in tests:
        tops = [field.name for field in schema if same(field.name, name)]
        if tops:
            return ColumnRef(tops[0])
        readings = {steps for steps, _ in _readings(list(schema), name.split("."), same)}
        if len(readings) > 1:
            shown = " and ".join(
                " -> ".join(repr(step) for step in steps) for steps in sorted(readings)
            )
            raise LakeError(
                f"{path}: column name {name!r} reads as two different fields ({shown}): "
                "rename one of them"
            )
        if readings:
            steps = readings.pop()
            return ColumnRef(steps[0], steps[1:])
    return None


def column_type(schema: pa.Schema, ref: ColumnRef) -> pa.DataType:
    """The type of the field ``ref`` names."""
    kind = schema.field(ref.top).type
    for step in ref.path:
        kind = kind.field(step).type
    return kind


def extract(column: pa.Array | pa.ChunkedArray, ref: ColumnRef) -> pa.Array | pa.ChunkedArray:
    """The nested field ``ref`` names of a top-level column (null where a parent is null)."""
    for step in ref.path:
        column = pc.struct_field(column, step)
    return column


def refuse_duplicate_names(path: Path, schema: pa.Schema) -> None:
    """Refuse a file whose top-level columns (or a struct's fields) repeat a name.

    Raises:
        LakeError: naming the file and the repeated name.
    """

    def check(fields: list[pa.Field], where: str) -> None:
        seen: set[str] = set()
        for field in fields:
            if field.name in seen:
                raise LakeError(
                    f"{path}: column name {where}{field.name!r} appears twice: which one is "
                    "meant cannot be told; rewrite the file with one of them"
                )
            seen.add(field.name)
            check(_struct_children(field.type), f"{where}{field.name}.")

    check(list(schema), "")


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
    refs: tuple[ColumnRef | None, ...] = ()  # per target field: where it is (nested or not)

    @property
    def read_columns(self) -> list[str]:
        """The file's top-level columns to read (each once)."""
        refs = self.refs or tuple(ColumnRef(name) if name else None for name in self.sources)
        return list(dict.fromkeys(ref.top for ref in refs if ref is not None))


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
        LakeError: a required column is missing, a column has a type of another family, or a
            column read is named twice in the file.
    """
    sources: list[str | None] = []
    refs: list[ColumnRef | None] = []
    drift: list[str] = []
    for field in target:
        wanted = source_names.get(field.name, field.name)
        ref = find_column(path, file_schema, wanted, fold_case=True)
        if ref is None:
            if field.name in required:
                raise LakeError(f"{path}: required column {wanted!r} is missing")
            drift.append(f"missing column {wanted}: read as null")
            sources.append(None)
            refs.append(None)
            continue
        name = ref.name
        if len(file_schema.get_all_field_indices(ref.top)) > 1:
            raise LakeError(
                f"{path}: column name {ref.top!r} appears twice: which one is meant cannot be "
                "told; rewrite the file with one of them"
            )
        kind = column_type(file_schema, ref)
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
        refs.append(ref)
    return ColumnPlan(path, target, tuple(sources), tuple(refs)), drift


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
        refs = plan.refs or tuple(ColumnRef(name) if name else None for name in plan.sources)
        for field, ref in zip(plan.target, refs, strict=True):
            if ref is None:
                arrays.append(pa.nulls(batch.num_rows, field.type))
                continue
            source = ref.name
            column = extract(batch.column(ref.top), ref)
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
