"""Reading WARC and WET files: everything read comes out as a page, a rejection, or a break.

**What is read.** The reader parses the WARC records itself (gzip members inflated with
:mod:`zlib`), so that every byte of the file is accounted for. What :func:`read_captures` yields,
in file order, is exactly one item per *record read*, where a record read is

* a *capture*: a ``response``, ``revisit``, ``resource`` or ``conversion`` record, or a record of
  a type that is no WARC 1.1 type (``unknown_warc_type``); each becomes a :class:`Page`, a
  :class:`TextPage` or a :class:`Rejection`;
* a *damaged unit*: a record of any type, or a stretch of the file, that could not be read whole
  (``truncated_record``, ``corrupt_member``, ``malformed_record``, ``bad_content_length``); it
  becomes one :class:`Rejection` whose ``count`` says how many gzip members it stands for (see
  below), or, when nothing after it can be read, a :class:`Break`.

``warcinfo``, ``request``, ``continuation`` and ``metadata`` records that are read whole are not
records read: a Common Crawl ``metadata`` record that follows its response
(``WARC-Concurrent-To``) lends its ``languages-cld2`` JSON to the page, the others are passed
over. Damage is counted whatever the record's type, since a damaged unit may have held a capture.
So for the documents ingest, records read = pages + rejections (each weighing ``count``) + breaks.

**Damage and resynchronisation.** Every truncation and corruption surfaces:

* ``truncated_record``: the file ends inside a record (its WARC header, its block, its gzip
  member, even the gzip member's 8-byte trailer or the next member's gzip header). The records
  before the cut come out unchanged. A cut that falls exactly between two records leaves a shorter
  but valid WARC file; nothing in the bytes tells it from a complete file (WARC has no end marker).
* ``corrupt_member``: a gzip member that does not inflate (bad deflate data, CRC or length check)
  or bytes where the next member's gzip header should be. The reader resynchronises at the next
  gzip member whose data starts with a WARC version line (Common Crawl writes one record per gzip
  member), and the rejection counts the members skipped: one, plus each further gzip member header
  met in the skipped bytes. When no member after it is readable, the rest of the file is a
  :class:`Break` (``offset`` and message say where and why).
* ``malformed_record``: no ``WARC/x.y`` version line where a record must start, a header line
  whose field name is no token (``name: value``), a header longer than ``_MAX_HEADER`` bytes,
  or a missing or non-numeric ``Content-Length``.
* ``bad_content_length``: the block does not end where ``Content-Length`` says: in a file gzipped
  per record, the block runs into the next gzip member that starts a record, or the record's member
  goes on for more than ``_TRAILER_SLACK`` bytes after it; otherwise, no record follows within
  ``_TRAILER_SLACK`` bytes. Up to ``_TRAILER_SLACK`` stray bytes before the next record are
  tolerated: Common Crawl's CC-MAIN-2018-34 WARC files understate ``Content-Length`` by 2 bytes.

After a ``malformed_record`` or ``bad_content_length``, reading resumes at the next gzip member
that starts a record when the bad record began a member; in an uncompressed file (or a gzip file
with many records per member) at the next line that is a WARC version line (``WARC/1.0``), searched
from the byte after the bad record's start, so a record swallowed by a lying ``Content-Length``
is read. A payload that itself holds such a line can make that resumption start too early; the
records that do not parse are then counted as damaged too, never silently dropped.

**Per record.** One bad record never stops the file. A capture without ``WARC-Record-ID`` is
rejected (``missing_record_id``), a response or conversion without a usable http(s)
``WARC-Target-URI`` too (``missing_target_uri``, ``bad_target_uri``), a block longer than
:data:`MAX_PAYLOAD` is skipped unread and a payload that inflates past it is not inflated further
(``payload_too_large``), and any other exception while a record is interpreted becomes an
``unreadable_record`` rejection whose ``detail`` keeps the exception's type and text. Values that
cannot be read but do not make a page unusable are set to ``None`` and named in the page's
``nulled`` (``bad_warc_date``, ``missing_warc_date``, ``malformed_languages_cld2``).

The HTTP message is split here: status line, headers, chunked transfer coding and gzip/deflate
content coding.

A WET ``conversion`` record has an id of its own; the page it was made from is named by its
``WARC-Refers-To`` header (the response record's ``WARC-Record-ID``, FineWeb's ``id``), and that
is the id a :class:`TextPage` carries, so that one capture read from its WARC and from its WET is
one document. :func:`read_head` tells a WARC, a WET and a WAT file apart from their first records
(and a file that is no WARC at all), and reads the ``isPartOf`` field of their ``warcinfo``
record.
"""

