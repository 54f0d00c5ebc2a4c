r"""Reading Common Crawl's host-graph text files (ranks, vertices, edges) into checked batches.

The reading half of ``python -m ingest graph`` (:mod:`ingest.webgraph` is the command and the
lake side). The formats, what is rejected and what is nulled, are described there.
:func:`read_text_table` streams one file in blocks of ``block_size`` bytes (memory does not grow
with the file) and hands each checked batch to a sink, counting every line in an
:class:`ingest.lake.IngestReport`. A clean file takes the fast path: ISA-L gunzip, Arrow's
multi-threaded CSV parser converting straight to numbers, vectorised checks. The first line that
does not fit (a conversion error, a wrong column count, a bad host name) sends the file to the
careful path, which reads it again single-threaded as text, checks every column of every line
and names each bad line. Both paths accept the same lines: numbers as Arrow parses them,
positions >= 1, ids >= 0, host names in the host alphabet.
"""

from __future__ import annotations

import bisect
import codecs
import gzip
import io
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from isal import isal_zlib
from pyarrow import csv

from ingest.hosts import bad_dotted_names
from ingest.lake import IngestReport, LakeError

__all__ = [
    "BLOCK_SIZE",
    "DOMAIN_HEADER",
    "EDGES",
    "HOST_HEADER",
    "RANKS",
    "VERTICES",
    "TextFormat",
    "read_text_table",
]

log = logging.getLogger(__name__)

HOST_HEADER = "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev"
DOMAIN_HEADER = HOST_HEADER + "\t#n_hosts"
BLOCK_SIZE = 1 << 24  # bytes read at a time
# A *.paths.gz listing's line: one path (or URL) of a gzip part, no TAB
# (`projects/hyperlinkgraph/<release>/host/vertices/part-00000-….txt.gz`).
_LISTED_PATH = re.compile(r"(?:[a-z0-9]+://)?[^\s/]+(?:/[^\s/]+)+\.gz")


@dataclass(frozen=True)
class TextFormat:
    """One of the graph's text formats: its columns (name, kind) and its header line."""

    name: str
    columns: tuple[tuple[str, str], ...]  # kind: position, value, id or host
    header: str | None


RANKS = TextFormat(
    "ranks",
    (
        ("hc_pos", "position"),
        ("hc_val", "value"),
        ("pr_pos", "position"),
        ("pr_val", "value"),
        ("host_rev", "host"),
    ),
    HOST_HEADER,
)
VERTICES = TextFormat("vertices", (("vertex_id", "id"), ("host_rev", "host")), None)
EDGES = TextFormat("edges", (("from_vertex_id", "id"), ("to_vertex_id", "id")), None)

_TYPES = {"position": pa.int64(), "value": pa.float64(), "id": pa.int64(), "host": pa.string()}
_INTEGER = r"^\s*-?[0-9]+\s*$"
# Arrow's float grammar, as the fast path's parser accepts it (Java's toString is a subset).
_FLOAT = r"^\s*[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|(?i:nan|inf(inity)?))\s*$"


class _CarefulReadNeededError(Exception):
    """The fast path met a line it cannot take: read the file again, line by line."""


# ----------------------------------------------------------------------- reading


def _open(path: Path) -> pa.NativeFile | object:
    """The file's decompressed bytes: ISA-L gunzip (about 2.5x zlib) or the plain file.

    Raises:
        LakeError: a ``*.gz`` file that does not start with the gzip magic.
    """
    with path.open("rb") as handle:
        magic = handle.read(2)
    if magic != b"\x1f\x8b":
        if path.name.endswith(".gz"):
            raise LakeError(
                f"{path}: not a gzip file (named *.gz, but its first bytes are {magic!r}, "
                "not the gzip magic)"
            )
        return pa.input_stream(str(path))
    from isal import igzip

    return igzip.open(path, "rb")


