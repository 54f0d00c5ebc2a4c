"""The WARC record parser: records read whole, damaged units, and where reading stops.

:func:`records` walks a :class:`~ingest.warc_members.ByteSource` and yields a :class:`Record`
per record read whole, a :class:`Damage` per truncated, corrupt or malformed unit, and a
:class:`Stop` where nothing after a damaged unit can be resumed at (see :mod:`ingest.warc` for
the resynchronisation rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ingest.warc_items import MAX_PAYLOAD
from ingest.warc_members import (
    INFLATE_STEP,
    MAX_HEADER,
    VERSION_LINE,
    ByteSource,
    CutError,
    MalformedError,
    StreamError,
)

_TRAILER_SLACK = 8  # bytes tolerated between a block's end and the next record
_RECORD_END = b"\r\n\r\n"  # what closes every record after its block
_RESYNC_LINE = re.compile(rb"\nWARC/[0-9]{1,3}\.[0-9]{1,3}\r?\n")
_CONTENT_LENGTH = re.compile(r"[0-9]{1,18}")
_FIELD_NAME = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # an RFC 9110 token


@dataclass
class Record:
    """A record read whole."""

    offset: int
    headers: dict[str, str]  # lower-cased names, first value of each
    block: bytes | None  # None when longer than MAX_PAYLOAD (skipped unread)
    length: int


@dataclass
class Damage:
    """A damaged unit of the file: a record or a stretch that could not be read whole."""

    offset: int
    reason: str
    detail: str
    headers: dict[str, str] | None
    count: int = 1


@dataclass
class Stop:
    """Where the file cannot be read on (nothing after it could be resumed at)."""

    offset: int
    message: str


def records(source: ByteSource) -> Iterator[Record | Damage | Stop]:
    """Every record of the file, every damaged unit, and a stop where nothing can be resumed."""
    while True:
        source.drop_consumed()
        source.skip_newlines()
        start = source.tell()
        if source.fill_to(start + 1) <= start:
            if source.error is not None:
                stop = yield from _recover(source, source.error, None)
                if stop:
                    return
                continue
            if source.truncated_member is not None:
                yield Damage(
                    source.truncated_member,
                    "truncated_record",
                    f"the file ends inside the gzip member at byte {source.truncated_member}",
                    None,
                )
            return
        offset = source.offset_of(start)
        aligned = source.gzipped and source.member_starts_at(start)
        headers: dict[str, str] = {}
        try:
            yield _read_record(source, start, offset, aligned, headers)
        except CutError as error:
            yield Damage(
                offset,
                "truncated_record",
                f"the file ends inside the record at byte {offset}"
                + (f" ({headers.get('warc-type', '?')} record)" if headers else "")
                + (f": {error}" if str(error) else ""),
                headers or None,
            )
            return
        except StreamError as error:
            stop = yield from _recover(source, error, headers or None, offset)
            if stop:
                return
        except MalformedError as error:
            yield Damage(offset, error.reason, str(error), headers or None)
            if not error.resume_here and not (yield from _resume(source, start, aligned)):
                cut = source.truncated_member
                if cut is not None and cut != offset:  # a later member is cut short too
                    yield Damage(
                        cut,
                        "truncated_record",
                        f"the file ends inside the gzip member at {cut}",
                        None,
                    )
                return


def _recover(
    source: ByteSource,
    error: StreamError,
    headers: dict[str, str] | None,
    record_offset: int | None = None,
) -> Iterator[Damage | Stop]:
    """A corrupt gzip member: yield it as damage and restart after it; True when none follows."""
    offset = error.offset if record_offset is None else min(record_offset, error.offset)
    resume, passed = source.find_member(error.offset)
    if resume is None:
        yield Stop(offset, f"{error}; no readable gzip member after it")
        return True
    yield Damage(
        offset,
        "corrupt_member",
        f"{error}; bytes {offset}..{resume} skipped",
        headers,
        count=1 + passed,
    )
    source.restart(resume)
    return False


def _resume(source: ByteSource, start: int, aligned: bool) -> Iterator[Damage | Stop]:
    """Go to the next record start after a malformed record at ``start``; False at the end.

    ``aligned`` (the record began a gzip member): at the next member that starts a record;
    otherwise at the next WARC version line.
    """
    source.seek(start + 1)
    while True:
        here = source.tell()
        held = len(source.buffer) - source.cursor
        if aligned:
            for position in source.member_starts(here - 1, here + held + 1):
                if source.starts_record(position):
                    source.seek(position)
                    return True
        if not aligned or source.multi_record_members:
            match = _RESYNC_LINE.search(source.buffer, max(source.cursor - 1, 0))
            if match:
                source.seek(source.start + match.start() + 1)
                return True
        keep = 0 if aligned and not source.multi_record_members else 32
        source.seek(max(here, source.start + len(source.buffer) - keep))
        source.drop_consumed()
        if not source.produce():
            source.seek(source.start + len(source.buffer))
            if source.error is not None:
                stop = yield from _recover(source, source.error, None)
                return not stop
            return False


def _read_record(
    source: ByteSource, start: int, offset: int, aligned: bool, headers: dict[str, str]
) -> Record:
    """One record from ``start`` (filling ``headers`` as they are read)."""
    line = source.readline(MAX_HEADER)
    if not VERSION_LINE.fullmatch(line):
        raise MalformedError(
            "malformed_record", f"no WARC version line at byte {offset}: {line[:40]!r}"
        )
    size = len(line)
    last = ""
    while True:
        line = source.readline(MAX_HEADER - size)
        size += len(line)
        text = line.rstrip(b"\r\n")
        if not text:
            break
        if text[:1] in (b" ", b"\t") and last:  # a folded continuation line
            headers[last] += " " + text.strip().decode("utf-8", "replace")
            continue
        name, colon, value = text.partition(b":")
        if not colon or not _FIELD_NAME.fullmatch(name.strip()):
            raise MalformedError(
                "malformed_record", f"WARC header line without a field name: {text[:60]!r}"
            )
        last = name.strip().decode("ascii").lower()
        if last not in headers:
            headers[last] = value.strip().decode("utf-8", "replace")
    length_text = headers.get("content-length", "")
    if not _CONTENT_LENGTH.fullmatch(length_text):
        raise MalformedError("malformed_record", f"no numeric Content-Length: {length_text[:40]!r}")
    length = int(length_text)
    block = _read_block(source, length, aligned)
    _check_record_end(source, offset, aligned)
    return Record(offset, headers, block, length)


def _read_block(source: ByteSource, length: int, aligned: bool) -> bytes | None:
    """The block: None past MAX_PAYLOAD (then skipped unread).

    In a file gzipped per record, stops at a gzip member inside it that starts a record (the
    ``Content-Length`` lies).
    """
    keep = length <= MAX_PAYLOAD
    parts: list[bytes] = []
    begin = source.tell()
    remaining = length
    while remaining:
        here = source.tell()
        step = min(remaining, INFLATE_STEP)
        try:
            piece = source.read(step)
        except CutError:
            got = length - remaining + max(0, source.fill_to(here + step) - here)
            raise CutError(f"{got} of {length} block bytes") from None
        if aligned:
            for position in source.member_starts(begin, here + step):
                if source.starts_record(position):
                    source.seek(position)
                    raise MalformedError(
                        "bad_content_length",
                        f"Content-Length {length} runs into the next record "
                        f"(gzip member at byte {source.offset_of(position)})",
                        resume_here=True,
                    )
        if keep:
            parts.append(piece)
        else:
            source.drop_consumed()
        remaining -= step
    return b"".join(parts) if keep else None


def _check_record_end(source: ByteSource, offset: int, aligned: bool) -> None:
    """Consume the record's end; raise when the block does not end where a record ends."""
    end = source.tell()
    held = source.fill_to(end + _TRAILER_SLACK + 1)
    if aligned:
        following = source.member_starts(end - 1, held + 1)
        if following and following[0] - end <= _TRAILER_SLACK:
            gap = following[0] - end
            if gap < len(_RECORD_END) and source.peek(gap) == _RECORD_END[len(_RECORD_END) - gap :]:
                # The block took some of the record's closing CRLFs: Content-Length overstates
                # it (an understatement leaves stray bytes instead, tolerated above).
                source.seek(following[0])
                raise MalformedError(
                    "bad_content_length",
                    f"Content-Length overstates the block by {len(_RECORD_END) - gap} bytes "
                    "(it takes the record's closing CRLFs)",
                    resume_here=True,
                )
            source.seek(following[0])
            return
        if not following and held - end <= _TRAILER_SLACK:
            if source.error is not None and source.error.offset == offset:
                raise source.error
            if source.truncated_member == offset:
                raise CutError()
            source.seek(held)
            return
        if _next_record_follows(source, end):  # a gzip member holding many records
            source.multi_record_members = True
            return
        raise MalformedError(
            "bad_content_length",
            f"the record's gzip member goes on after its Content-Length "
            f"({source.peek(_TRAILER_SLACK + 1)!r})",
        )
    if not _next_record_follows(source, end):
        rest = source.peek(_TRAILER_SLACK + 6)
        raise MalformedError(
            "bad_content_length", f"no record follows its Content-Length: {rest!r}"
        )


def _next_record_follows(source: ByteSource, end: int) -> bool:
    """Whether the end of the file or a record follows the block ending at ``end`` (consumed)."""
    wanted = _TRAILER_SLACK + 6
    rest = source.peek(wanted)
    if len(rest) < wanted and len(rest) <= _TRAILER_SLACK and rest[-1:] in (b"", b"\n"):
        source.seek(end + len(rest))  # the end of what can be read: the next loop tells why
        return True
    index = rest.find(b"WARC/")
    if 0 < index <= _TRAILER_SLACK and rest[:index].endswith(b"\n"):
        source.seek(end + index)
        return True
    return False
