"""The WARC and ARC record parser: records read whole, damaged units, and where reading stops.

:func:`records` walks a :class:`~ingest.warc_members.ByteSource` (reading ARC header lines when
the source is an ARC file, each mapped to the WARC fields the reader uses) and yields a
:class:`Record` per record read whole, a :class:`Damage` per truncated, corrupt or malformed
unit, and a :class:`Stop` where nothing after a damaged unit can be resumed at (see
:mod:`ingest.warc` for the resynchronisation rules).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ingest.warc_items import MAX_PAYLOAD
from ingest.warc_members import (
    ARC_LINE,
    ARC_START,
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
_ARC_RESYNC = re.compile(rb"\n" + ARC_LINE.pattern)
_ARC_HEADER_LIMIT = 16 * 1024  # bytes of one ARC header line
_ARC_DATE = re.compile(r"[0-9]{14}")
_ARC_NEXT = re.compile(rb"[A-Za-z][A-Za-z0-9+.\-]{0,31}:")  # what starts an ARC header line
_CONTENT_LENGTH = re.compile(r"[0-9]{1,18}")
_FIELD_NAME = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # an RFC 9110 token


@dataclass
class Record:
    """A record read whole."""

    offset: int
    headers: dict[str, str]  # lower-cased names, first value of each
    block: bytes | None  # None when longer than MAX_PAYLOAD (skipped unread)
    length: int
    understated: int = 0  # block bytes past Content-Length before the record's end (tolerated)


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
            read = _read_arc_record if source.arc else _read_record
            yield read(source, start, offset, aligned, headers)
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
            resync = _ARC_RESYNC if source.arc else _RESYNC_LINE
            match = resync.search(source.buffer, max(source.cursor - 1, 0))
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
    understated = _check_record_end(source, offset, aligned)
    return Record(offset, headers, block, length, understated)


def _read_arc_record(
    source: ByteSource, start: int, offset: int, aligned: bool, headers: dict[str, str]
) -> Record:
    """One ARC record from ``start``, its header line read into WARC-named ``headers``.

    ARC (the Internet Archive's format before WARC; Common Crawl's 2008–2012 crawls): a header
    line, ``URL IP-address Archive-date Content-type Archive-length`` in version 1 (version 2
    puts five more fields before the length; the version block's third line names them), then
    Archive-length bytes, then a newline. The URL may hold spaces (the other fields do not).
    The first record, ``filedesc://…``, is the file's version block (read as ``warcinfo``);
    each other record holds an HTTP response (or a DNS answer, ``dns:``), read as ``response``.
    An ARC record has no record id: ``warc-record-id`` is
    ``<urn:sha1:BASE32>`` of the header line and the block, so a record has the same id in any
    copy of its file; ``warc-date`` is the 14-digit archive date (UTC) as ISO 8601.
    """
    line = source.readline(_ARC_HEADER_LIMIT)
    text = line.rstrip(b"\r\n").decode("utf-8", "replace")
    first = start == 0 or text.startswith(ARC_START.decode())
    fields = text.rsplit(" ", source.arc_fields - 1)
    if (
        len(fields) != source.arc_fields
        or not fields[0]
        or not _ARC_DATE.fullmatch(fields[2])
        or not fields[-1].isascii()
        or not fields[-1].isdigit()
        or any(not char.isprintable() for char in text)
    ):
        raise MalformedError(
            "malformed_record", f"no ARC header line at byte {offset}: {line[:60]!r}"
        )
    url, date, length = fields[0], fields[2], int(fields[-1])
    headers["warc-type"] = "warcinfo" if first and url.startswith("filedesc://") else "response"
    headers["warc-target-uri"] = url
    headers["warc-date"] = (
        f"{date[0:4]}-{date[4:6]}-{date[6:8]}T{date[8:10]}:{date[10:12]}:{date[12:14]}Z"
    )
    headers["content-type"] = fields[3]
    headers["content-length"] = str(length)
    block = _read_block(source, length, aligned)
    digest = hashlib.sha1(line.rstrip(b"\r\n"))
    digest.update(block or b"")
    headers["warc-record-id"] = f"<urn:sha1:{base64.b32encode(digest.digest()).decode()}>"
    if headers["warc-type"] == "warcinfo" and block is not None:
        names = block.split(b"\n", 3)[2:3]  # "URL IP-address Archive-date ..." (version 1)
        if names and len(names[0].split()) in (5, 10):
            source.arc_fields = len(names[0].split())
    _check_arc_end(source, offset, aligned)
    return Record(offset, headers, block, length)


def _check_arc_end(source: ByteSource, offset: int, aligned: bool) -> None:
    """Consume an ARC record's end (a newline, or none); raise when no record or the end follows."""
    end = source.tell()
    held = source.fill_to(end + _TRAILER_SLACK + 1)
    if aligned:
        following = source.member_starts(end - 1, held + 1)
        if following and following[0] - end <= _TRAILER_SLACK:
            source.seek(following[0])
            return
        if not following and held - end <= _TRAILER_SLACK:
            if source.error is not None and source.error.offset == offset:
                raise source.error
            if source.truncated_member == offset:
                raise CutError()
            source.seek(held)
            return
    rest = source.peek(_TRAILER_SLACK + 40)
    newlines = len(rest) - len(rest.lstrip(b"\r\n"))
    if newlines == len(rest) and len(rest) <= _TRAILER_SLACK:
        source.seek(end + len(rest))  # the end of the file
        return
    if newlines <= _TRAILER_SLACK and _ARC_NEXT.match(
        rest, newlines
    ):  # Heritrix counts the newline in the length
        if aligned:
            source.multi_record_members = True
        source.seek(end + newlines)
        return
    raise MalformedError(
        "bad_content_length", f"no ARC record follows its Archive-length: {rest!r}"
    )


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


def _check_record_end(source: ByteSource, offset: int, aligned: bool) -> int:
    """Consume the record's end; raise when the block does not end where a record ends.

    Returns by how many bytes ``Content-Length`` understates the block when the record is
    tolerated with stray bytes (at most ``_TRAILER_SLACK``) before its closing CRLFs.
    """
    end = source.tell()
    held = source.fill_to(end + _TRAILER_SLACK + 1)
    if aligned:
        following = source.member_starts(end - 1, held + 1)
        if following and following[0] - end <= _TRAILER_SLACK:
            gap = following[0] - end
            if (
                gap < len(_RECORD_END)
                and source.peek(gap) == _RECORD_END[len(_RECORD_END) - gap :]
                and source.starts_record(following[0])
            ):
                # The block took some of the record's closing CRLFs and the next member starts
                # the next record: Content-Length overstates the block. When the next member
                # starts with the closing CRLFs instead (warcio's example-wrong-chunks), the
                # bytes before it are the block's own: Content-Length understates it.
                source.seek(following[0])
                raise MalformedError(
                    "bad_content_length",
                    f"Content-Length overstates the block by {len(_RECORD_END) - gap} bytes "
                    "(it takes the record's closing CRLFs)",
                    resume_here=True,
                )
            understated = _understated_by(source, end, following[0], member=True)
            source.seek(following[0])
            return understated
        if not following and held - end <= _TRAILER_SLACK:
            if source.error is not None and source.error.offset == offset:
                raise source.error
            if source.truncated_member == offset:
                raise CutError()
            understated = _understated_by(source, end, held)
            source.seek(held)
            return understated
        if _next_record_follows(source, end):  # a gzip member holding many records
            source.multi_record_members = True
            _check_not_overstated(source, end)
            return _understated_by(source, end, source.tell())
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
    _check_not_overstated(source, end)
    return _understated_by(source, end, source.tell())


def _check_not_overstated(source: ByteSource, end: int) -> None:
    """Raise when the block took some of the record's closing ``CRLF CRLF`` (WARC 1.1 §4).

    That is when fewer bytes than it, and only its end, come between the block's end and the
    next record (consumed up to it): Content-Length overstates the block by the bytes taken.
    """
    between = source.tell() - end
    source.seek(end)
    stray = source.peek(between)
    source.seek(end + between)
    if 0 < between < len(_RECORD_END) and stray == _RECORD_END[len(_RECORD_END) - between :]:
        raise MalformedError(
            "bad_content_length",
            f"Content-Length overstates the block by {len(_RECORD_END) - between} bytes "
            "(it takes the record's closing CRLFs)",
            resume_here=True,
        )


def _understated_by(source: ByteSource, end: int, start: int, member: bool = False) -> int:
    """Block bytes between ``end`` (Content-Length's end) and the record's closing CRLFs.

    The bytes from ``end`` to ``start``, where the next record (or, with ``member``, the next
    gzip member, then its leading newlines) starts, are the stray block bytes then the record's
    end: ``CRLF CRLF`` (WARC 1.1 §4), or the newlines some writers put instead.
    """
    here = source.tell()
    source.seek(end)
    rest = source.peek(start - end + (len(_RECORD_END) if member else 0))
    source.seek(here)
    if member:
        after = rest[start - end :]
        rest = rest[: start - end] + after[: len(after) - len(after.lstrip(b"\r\n"))]
    if rest.endswith(_RECORD_END):
        return len(rest) - len(_RECORD_END)
    return len(rest.rstrip(b"\r\n"))


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