class _Utf8Replacing(io.RawIOBase):
    """A byte stream with every invalid UTF-8 sequence replaced by U+FFFD (the careful path).

    Arrow's CSV parser cannot hand a wrong-width line with such bytes to the invalid-row
    handler (it fails the whole file); replaced, the line is rejected like any other. Newlines
    are never part of an invalid sequence, so lines keep their numbers.
    """

    def __init__(self, raw) -> None:
        super().__init__()
        self._raw = raw
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pending = b""
        self._ended = False

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        want = size if size is not None and size >= 0 else 1 << 24
        while len(self._pending) < want and not self._ended:
            chunk = self._raw.read(max(want, 1 << 16))
            self._ended = not chunk
            text = self._decoder.decode(chunk, final=self._ended)
            self._pending += text.encode("utf-8")
        out, self._pending = self._pending[:want], self._pending[want:]
        return out

    def close(self) -> None:
        self._raw.close()
        super().close()


def _check_header(path: Path, text_format: TextFormat) -> bool:
    """Refuse a wrong header; return whether the file has any content at all."""
    stream = _open(path)
    try:
        # read(), not readline(): the plain file's Arrow stream has no readline()
        start = stream.read(1 << 16)
    finally:
        stream.close()
    first = start.split(b"\n", 1)[0].decode("utf-8", errors="replace").rstrip("\r")
    if _LISTED_PATH.fullmatch(first):
        raise LakeError(
            f"{path}:1: a listing of files to download ({first[:120]!r}), not {text_format.name} "
            "data: fetch each listed path from https://data.commoncrawl.org/ and pass the "
            "downloaded files"
        )
    if text_format.header is None:
        if first.startswith("#"):
            raise LakeError(f"{path}:1: a header line, but a {text_format.name} file has none")
        return bool(start)
    if first == DOMAIN_HEADER:
        raise LakeError(
            f"{path}:1: a domain-level ranks file (#n_hosts column); hostaware reads the "
            "host-level graph (<release>-host-ranks.txt.gz)"
        )
    if first != text_format.header:
        raise LakeError(f"{path}:1: not a Common Crawl {text_format.name} header: {first[:120]!r}")
    return True


def _reader(path: Path, text_format: TextFormat, careful: bool, block_size: int, handler):
    names = [name for name, _ in text_format.columns]
    types = (
        dict.fromkeys(names, pa.string())
        if careful
        else {name: _TYPES[kind] for name, kind in text_format.columns}
    )
    stream = _open(path)
    return csv.open_csv(
        _Utf8Replacing(stream) if careful else stream,
        read_options=csv.ReadOptions(
            skip_rows=1 if text_format.header else 0,
            column_names=names,
            block_size=block_size,
            use_threads=not careful,
        ),
        parse_options=csv.ParseOptions(
            delimiter="\t",
            quote_char=False,
            double_quote=False,
            invalid_row_handler=handler,
            ignore_empty_lines=False,  # a blank line is a line: rejected, and counted
        ),
        convert_options=csv.ConvertOptions(
            column_types=types,
            null_values=[] if careful else ["---"],
            strings_can_be_null=not careful,
            quoted_strings_can_be_null=False,
            check_utf8=not careful,  # careful: a line with bad bytes is rejected, not fatal
        ),
    )


# The ranks values' possible range (module docstring): (low, high), None for no bound.
_VALUE_RANGES = {"hc_val": (0.0, None), "pr_val": (0.0, 1.0)}


def _null_impossible_values(
    batch: pa.RecordBatch, report: IngestReport, line_of: Callable[[int], int]
) -> pa.RecordBatch:
    """The typed batch with impossible ranks values nulled, each counted by reason."""
    columns = list(batch.columns)
    for index, name in enumerate(batch.schema.names):
        if name not in _VALUE_RANGES:
            continue
        column = columns[index]
        low, high = _VALUE_RANGES[name]
        non_finite = ~np.asarray(
            pc.fill_null(pc.is_finite(column), True).to_numpy(zero_copy_only=False)
        )
        outside = pc.less(column, low)  # false for NaN
        if high is not None:
            outside = pc.or_(outside, pc.greater(column, high))
        out_of_range = np.asarray(pc.fill_null(outside, False).to_numpy(zero_copy_only=False))
        out_of_range &= ~non_finite
        if not (non_finite.any() or out_of_range.any()):
            continue  # the common case: nothing to null
        for reason, mask in (
            (f"non_finite_{name}", non_finite),
            (f"out_of_range_{name}", out_of_range),
        ):
            rows = np.flatnonzero(mask)
            for row in rows[:3].tolist():
                report.null(reason, line_of(row), f"{name}={column[row].as_py()!r}")
            if rows.size > 3:
                report.nulled[reason] += int(rows.size - 3)
        columns[index] = pc.if_else(pa.array(non_finite | out_of_range), None, column)
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema)