from __future__ import annotations

import bisect
import json
import math
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

__all__ = [
    "DAMAGE_REASONS",
    "MAX_PAYLOAD",
    "Break",
    "FileHead",
    "Page",
    "Rejection",
    "TextPage",
    "read_captures",
    "read_head",
]

# The largest WARC block and the largest decoded HTTP payload read, in bytes. Common Crawl stores
# at most 1 MiB of payload per capture (decoded; ``WARC-Truncated: length`` beyond it) and plans
# 5 MiB; an HTML page above a few MiB is an outlier anywhere. 32 MiB keeps every real page and
# bounds the memory one record can take (a 2.4 KB gzip-coded record could inflate to gigabytes).
MAX_PAYLOAD = 32 * 1024 * 1024

# The rejection reasons that mean the file is damaged (truncated or corrupt), not that a record
# was read and not kept: an ingest reports a file with any of them as damaged.
DAMAGE_REASONS = frozenset(
    {"truncated_record", "corrupt_member", "malformed_record", "bad_content_length"}
)

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_WARC_TYPES = frozenset(
    {
        "warcinfo",
        "response",
        "resource",
        "request",
        "metadata",
        "revisit",
        "conversion",
        "continuation",
    }
)
_MAX_HEADER = 256 * 1024  # bytes of one record's WARC header (Common Crawl's are < 2 KB)
_TRAILER_SLACK = 8  # bytes tolerated between a block's end and the next record
_RECORD_END = b"\r\n\r\n"  # what closes every record after its block
_READ_SIZE = 1 << 16  # compressed bytes read from the file at a time
_INFLATE_STEP = 1 << 20  # decompressed bytes produced at a time
_COMPACT_AT = 1 << 20  # consumed buffer bytes kept before they are dropped
_DETECT_LIMIT = 1 << 20  # bytes searched for a gzip member when the first one is damaged
_GZIP_MAGIC = b"\x1f\x8b\x08"
_VERSION_LINE = re.compile(rb"WARC/[0-9]{1,3}\.[0-9]{1,3}\r?\n")
_RESYNC_LINE = re.compile(rb"\nWARC/[0-9]{1,3}\.[0-9]{1,3}\r?\n")
_CONTENT_LENGTH = re.compile(r"[0-9]{1,18}")
_FIELD_NAME = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # an RFC 9110 token


@dataclass
class Page:
    """An HTTP 200 HTML response (the payload decoded from transfer and content codings).

    ``nulled`` names the values set to ``None`` because they could not be read
    (``bad_warc_date``, ``missing_warc_date``, ``malformed_languages_cld2``).
    """

    record_id: str
    url: str
    offset: int
    fetched_at: datetime | None
    payload: bytes
    http_charset: str | None
    payload_digest: str | None
    languages_cld2: list[tuple[str, float]] | None = None
    nulled: tuple[str, ...] = ()


@dataclass(frozen=True)
class TextPage:
    """A WET ``conversion`` record: text already extracted by Common Crawl.

    ``record_id`` is the id of the response record the text was extracted from (the conversion
    record's ``WARC-Refers-To``), not the conversion record's own ``WARC-Record-ID``. ``nulled``
    as for :class:`Page`.
    """

    record_id: str
    url: str
    offset: int
    fetched_at: datetime | None
    text: str
    payload_digest: str | None
    languages: tuple[str, ...]  # ISO 639-3 codes from WARC-Identified-Content-Language
    nulled: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rejection:
    """A record read but not kept, or a damaged unit of the file, and why.

    ``record_id`` is the record's ``WARC-Record-ID`` when its header was read (else ``''``),
    ``offset`` the byte offset of its gzip member (of its first byte in an uncompressed file),
    ``count`` how many records read it stands for (more than one only for ``corrupt_member``, see
    the module docstring) and ``detail`` what was wrong, in words.
    """

    record_id: str
    offset: int
    reason: str
    count: int = 1
    detail: str = ""


@dataclass(frozen=True)
class FileHead:
    """What the first records of a WARC-format file say about it (see :func:`read_head`)."""

    kind: str  # 'warc', 'wet', 'wat', 'not_warc', or 'unknown' when no record tells
    is_part_of: str | None  # the isPartOf field of its first warcinfo record, if any


@dataclass(frozen=True)
class Break:
    """The file cannot be read past this byte offset (nothing after it could be resumed at)."""

    offset: int
    message: str


# ------------------------------------------------------------------------ the byte source


