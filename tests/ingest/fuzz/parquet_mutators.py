"""Mutations of Parquet inputs (host index, annotations): one column's values, type or name.

Each returns the new table (or raw bytes, for a damaged file) and the rows it left as they were:
the oracle compares the lake rows of the mutated file with a clean run of the base file
without the touched rows.
"""

from __future__ import annotations

import io
import math
import random
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

BAD_HOSTS = ["com,exa mple", "com,b,,a", "%41", "", " com,x", "com,x,", "COM,X", "a" * 300,
             "com,ex\x00ample", ",com,x", "com;x", "com,x)/", "\u00e9,com"]  # fmt: skip
FLOATS = [math.nan, math.inf, -math.inf, -1.0, 1.5, 1e300, -0.0, 5e-324, 100.0, 2.0]
INTS = [-1, 2**62, 2**63 - 1, -(2**63), 101, 0, 10**12]


@dataclass
class ParquetCase:
    """A mutated Parquet input."""

    mutation: str
    data: bytes
    rows: int | None  # rows in the file, None when it is not a readable Parquet file
    touched: set[int] | None  # rows changed (None: every row, or the file as a whole)


def _bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _host_column(table: pa.Table) -> str | None:
    for name in ("surt_host_name", "url_surtkey", "url", "host"):
        if name in table.column_names:
            return name
    return None


def mutate(rng: random.Random, table: pa.Table, extra: tuple[str, ...] = ()) -> ParquetCase:
    """One random mutation of ``table`` (``extra``: kinds only some suites draw, so that the
    others' seeds replay as before: ``duplicate_name``, ``float16``)."""
    kind = rng.choice(
        ["values", "values", "values", "host", "host", "nulls", "type", "drop", "rename",
         "duplicate_rows", "no_rows", "fetched_over_known", "truncate", "bit_flip", "not_parquet",
         *extra]
    )  # fmt: skip
    names = table.column_names
    column = rng.choice(names)
    count = table.num_rows
    rows = sorted(rng.sample(range(count), min(count, rng.randint(1, 3)))) if count else []
    if kind == "host" and _host_column(table):
        column = _host_column(table)
        values = table[column].to_pylist()
        bad = [rng.choice(BAD_HOSTS) for _ in rows]
        for row, value in zip(rows, bad, strict=True):
            if column == "url":
                value = f"https://{value}/page"
            elif column == "url_surtkey":
                value = f"{value})/page"
            values[row] = value
        typed = pa.array(values, table.schema.field(column).type)
        changed = table.set_column(names.index(column), column, typed)
        return ParquetCase(
            f"bad host {bad!r} in {column} rows {rows}", _bytes(changed), count, set(rows)
        )
    if kind in ("values", "nulls") and count:
        field = table.schema.field(column)
        values = table[column].to_pylist()
        kind_of = field.type
        if kind == "nulls":
            new = [None] * len(rows)
        elif pa.types.is_floating(kind_of):
            new = [rng.choice(FLOATS) for _ in rows]
        elif pa.types.is_integer(kind_of):
            new = [rng.choice(INTS) for _ in rows]
            if not pa.types.is_int64(kind_of):
                kind_of = pa.int64()
        elif pa.types.is_boolean(kind_of):
            new = [None for _ in rows]
        else:
            new = [rng.choice(["", " ", "x" * 1000, "\x00", "NaN", "\ud7ff"]) for _ in rows]
            if not pa.types.is_string(kind_of) and not pa.types.is_large_string(kind_of):
                new = [None for _ in rows]
        for row, value in zip(rows, new, strict=True):
            values[row] = value
        try:
            typed = pa.array(values, kind_of)
        except (pa.ArrowInvalid, OverflowError, TypeError):
            typed = pa.array(values)
        changed = table.set_column(names.index(column), pa.field(column, typed.type), typed)
        return ParquetCase(
            f"{kind} {new!r} in {column} rows {rows}", _bytes(changed), count, set(rows)
        )
    if kind == "fetched_over_known" and {"nutch_fetched", "nutch_numRecords"} <= set(names):
        known = table["nutch_numRecords"].to_pylist()
        fetched = table["nutch_fetched"].to_pylist()
        for row in rows:
            fetched[row] = (known[row] or 0) + rng.randint(1, 1000)
        typed = pa.array(fetched, table.schema.field("nutch_fetched").type)
        changed = table.set_column(names.index("nutch_fetched"), "nutch_fetched", typed)
        return ParquetCase(
            f"nutch_fetched > nutch_numRecords rows {rows}", _bytes(changed), count, set(rows)
        )
    if kind == "type":
        target = rng.choice([pa.string(), pa.float64(), pa.int32(), pa.bool_(), pa.large_string()])
        try:
            typed = table[column].cast(target, safe=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            typed = pa.array(
                [None if value is None else str(value) for value in table[column].to_pylist()]
            )
            target = pa.string()
        changed = table.set_column(names.index(column), pa.field(column, typed.type), typed)
        return ParquetCase(f"column {column} as {target}", _bytes(changed), count, None)
    if kind == "drop":
        return ParquetCase(
            f"drop column {column}", _bytes(table.drop_columns([column])), count, None
        )
    if kind == "rename":
        new_name = rng.choice([column.upper(), column + "_x", column.replace("_", "")])
        renamed = table.rename_columns([new_name if name == column else name for name in names])
        return ParquetCase(f"rename {column} -> {new_name}", _bytes(renamed), count, None)
    if kind == "duplicate_name":  # a column twice under one name: which one is meant?
        doubled = pa.Table.from_arrays(
            [*table.columns, table.column(column)], names=[*names, column]
        )
        return ParquetCase(f"column {column} twice", _bytes(doubled), count, None)
    floats = [name for name in names if pa.types.is_floating(table.schema.field(name).type)]
    if kind == "float16" and floats:  # a score stored as half floats (read as float64)
        column = rng.choice(floats)
        half = table.column(column).cast(pa.float16(), safe=False)
        changed = table.set_column(names.index(column), pa.field(column, pa.float16()), half)
        return ParquetCase(f"column {column} as float16", _bytes(changed), count, None)
    if kind == "duplicate_rows" and count:
        doubled = pa.concat_tables([table, table.slice(rows[0], 1)])
        return ParquetCase(f"row {rows[0]} twice", _bytes(doubled), count + 1, {count})
    if kind == "no_rows":
        return ParquetCase("no rows", _bytes(table.slice(0, 0)), 0, set())
    data = _bytes(table)
    if kind == "truncate":
        cut = rng.randrange(0, len(data))
        return ParquetCase(f"truncated at byte {cut} of {len(data)}", data[:cut], None, None)
    if kind == "bit_flip":
        flipped = bytearray(data)
        position = rng.randrange(4, len(flipped) - 8)
        flipped[position] ^= 1 << rng.randrange(8)
        try:
            readable = pq.read_table(io.BytesIO(bytes(flipped))).num_rows
        except Exception:
            readable = None
        return ParquetCase(f"bit flip at byte {position}", bytes(flipped), readable, None)
    if kind == "not_parquet":
        junk = rng.choice(
            [b"", b"PAR1", b"not parquet at all\n", b"PAR1" + b"\x00" * 100 + b"PAR1"]
        )
        return ParquetCase(f"not parquet {junk[:12]!r}", junk, None, None)
    return ParquetCase("identity", data, count, set())