def _fast_batches(
    path: Path, text_format: TextFormat, report: IngestReport, block_size: int
) -> Iterator[pa.RecordBatch]:
    # No invalid-row handler: a wrong-width line fails the parse (then the careful path),
    # without Arrow first decoding the line for a handler (which fails on bytes not UTF-8).
    first_line = 2 if text_format.header else 1  # no line is skipped on the fast path
    try:
        for batch in _reader(path, text_format, False, block_size, None):
            for (name, kind), column in zip(text_format.columns, batch.columns, strict=True):
                if kind in ("id", "host") and column.null_count:
                    raise _CarefulReadNeededError(f"a missing {name}")
                if kind in ("id", "position") and len(column) > column.null_count:
                    lowest = pc.min(column).as_py()
                    if lowest < (0 if kind == "id" else 1):
                        raise _CarefulReadNeededError(f"{name} {lowest} out of range")
                if kind == "host" and bad_dotted_names(column).any():
                    raise _CarefulReadNeededError("a malformed host name")
            base = first_line + report.read
            report.read += batch.num_rows
            report.written += batch.num_rows
            yield _null_impossible_values(batch, report, lambda index, base=base: base + index)
    except (pa.ArrowInvalid, UnicodeDecodeError) as error:
        raise _CarefulReadNeededError(str(error).splitlines()[0]) from error


def _bad_numbers(column: pa.Array, kind: str) -> tuple[np.ndarray, pa.Array]:
    """Rows of a text column that are not a number of its kind, and the column as numbers."""
    missing = pc.equal(column, "---")
    allowed_missing = kind in ("position", "value")
    text = pc.if_else(missing, None, column) if allowed_missing else column
    pattern = _FLOAT if kind == "value" else _INTEGER
    bad = np.asarray(
        pc.invert(pc.fill_null(pc.match_substring_regex(text, pattern), allowed_missing))
        .to_numpy(zero_copy_only=False)
        .copy()
    )
    trimmed = pc.utf8_trim_whitespace(pc.if_else(pa.array(bad), None, text))
    try:
        numbers = pc.cast(trimmed, _TYPES[kind])
    except pa.ArrowInvalid:  # the pattern let through what the cast refuses: value by value
        values = []
        for row, value in enumerate(trimmed.to_pylist()):
            try:
                values.append(None if value is None else pc.cast(pa.scalar(value), _TYPES[kind]))
            except pa.ArrowInvalid:
                bad[row] = True
                values.append(None)
        numbers = pa.array([None if v is None else v.as_py() for v in values], _TYPES[kind])
    if kind in ("position", "id"):
        low = 1 if kind == "position" else 0
        below = pc.fill_null(pc.less(numbers, low), False).to_numpy(zero_copy_only=False)
        bad |= below
    return bad, numbers