class _StreamError(Exception):
    """A gzip member that does not inflate, or no gzip header where a member must start."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset


class _CutError(Exception):
    """The file ends inside a record."""


class _MalformedError(Exception):
    """A record whose framing is wrong; ``resume_here``: reading goes on where the source is."""

    def __init__(self, reason: str, message: str, resume_here: bool = False) -> None:
        super().__init__(message)
        self.reason = reason
        self.resume_here = resume_here


class _Source:
    """The decompressed bytes of a WARC file, and where each of its gzip members starts.

    Positions (``tell``) count decompressed bytes; :meth:`offset_of` maps one to the file offset
    of the gzip member it is in (to itself in an uncompressed file). Nothing is ever inflated more
    than ``_INFLATE_STEP`` bytes ahead of what is asked for. A member that does not inflate sets
    ``error``, a file that ends inside a member ``truncated_member``; reads past the bytes produced
    before either raise.
    """

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        first = handle.read(_READ_SIZE)
        handle.seek(0)
        self.gzipped = first.startswith(b"\x1f\x8b")
        self.multi_record_members = False  # seen a gzip member holding more than one record
        self.buffer = bytearray()
        self.start = 0  # position of buffer[0]
        self.cursor = 0  # index in buffer of the next byte to read
        self.members: list[tuple[int, int]] = []  # (position, file offset) of member starts
        self.error: _StreamError | None = None
        self.truncated_member: int | None = None
        self.ended = False
        self._raw = b""  # compressed bytes read and not yet inflated
        self._raw_offset = 0  # file offset of _raw[0]
        self._inflater: zlib._Decompress | None = None
        self._member_offset = 0
        if first and not self.gzipped and not _VERSION_LINE.match(first.lstrip(b"\r\n")):
            # A gzip file whose first member header is damaged is still read as gzip.
            self.gzipped = self.find_member(-1, limit=_DETECT_LIMIT)[0] is not None
            handle.seek(0)

    # -- producing bytes

    def _read_raw(self) -> bool:
        chunk = self.handle.read(_READ_SIZE)
        self._raw += chunk
        return bool(chunk)

    def _produce(self) -> bool:
        """Append more decompressed bytes to the buffer; False when there are no more."""
        if self.ended:
            return False
        if not self.gzipped:
            chunk = self.handle.read(_READ_SIZE)
            if not chunk:
                self.ended = True
                return False
            self.buffer += chunk
            return True
        while True:
            if self._inflater is None and not self._start_member():
                return False
            if not self._raw and not self._read_raw():
                self.truncated_member = self._member_offset
                self.ended = True
                return False
            data = self._raw
            assert self._inflater is not None
            try:
                out = self._inflater.decompress(data, _INFLATE_STEP)
            except zlib.error as error:
                self._fail(self._member_offset, f"gzip member does not inflate: {error}")
                return False
            if self._inflater.eof:
                rest = self._inflater.unused_data
                self._inflater = None
            else:
                rest = self._inflater.unconsumed_tail
            self._raw_offset += len(data) - len(rest)
            self._raw = rest
            if out:
                self.buffer += out
                return True

    def _start_member(self) -> bool:
        while len(self._raw) < 10 and self._read_raw():
            pass
        if not self._raw:
            self.ended = True
            return False
        if len(self._raw) < 10 and _GZIP_MAGIC.startswith(self._raw[:3]):
            self.truncated_member = self._raw_offset  # the file ends inside a gzip header
            self.ended = True
            return False
        if not self._raw.startswith(_GZIP_MAGIC):
            self._fail(self._raw_offset, f"no gzip member header: {self._raw[:8]!r}")
            return False
        self._member_offset = self._raw_offset
        self.members.append((self.start + len(self.buffer), self._raw_offset))
        self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        return True

    def _fail(self, offset: int, message: str) -> None:
        self.error = _StreamError(offset, f"byte {offset}: {message}")
        self.ended = True

    # -- reading

    def tell(self) -> int:
        return self.start + self.cursor

    def fill_to(self, position: int) -> int:
        """Produce bytes up to ``position`` (or as many as there are); the end of what is held."""
        while self.start + len(self.buffer) < position and self._produce():
            pass
        return self.start + len(self.buffer)

    def _short(self) -> Exception:
        return self.error if self.error is not None else _CutError()

    def read(self, size: int) -> bytes:
        end = self.tell() + size
        if self.fill_to(end) < end:
            raise self._short()
        data = bytes(self.buffer[self.cursor : self.cursor + size])
        self.cursor += size
        return data

    def peek(self, size: int) -> bytes:
        self.fill_to(self.tell() + size)
        return bytes(self.buffer[self.cursor : self.cursor + size])

    def readline(self, limit: int) -> bytes:
        r"""The next line, with its ``\n``; raises :class:`_MalformedError` past ``limit`` bytes."""
        searched = self.cursor
        while True:
            index = self.buffer.find(b"\n", searched)
            if index != -1:
                line = bytes(self.buffer[self.cursor : index + 1])
                self.cursor = index + 1
                return line
            searched = len(self.buffer)
            if searched - self.cursor > limit:
                raise _MalformedError("malformed_record", f"WARC header longer than {limit} bytes")
            if not self._produce():
                raise self._short()

    def skip_newlines(self) -> None:
        while True:
            while self.cursor < len(self.buffer) and self.buffer[self.cursor] in b"\r\n":
                self.cursor += 1
            if self.cursor < len(self.buffer) or not self._produce():
                return

    def seek(self, position: int) -> None:
        """Go back (or on) to a position still held."""
        self.cursor = max(0, min(position - self.start, len(self.buffer)))

    def drop_consumed(self) -> None:
        if self.cursor >= _COMPACT_AT:
            del self.buffer[: self.cursor]
            self.start += self.cursor
            self.cursor = 0
        here = self.tell()
        keep = bisect.bisect_right(self.members, (here, 1 << 62)) - 1
        if keep > 0:
            del self.members[:keep]

    # -- gzip members

    def offset_of(self, position: int) -> int:
        if not self.gzipped:
            return position
        index = bisect.bisect_right(self.members, (position, 1 << 62)) - 1
        return self.members[index][1] if index >= 0 else self._raw_offset

    def member_starts(self, after: int, before: int) -> list[int]:
        """Positions of the member starts ``p`` with ``after < p < before``."""
        return [p for p, _ in self.members if after < p < before]

    def member_starts_at(self, position: int) -> bool:
        return any(p == position for p, _ in self.members)

    def starts_record(self, position: int) -> bool:
        """Whether the bytes held at ``position`` are a WARC version line."""
        index = position - self.start
        return bool(_VERSION_LINE.match(self.buffer, index)) if index >= 0 else False

    def find_member(self, after: int, limit: int | None = None) -> tuple[int | None, int]:
        """The file offset of the first gzip member after ``after`` that starts a WARC record.

        Returns it (None if there is none, or none in the ``limit`` bytes after ``after``) and how
        many other gzip member headers were passed.
        """
        passed = 0
        position = after + 1
        carry = b""
        while limit is None or position <= after + limit:
            self.handle.seek(position)
            chunk = self.handle.read(_READ_SIZE)
            if not chunk:
                return None, passed
            data = carry + chunk
            base = position - len(carry)
            index = data.find(_GZIP_MAGIC)
            while index != -1 and index + 4 <= len(data):
                candidate = base + index
                if data[index + 3] & 0xE0 == 0:  # reserved FLG bits clear: a plausible header
                    if self._member_starts_record(candidate):
                        return candidate, passed
                    passed += 1
                index = data.find(_GZIP_MAGIC, index + 1)
            carry = data[-3:]
            position = base + len(data)
        return None, passed

    def _member_starts_record(self, offset: int) -> bool:
        self.handle.seek(offset)
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out = b""
        for _ in range(8):
            chunk = self.handle.read(_READ_SIZE // 4)
            if not chunk:
                break
            try:
                out += inflater.decompress(chunk, 64)
            except zlib.error:
                return False
            if len(out) >= 16 or inflater.eof:
                break
        return bool(_VERSION_LINE.match(out))

    def restart(self, offset: int) -> None:
        """Read on from the gzip member at file offset ``offset``."""
        self.start += len(self.buffer) + 1
        self.buffer = bytearray()
        self.cursor = 0
        self.members = []
        self.error = None
        self.truncated_member = None
        self.ended = False
        self._raw = b""
        self._raw_offset = offset
        self._inflater = None
        self.handle.seek(offset)


# ------------------------------------------------------------------------ WARC records


@dataclass
class _Record:
    offset: int
    headers: dict[str, str]  # lower-cased names, first value of each
    block: bytes | None  # None when longer than MAX_PAYLOAD (skipped unread)
    length: int


@dataclass
class _Damage:
    offset: int
    reason: str
    detail: str
    headers: dict[str, str] | None
    count: int = 1


@dataclass
class _Stop:
    offset: int
    message: str


def _records(source: _Source) -> Iterator[_Record | _Damage | _Stop]:
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
                yield _Damage(
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
        except _CutError as error:
            yield _Damage(
                offset,
                "truncated_record",
                f"the file ends inside the record at byte {offset}"
                + (f" ({headers.get('warc-type', '?')} record)" if headers else "")
                + (f": {error}" if str(error) else ""),
                headers or None,
            )
            return
        except _StreamError as error:
            stop = yield from _recover(source, error, headers or None, offset)
            if stop:
                return
        except _MalformedError as error:
            yield _Damage(offset, error.reason, str(error), headers or None)
            if not error.resume_here and not (yield from _resume(source, start, aligned)):
                cut = source.truncated_member
                if cut is not None and cut != offset:  # a later member is cut short too
                    yield _Damage(
                        cut,
                        "truncated_record",
                        f"the file ends inside the gzip member at {cut}",
                        None,
                    )
                return


def _recover(
    source: _Source,
    error: _StreamError,
    headers: dict[str, str] | None,
    record_offset: int | None = None,
) -> Iterator[_Damage | _Stop]:
    """A corrupt gzip member: yield it as damage and restart after it; True when none follows."""
    offset = error.offset if record_offset is None else min(record_offset, error.offset)
    resume, passed = source.find_member(error.offset)
    if resume is None:
        yield _Stop(offset, f"{error}; no readable gzip member after it")
        return True
    yield _Damage(
        offset,
        "corrupt_member",
        f"{error}; bytes {offset}..{resume} skipped",
        headers,
        count=1 + passed,
    )
    source.restart(resume)
    return False


def _resume(source: _Source, start: int, aligned: bool) -> Iterator[_Damage | _Stop]:
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
        if not source._produce():
            source.seek(source.start + len(source.buffer))
            if source.error is not None:
                stop = yield from _recover(source, source.error, None)
                return not stop
            return False


def _read_record(
    source: _Source, start: int, offset: int, aligned: bool, headers: dict[str, str]
) -> _Record:
    """One record from ``start`` (filling ``headers`` as they are read)."""
    line = source.readline(_MAX_HEADER)
    if not _VERSION_LINE.fullmatch(line):
        raise _MalformedError(
            "malformed_record", f"no WARC version line at byte {offset}: {line[:40]!r}"
        )
    size = len(line)
    last = ""
    while True:
        line = source.readline(_MAX_HEADER - size)
        size += len(line)
        text = line.rstrip(b"\r\n")
        if not text:
            break
        if text[:1] in (b" ", b"\t") and last:  # a folded continuation line
            headers[last] += " " + text.strip().decode("utf-8", "replace")
            continue
        name, colon, value = text.partition(b":")
        if not colon or not _FIELD_NAME.fullmatch(name.strip()):
            raise _MalformedError(
                "malformed_record", f"WARC header line without a field name: {text[:60]!r}"
            )
        last = name.strip().decode("ascii").lower()
        if last not in headers:
            headers[last] = value.strip().decode("utf-8", "replace")
    length_text = headers.get("content-length", "")
    if not _CONTENT_LENGTH.fullmatch(length_text):
        raise _MalformedError(
            "malformed_record", f"no numeric Content-Length: {length_text[:40]!r}"
        )
    length = int(length_text)
    block = _read_block(source, length, aligned)
    _check_record_end(source, offset, aligned)
    return _Record(offset, headers, block, length)


def _read_block(source: _Source, length: int, aligned: bool) -> bytes | None:
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
        step = min(remaining, _INFLATE_STEP)
        try:
            piece = source.read(step)
        except _CutError:
            got = length - remaining + max(0, source.fill_to(here + step) - here)
            raise _CutError(f"{got} of {length} block bytes") from None
        if aligned:
            for position in source.member_starts(begin, here + step):
                if source.starts_record(position):
                    source.seek(position)
                    raise _MalformedError(
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


def _check_record_end(source: _Source, offset: int, aligned: bool) -> None:
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
                raise _MalformedError(
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
                raise _CutError()
            source.seek(held)
            return
        if _next_record_follows(source, end):  # a gzip member holding many records
            source.multi_record_members = True
            return
        raise _MalformedError(
            "bad_content_length",
            f"the record's gzip member goes on after its Content-Length "
            f"({source.peek(_TRAILER_SLACK + 1)!r})",
        )
    if not _next_record_follows(source, end):
        rest = source.peek(_TRAILER_SLACK + 6)
        raise _MalformedError(
            "bad_content_length", f"no record follows its Content-Length: {rest!r}"
        )


def _next_record_follows(source: _Source, end: int) -> bool:
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


# ------------------------------------------------------------------------ HTTP and fields


def _parse_date(text: str | None) -> tuple[datetime | None, str | None]:
    """A WARC-Date as UTC, and the reason it is None when it is."""
    if not text or not text.strip():
        return None, "missing_warc_date"
    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        if parsed.tzinfo is None:  # WARC-Date is UTC
            return parsed.replace(tzinfo=UTC), None
        return parsed.astimezone(UTC), None
    except (ValueError, OverflowError):
        return None, "bad_warc_date"


def _target_uri(value: str | None) -> tuple[str | None, str | None]:
    """The record's http(s) target URI, or None and the reason it is unusable."""
    uri = (value or "").strip()
    if uri.startswith("<") and uri.endswith(">"):
        uri = uri[1:-1].strip()
    if not uri:
        return None, "missing_target_uri"
    if any(char.isspace() or not char.isprintable() for char in uri):
        return None, "bad_target_uri"
    try:
        parts = urlsplit(uri)
    except ValueError:
        return None, "bad_target_uri"
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None, "bad_target_uri"
    return uri, None


