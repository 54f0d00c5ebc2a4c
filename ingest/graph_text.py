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

A ranks file with its header and no line after it is refused before any reader opens
(:class:`ingest.lake.LakeError`, naming the file). Arrow's streaming CSV reader reads ahead on its
own IO threads; when the stream is a Python object (the ISA-L gunzip), the last of those threads
to let go of it must take the GIL to release it. If that happens after the interpreter began to
exit, the thread is killed in C++ code that cannot unwind ("terminate called without an active
exception", exit 134): a file with no lines ended the read while a thread still held the reader,
and a fast exit won the race under load. So every reader is closed by :func:`_csv_batches`, which
waits until the stream it gave Arrow has been released before it returns.
"""

from __future__ import annotations

import bisect
import codecs
import gc
import gzip
import io
import logging
import re
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import closing
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
    if b"\n" not in start or not start.split(b"\n", 1)[1]:
        raise LakeError(
            f"{path}: a {text_format.name} file with its header and no lines: a release's "
            "ranks list every host of its graph, so the file was cut short (download it "
            "again); nothing ingested"
        )
    return True


_RELEASE_WAIT = 60.0  # seconds to wait for Arrow's threads to let go of what they hold


class _Holdings:
    """Python objects handed to Arrow, counted until Arrow's threads have freed every one."""

    def __init__(self) -> None:
        self._count = 0
        self._changed = threading.Condition()

    def hold(self, thing: object) -> None:
        with self._changed:
            self._count += 1
        weakref.finalize(thing, self._freed)

    def _freed(self) -> None:  # in whichever thread dropped the last reference, GIL held
        with self._changed:
            self._count -= 1
            self._changed.notify_all()

    def wait(self, timeout: float) -> bool:
        """Wait until every object held has been freed; whether it was, within ``timeout``."""
        with self._changed:
            return self._changed.wait_for(lambda: self._count == 0, timeout)


class _Block(bytearray):
    """A block of the file as Arrow receives it: a bytearray that can be watched (weakref)."""


class _WatchedStream(io.RawIOBase):
    """A Python byte stream for Arrow whose blocks, and itself, are counted in a :class:`_Holdings`.

    Arrow keeps what ``read`` returns (and the stream) in futures that its IO threads may free
    last: each is watched, so that :func:`_csv_batches` can wait until all are freed.
    """

    def __init__(self, raw, holdings: _Holdings) -> None:
        super().__init__()
        self._raw = raw
        self._holdings = holdings
        self._fill = isinstance(raw, io.BufferedIOBase)  # readinto: no copy (the gunzip)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if self._fill and size is not None and size >= 0:
            block = _Block(size)
            del block[self._raw.readinto(block) :]
        else:
            block = _Block(self._raw.read(size))
        self._holdings.hold(block)
        return block

    def close(self) -> None:
        self._raw.close()
        super().close()


def _csv_batches(
    path: Path, text_format: TextFormat, careful: bool, block_size: int, handler
) -> Iterator[pa.RecordBatch]:
    """Arrow's streaming reader over the file, batch by batch, and its orderly end.

    When the batches end (or the generator is closed early), the reader is closed and every
    Python object Arrow was handed (the stream, each block read from it) has been freed
    before this returns. One of Arrow's IO threads may hold the last reference (a read-ahead
    still finishing); freeing it there needs the GIL, which a thread cannot take once the
    interpreter exits: the process aborts (module docstring). So the frees are awaited here,
    while the interpreter runs. The reader never leaves this generator: no caller's variable
    keeps it alive.
    """
    raw = _open(path)
    if careful:
        raw = _Utf8Replacing(raw)
    holdings = _Holdings()
    stream = raw
    if not isinstance(raw, pa.NativeFile):  # Arrow's own file is freed without the GIL
        stream = _WatchedStream(raw, holdings)
        holdings.hold(stream)
    failure: Exception | None = None
    try:
        reader = _open_reader(stream, text_format, careful, block_size, handler)
        try:
            yield from reader
        finally:
            reader.close()
            del reader
    except Exception as error:  # a parse error: its traceback's frames hold the reader
        failure = error.with_traceback(None)
    finally:
        del stream, raw  # now only Arrow may hold them
        if not holdings.wait(1.0):
            gc.collect()  # a cycle through a traceback, say
            if not holdings.wait(_RELEASE_WAIT):
                log.warning("%s: Arrow's reader still holds the file after a minute", path)
    if failure is not None:
        raise failure


def _open_reader(stream, text_format: TextFormat, careful: bool, block_size: int, handler):
    names = [name for name, _ in text_format.columns]
    types = (
        dict.fromkeys(names, pa.string())
        if careful
        else {name: _TYPES[kind] for name, kind in text_format.columns}
    )
    return csv.open_csv(
        stream,
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
        with closing(_csv_batches(path, text_format, False, block_size, None)) as batches:
            for batch in batches:
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
    for batch in _csv_batches(path, text_format, True, block_size, wrong_width):
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