def _careful_batches(
    path: Path, text_format: TextFormat, report: IngestReport, block_size: int
) -> Iterator[pa.RecordBatch]:
    extra: list[tuple[int, str]] = []

    def wrong_width(row: csv.InvalidRow) -> str:
        extra.append((row.number, row.text))
        return "skip"

    # Arrow's parser reads a block ahead: the wrong-width lines reported while a batch is
    # parsed may lie in the next batch. So keep every one met so far (file lines, sorted) and
    # number rows by their position among the well-formed rows of the whole file.
    first_line = 2 if text_format.header else 1
    skipped: list[int] = []
    rows_before = 0  # well-formed rows in the batches before this one
    for batch in _reader(path, text_format, True, block_size, wrong_width):
        for number, text in extra:
            report.read += 1
            report.reject("wrong_column_count", number, text)
            if number > 0:
                bisect.insort(skipped, number)
        extra.clear()

        def line_of(index: int, base: int = first_line + rows_before) -> int:
            """The file line of the batch's row ``index`` (skipped lines above it counted)."""
            number, above = base + index, 0
            while (now := bisect.bisect_right(skipped, number)) != above:
                number, above = number + now - above, now
            return number

        report.read += batch.num_rows
        columns = []
        reasons: list[tuple[str, np.ndarray]] = []
        for (name, kind), column in zip(text_format.columns, batch.columns, strict=True):
            if kind == "host":  # `---` is a missing host (null on the fast path), not a name
                missing = pc.fill_null(pc.equal(column, "---"), False)
                bad = bad_dotted_names(column) | missing.to_numpy(zero_copy_only=False)
                columns.append(column)
            else:
                bad, numbers = _bad_numbers(column, kind)
                columns.append(numbers)
            reasons.append((f"malformed_{name}", bad))
        bad_any = np.logical_or.reduce([bad for _, bad in reasons])
        if bad_any.any():
            texts = [column.cast(pa.binary()).to_pylist() for column in batch.columns]
            for index in np.flatnonzero(bad_any).tolist():
                reason = next(reason for reason, bad in reasons if bad[index])
                fields = "\t".join(column[index].decode(errors="replace") for column in texts)
                report.reject(reason, line_of(index), fields)
            keep = pa.array(~bad_any)
            columns = [pc.filter(column, keep) for column in columns]
        rows_before += batch.num_rows
        typed = pa.RecordBatch.from_arrays(
            columns,
            schema=pa.schema([(name, _TYPES[kind]) for name, kind in text_format.columns]),
        )
        report.written += typed.num_rows
        kept_lines = np.flatnonzero(~bad_any) if bad_any.any() else None

        def kept_line_of(index: int, kept=kept_lines, line_of=line_of) -> int:
            return line_of(index if kept is None else int(kept[index]))

        yield _null_impossible_values(typed, report, kept_line_of)
    for number, text in extra:
        report.read += 1
        report.reject("wrong_column_count", number, text)


def read_text_table(
    path: Path,
    text_format: TextFormat,
    sink: Callable[[pa.RecordBatch], None],
    reset: Callable[[], None],
    block_size: int = BLOCK_SIZE,
) -> IngestReport:
    """Stream a graph text file into ``sink``, batch by batch; return what was read.

    Batches carry the format's columns, numbers typed, hosts as written. When the fast path
    gives up half-way, ``reset`` is called (drop what the sink has) and the careful path
    starts again from the first line.

    Raises:
        LakeError: for a wrong header, a truncated or corrupt gzip file, or text that even the
            careful path cannot parse.
    """
    try:
        if not _check_header(path, text_format):
            return IngestReport(path)  # an empty vertices or edges file: no lines
        report = IngestReport(path)
        try:
            for batch in _fast_batches(path, text_format, report, block_size):
                sink(batch)
            return report
        except _CarefulReadNeededError as why:
            log.info("%s: %s; reading it again line by line", path, why)
        reset()
        report = IngestReport(path)
        for batch in _careful_batches(path, text_format, report, block_size):
            sink(batch)
        return report
    except (EOFError, gzip.BadGzipFile, isal_zlib.error) as error:  # truncated or corrupt
        raise LakeError(f"{path}: not a readable gzip file: {error}") from error
    except OSError as error:  # a damaged stream ("zlib inflate failed"), a failing disk
        what = "not a readable gzip file" if path.name.endswith(".gz") else "cannot read it"
        raise LakeError(f"{path}: {what}: {error}") from error
    except pa.ArrowInvalid as error:  # what even the careful path cannot parse
        raise LakeError(f"{path}: unreadable: {str(error).splitlines()[0]}") from error