def _dechunk(body: bytes) -> bytes:
    """Undo HTTP/1.1 chunked transfer coding; raises ValueError on a malformed stream."""
    out = bytearray()
    position = 0
    while True:
        line_end = body.index(b"\r\n", position)
        size = int(body[position:line_end].split(b";", 1)[0].strip() or b"0", 16)
        position = line_end + 2
        if size == 0:
            return bytes(out)
        if size < 0 or position + size > len(body):
            raise ValueError("chunk runs past the end of the payload")
        out += body[position : position + size]
        position += size + 2


def _split_http(block: bytes) -> tuple[int, dict[str, str], bytes]:
    """Status code, headers (lower-cased names) and body of an HTTP response block."""
    head, separator, body = block.partition(b"\r\n\r\n")
    if not separator:
        head, separator, body = block.partition(b"\n\n")
    if not separator:
        raise ValueError("no end of HTTP headers")
    lines = head.decode("iso-8859-1").splitlines()
    if not lines:
        raise ValueError("no HTTP status line")
    status_line = lines[0].split(" ", 2)
    if (
        len(status_line) < 2
        or not status_line[0].startswith("HTTP/")
        or not status_line[1].isascii()
        or not status_line[1].isdigit()
    ):
        raise ValueError(f"not an HTTP status line: {lines[0][:60]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip().lower()] = value.strip()
    return int(status_line[1]), headers, body


def _content_type(headers: dict[str, str]) -> tuple[str, str | None]:
    value = headers.get("content-type", "")
    mime, _, params = value.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, val = param.partition("=")
        if key.strip().lower() == "charset" and val.strip():
            charset = val.strip().strip("\"'").lower()
    return mime.strip().lower(), charset


class _TooLargeError(Exception):
    """A payload that inflates past MAX_PAYLOAD."""


def _inflate(body: bytes, wbits: int) -> bytes:
    """Inflate a whole zlib/gzip/raw deflate stream, never past MAX_PAYLOAD bytes."""
    inflater = zlib.decompressobj(wbits)
    out = inflater.decompress(body, MAX_PAYLOAD + 1)
    if len(out) > MAX_PAYLOAD:
        raise _TooLargeError(f"payload inflates past {MAX_PAYLOAD} bytes")
    if not inflater.eof:
        raise zlib.error("incomplete or truncated stream")
    return out


def _decode_body(headers: dict[str, str], body: bytes) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _dechunk(body)
    coding = headers.get("content-encoding", "").lower()
    if coding in ("gzip", "x-gzip"):
        body = _inflate(body, 16 + zlib.MAX_WBITS)
    elif coding == "deflate":
        try:
            body = _inflate(body, zlib.MAX_WBITS)
        except zlib.error:
            body = _inflate(body, -zlib.MAX_WBITS)
    return body


def _metadata_languages(block: bytes) -> tuple[list[tuple[str, float]] | None, bool]:
    """The ``languages-cld2`` entries of a metadata block, and whether the field is malformed.

    The field is kept only when every entry has a non-empty string ``code`` and a finite
    ``text-covered`` in [0, 1]; otherwise it is ``None`` (and malformed): dropping one entry would
    make the next language look like the page's main one.
    """
    for line in block.decode("utf-8", "replace").splitlines():
        name, _, value = line.partition(":")
        if name.strip() != "languages-cld2":
            continue
        try:
            parsed = json.loads(value.strip())
        except ValueError:
            return None, True
        entries = parsed.get("languages", []) if isinstance(parsed, dict) else None
        if not isinstance(entries, list):
            return None, True
        languages: list[tuple[str, float]] = []
        for entry in entries:
            code = entry.get("code") if isinstance(entry, dict) else None
            covered = entry.get("text-covered") if isinstance(entry, dict) else None
            if (
                not isinstance(code, str)
                or not code.strip()
                or isinstance(covered, bool)
                or not isinstance(covered, int | float)
                or not math.isfinite(covered)
                or not 0.0 <= covered <= 1.0
            ):
                return None, True
            languages.append((code.strip(), float(covered)))
        return languages, False
    return None, False


def _warc_fields(block: bytes) -> dict[str, str]:
    """The ``name: value`` lines of an ``application/warc-fields`` block (first of each name)."""
    fields: dict[str, str] = {}
    for line in block.decode("utf-8", "replace").splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip() and name.strip() not in fields:
            fields[name.strip()] = value.strip()
    return fields


# ------------------------------------------------------------------------ the public readers


def read_head(path: Path) -> FileHead:
    """The kind of a WARC-format file and its crawl, read from its first records.

    Records are read up to the first one that tells the kind: a ``response``, ``revisit`` or
    ``resource`` record (a WARC file), a ``conversion`` record (a WET file), or a ``metadata``
    record whose block is JSON (``Content-Type: application/json``: a WAT file, Common Crawl's
    link and header metadata). Its WARC header is enough (a record cut short still tells).
    ``warcinfo``, ``request`` and other ``metadata`` records before it are passed over; the first
    ``warcinfo`` record gives ``isPartOf``.

    The kind is ``not_warc`` when the file does not start with a WARC record: it is empty, or its
    first bytes (inflated, when it is gzipped) are no ``WARC/x.y`` version line, or it is no gzip
    data past its magic number (a damaged first gzip member followed by readable WARC members is
    read past). It is ``unknown`` when WARC records are read but none tells the kind.

    Raises:
        FileNotFoundError: when ``path`` is not a file.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no such WARC/WET file: {path}")
    is_part_of: str | None = None
    seen_header = False
    seen_warcinfo = False
    kind = "unknown"
    try:
        with path.open("rb") as handle:
            for event in _records(_Source(handle)):
                if isinstance(event, _Stop):
                    break
                headers = event.headers
                if headers is None:
                    if isinstance(event, _Damage) and event.reason == "corrupt_member":
                        continue  # resynchronised past a damaged member
                    break
                seen_header = True
                record_type = headers.get("warc-type", "").lower()
                if record_type == "warcinfo":
                    if not seen_warcinfo and isinstance(event, _Record):
                        seen_warcinfo = True
                        fields = _warc_fields(event.block or b"")
                        is_part_of = fields.get("isPartOf") or None
                    continue
                content_type = headers.get("content-type", "").split(";")[0].strip().lower()
                if record_type == "conversion":
                    kind = "wet"
                elif record_type in ("response", "revisit", "resource"):
                    kind = "warc"
                elif record_type == "metadata" and content_type == "application/json":
                    kind = "wat"
                else:
                    continue
                break
    except OSError:
        pass
    return FileHead(kind if seen_header else "not_warc", is_part_of)


def read_captures(path: Path) -> Iterator[Page | TextPage | Rejection | Break]:
    """Every record read of a WARC/WET file (see the module docstring), in file order.

    Yields a :class:`Page` per HTTP 200 HTML response, a :class:`TextPage` per WET conversion
    record, a :class:`Rejection` per other capture (revisit, resource, non-200, non-HTML, empty
    or undecodable payload, a conversion record without ``WARC-Refers-To``, ...) and per damaged
    unit, and a :class:`Break` — then stops — where nothing after a damaged unit can be read.
    Never raises for what the file holds (an I/O error is a :class:`Break` too).

    Raises:
        FileNotFoundError: when ``path`` is not a file.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no such WARC/WET file: {path}")
    pending: Page | None = None
    last_offset = 0
    try:
        with path.open("rb") as handle:
            for event in _records(_Source(handle)):
                last_offset = event.offset
                if isinstance(event, _Stop):
                    if pending is not None:
                        yield pending
                        pending = None
                    yield Break(event.offset, event.message)
                    return
                if isinstance(event, _Damage):
                    if pending is not None:
                        yield pending
                        pending = None
                    record_id = (event.headers or {}).get("warc-record-id", "").strip()
                    yield Rejection(
                        record_id, event.offset, event.reason, event.count, event.detail
                    )
                    continue
                try:
                    items, pending = _interpret(event, pending)
                except Exception as error:  # one record's bug never stops the file
                    items = [pending] if pending is not None else []
                    pending = None
                    items.append(
                        Rejection(
                            event.headers.get("warc-record-id", "").strip(),
                            event.offset,
                            "unreadable_record",
                            detail=f"{type(error).__name__}: {error}",
                        )
                    )
                yield from items
    except OSError as error:
        if pending is not None:
            yield pending
            pending = None
        yield Break(last_offset, f"unreadable after byte {last_offset}: {error}")
        return
    if pending is not None:
        yield pending


def _names_a_record(record_id: str) -> bool:
    """Whether a WARC-Record-ID (or WARC-Refers-To) names something: ``<uri>``, not ``<>``."""
    inner = record_id[1:-1] if record_id.startswith("<") and record_id.endswith(">") else record_id
    return bool(inner.strip())


def _interpret(
    record: _Record, pending: Page | None
) -> tuple[list[Page | TextPage | Rejection], Page | None]:
    """What one record read whole yields, and the page still waiting for its metadata."""
    headers = record.headers
    offset = record.offset
    kind = headers.get("warc-type", "").strip().lower()
    if kind == "metadata":
        if pending is not None and headers.get("warc-concurrent-to") == pending.record_id:
            if record.block is None:
                languages, malformed = None, True
            else:
                languages, malformed = _metadata_languages(record.block)
            pending.languages_cld2 = languages
            if malformed:
                pending.nulled += ("malformed_languages_cld2",)
            return [pending], None
        return [], pending
    if kind in ("warcinfo", "request", "continuation"):
        return [], pending
    items: list[Page | TextPage | Rejection] = [pending] if pending is not None else []
    record_id = headers.get("warc-record-id", "").strip()

    def reject(reason: str, detail: str = "") -> tuple[list, None]:
        items.append(Rejection(record_id, offset, reason, detail=detail))
        return items, None

    if kind not in _WARC_TYPES:
        return reject("unknown_warc_type", f"WARC-Type {kind!r}" if kind else "no WARC-Type")
    if not _names_a_record(record_id):
        return reject("missing_record_id")
    if record.block is None:
        return reject("payload_too_large", f"a block of {record.length} bytes")
    if kind == "revisit":
        return reject("revisit")
    if kind == "resource":
        return reject("resource_record")
    if "warc-segment-number" in headers:  # one segment of a record split across records
        return reject("segmented_record")
    url, bad_url = _target_uri(headers.get("warc-target-uri"))
    if url is None:
        return reject(bad_url or "bad_target_uri", headers.get("warc-target-uri", "")[:200])
    fetched_at, bad_date = _parse_date(headers.get("warc-date"))
    nulled = (bad_date,) if bad_date else ()
    digest = headers.get("warc-payload-digest")
    if kind == "conversion":
        response_id = headers.get("warc-refers-to", "").strip()
        if not _names_a_record(response_id):  # no way to tell which capture the text is of
            return reject("missing_refers_to")
        languages = tuple(
            code.strip()
            for code in headers.get("warc-identified-content-language", "").split(",")
            if code.strip()
        )
        text = record.block.decode("utf-8", "replace")
        if not text.strip():
            return reject("empty_payload")
        page = TextPage(response_id, url, offset, fetched_at, text, digest, languages, nulled)
        items.append(page)
        return items, None
    result = _response(record_id, url, offset, fetched_at, digest, record.block)
    if isinstance(result, Rejection):
        items.append(result)
        return items, None
    result.nulled = nulled
    return items, result


def _response(
    record_id: str,
    url: str,
    offset: int,
    fetched_at: datetime | None,
    digest: str | None,
    block: bytes,
) -> Page | Rejection:
    try:
        status, headers, body = _split_http(block)
    except ValueError as error:
        return Rejection(record_id, offset, "malformed_http", detail=str(error))
    if status != 200:
        return Rejection(record_id, offset, "non_200", detail=str(status))
    mime, charset = _content_type(headers)
    if mime not in _HTML_TYPES:
        return Rejection(record_id, offset, "non_html", detail=mime[:80])
    try:
        payload = _decode_body(headers, body)
    except _TooLargeError as error:
        return Rejection(record_id, offset, "payload_too_large", detail=str(error))
    except (ValueError, zlib.error) as error:
        return Rejection(record_id, offset, "undecodable_payload", detail=str(error))
    if not payload.strip():
        return Rejection(record_id, offset, "empty_payload")
    return Page(record_id, url, offset, fetched_at, payload, charset, digest)
