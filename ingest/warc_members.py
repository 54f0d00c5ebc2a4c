"""The member reader of WARC and ARC files: decompressed bytes, and where each member starts.

:class:`ByteSource` decompresses a WARC or ARC file a step at a time: gzipped per record or with
many records per member (``.warc.gz``, ``.arc.gz``), framed in LZ4 frames the same ways
(``.warc.lz4``, the LZ4 frame format, read with the ``lz4`` package), or not compressed at all.
A *member* is a gzip member or an LZ4 frame. It maps decompressed positions back to the file
offsets of their members, tells a WARC file from an ARC file by its first record (an ARC file's
starts with its ``filedesc://`` version block), and finds the next member that starts a record
after damage. The three exceptions say how a read fell short: :class:`StreamError` (a member that
does not decompress), :class:`CutError` (the file ends inside a record), :class:`MalformedError`
(a record whose framing is wrong).
"""

from __future__ import annotations

import bisect
import re
import zlib
from typing import BinaryIO

MAX_HEADER = 256 * 1024  # bytes of one record's WARC header (Common Crawl's are < 2 KB)
_READ_SIZE = 1 << 16  # compressed bytes read from the file at a time
INFLATE_STEP = 1 << 20  # decompressed bytes produced at a time
_COMPACT_AT = 1 << 20  # consumed buffer bytes kept before they are dropped
_DETECT_LIMIT = 1 << 20  # bytes searched for a gzip member when the first one is damaged
_GZIP_MAGIC = b"\x1f\x8b\x08"  # RFC 1952 §2.3.1: ID1 ID2 and CM = 8
_LZ4_MAGIC = b"\x04\x22\x4d\x18"  # the LZ4 frame format's magic number, 0x184D2204 little-endian
_LZ4_FEED = 4096  # compressed bytes handed to the LZ4 decoder at a time (bounds its output)
VERSION_LINE = re.compile(rb"WARC/[0-9]{1,3}\.[0-9]{1,3}\r?\n")
# An ARC record's header line (ARC v1: URL IP-address Archive-date Content-type Archive-length;
# v2 adds fields between the type and the length): a URL with a scheme, then a 14-digit date
# somewhere after it, and a decimal length last.
ARC_LINE = re.compile(
    rb"[A-Za-z][A-Za-z0-9+.\-]{0,31}:[^\n]{0,8192}? [0-9]{14} [^\n]{0,8192}? ?[0-9]{1,18}\r?\n"
)
ARC_START = b"filedesc://"


class _Lz4Frame:
    """One LZ4 frame decoded with zlib's ``decompressobj`` interface (what ByteSource uses).

    At most ``_LZ4_FEED`` compressed bytes are decoded per call, so one call yields at most a
    few of the frame's blocks (4 MiB each at most); the rest is ``unconsumed_tail``.
    """

    def __init__(self) -> None:
        import lz4.frame

        self._decoder = lz4.frame.LZ4FrameDecompressor()
        self.eof = False
        self.unused_data = b""
        self.unconsumed_tail = b""

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        piece, self.unconsumed_tail = data[:_LZ4_FEED], data[_LZ4_FEED:]
        try:
            out = self._decoder.decompress(piece)
        except RuntimeError as error:  # lz4.frame's error for data that is no LZ4 frame
            raise zlib.error(f"LZ4 frame does not decode: {error}") from None
        if self._decoder.eof:
            self.eof = True
            self.unused_data = (self._decoder.unused_data or b"") + self.unconsumed_tail
            self.unconsumed_tail = b""
        return out


def _new_decoder(kind: str):  # a zlib decompressobj or an _Lz4Frame
    return _Lz4Frame() if kind == "lz4" else zlib.decompressobj(16 + zlib.MAX_WBITS)


def _magic(kind: str) -> bytes:
    return _LZ4_MAGIC if kind == "lz4" else _GZIP_MAGIC


def _plausible_header(kind: str, data: bytes, index: int) -> bool:
    """Whether the magic number at ``index`` starts a plausible member header."""
    if kind == "lz4":  # FLG's version bits are 01 (LZ4 frame format §"Frame descriptor")
        return index + 5 <= len(data) and data[index + 4] >> 6 == 1
    return data[index + 3] & 0xE0 == 0  # gzip: reserved FLG bits clear


class StreamError(Exception):
    """A gzip member that does not inflate, or no gzip header where a member must start."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset


class CutError(Exception):
    """The file ends inside a record."""


class MalformedError(Exception):
    """A record whose framing is wrong; ``resume_here``: reading goes on where the source is."""

    def __init__(self, reason: str, message: str, resume_here: bool = False) -> None:
        super().__init__(message)
        self.reason = reason
        self.resume_here = resume_here


class ByteSource:
    """The decompressed bytes of a WARC file, and where each of its gzip members starts.

    Positions (``tell``) count decompressed bytes; :meth:`offset_of` maps one to the file offset
    of the gzip member it is in (to itself in an uncompressed file). Nothing is ever inflated more
    than ``INFLATE_STEP`` bytes ahead of what is asked for. A member that does not inflate sets
    ``error``, a file that ends inside a member ``truncated_member``; reads past the bytes produced
    before either raise.
    """

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        first = handle.read(_READ_SIZE)
        handle.seek(0)
        # ``gzipped``: the file is framed in members (gzip members or LZ4 frames, ``member_kind``)
        self.member_kind = "lz4" if first.startswith(_LZ4_MAGIC) else "gzip"
        self.gzipped = first.startswith(b"\x1f\x8b") or first.startswith(_LZ4_MAGIC)
        self.arc: bool | None = None  # an ARC file (records start with ARC_LINE); told below
        self.multi_record_members = False  # seen a member holding more than one record
        self.arc_fields = 5  # fields of an ARC header line (its version block names them)
        self.buffer = bytearray()
        self.start = 0  # position of buffer[0]
        self.cursor = 0  # index in buffer of the next byte to read
        self.members: list[tuple[int, int]] = []  # (position, file offset) of member starts
        self.error: StreamError | None = None
        self.truncated_member: int | None = None
        self.ended = False
        self._raw = b""  # compressed bytes read and not yet inflated
        self._raw_offset = 0  # file offset of _raw[0]
        self._inflater: zlib._Decompress | None = None
        self._member_offset = 0
        plain = first.lstrip(b"\r\n")
        if (
            first
            and not self.gzipped
            and not VERSION_LINE.match(plain)
            and not plain.startswith(ARC_START)
        ):
            # A gzip file whose first member header is damaged is still read as gzip.
            self.gzipped = self.find_member(-1, limit=_DETECT_LIMIT)[0] is not None
            handle.seek(0)
        self.fill_to(len(ARC_START) + 2)
        self.arc = bytes(self.buffer).lstrip(b"\r\n").startswith(ARC_START)

    @property
    def unit(self) -> str:
        """What a member of this file is called in messages."""
        return "LZ4 frame" if self.member_kind == "lz4" else "gzip member"

    # -- producing bytes

    def _read_raw(self) -> bool:
        chunk = self.handle.read(_READ_SIZE)
        self._raw += chunk
        return bool(chunk)

    def produce(self) -> bool:
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
                out = self._inflater.decompress(data, INFLATE_STEP)
            except zlib.error as error:
                self._fail(self._member_offset, f"{self.unit} does not decompress: {error}")
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
        magic = _magic(self.member_kind)
        shortest = 7 if self.member_kind == "lz4" else 10  # the smallest member header
        if len(self._raw) < shortest and magic.startswith(self._raw[: len(magic)]):
            self.truncated_member = self._raw_offset  # the file ends inside a member header
            self.ended = True
            return False
        if not self._raw.startswith(magic):
            self._fail(self._raw_offset, f"no {self.unit} header: {self._raw[:8]!r}")
            return False
        self._member_offset = self._raw_offset
        self.members.append((self.start + len(self.buffer), self._raw_offset))
        self._inflater = _new_decoder(self.member_kind)
        return True

    def _fail(self, offset: int, message: str) -> None:
        self.error = StreamError(offset, f"byte {offset}: {message}")
        self.ended = True

    # -- reading

    def tell(self) -> int:
        """The position of the next byte to read."""
        return self.start + self.cursor

    def fill_to(self, position: int) -> int:
        """Produce bytes up to ``position`` (or as many as there are); the end of what is held."""
        while self.start + len(self.buffer) < position and self.produce():
            pass
        return self.start + len(self.buffer)

    def _short(self) -> Exception:
        return self.error if self.error is not None else CutError()

    def read(self, size: int) -> bytes:
        """The next ``size`` bytes; raises when the file has fewer."""
        end = self.tell() + size
        if self.fill_to(end) < end:
            raise self._short()
        data = bytes(self.buffer[self.cursor : self.cursor + size])
        self.cursor += size
        return data

    def peek(self, size: int) -> bytes:
        """Up to ``size`` next bytes, not consumed."""
        self.fill_to(self.tell() + size)
        return bytes(self.buffer[self.cursor : self.cursor + size])

    def readline(self, limit: int) -> bytes:
        r"""The next line, with its ``\n``; raises :class:`MalformedError` past ``limit`` bytes."""
        searched = self.cursor
        while True:
            index = self.buffer.find(b"\n", searched)
            if index != -1:
                line = bytes(self.buffer[self.cursor : index + 1])
                self.cursor = index + 1
                return line
            searched = len(self.buffer)
            if searched - self.cursor > limit:
                raise MalformedError("malformed_record", f"WARC header longer than {limit} bytes")
            if not self.produce():
                raise self._short()

    def skip_newlines(self) -> None:
        """Consume the CR and LF bytes that come next."""
        while True:
            while self.cursor < len(self.buffer) and self.buffer[self.cursor] in b"\r\n":
                self.cursor += 1
            if self.cursor < len(self.buffer) or not self.produce():
                return

    def seek(self, position: int) -> None:
        """Go back (or on) to a position still held."""
        self.cursor = max(0, min(position - self.start, len(self.buffer)))

    def drop_consumed(self) -> None:
        """Drop the bytes and member starts read past (when enough of them are held)."""
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
        """The file offset of the gzip member holding ``position`` (itself when not gzipped)."""
        if not self.gzipped:
            return position
        index = bisect.bisect_right(self.members, (position, 1 << 62)) - 1
        return self.members[index][1] if index >= 0 else self._raw_offset

    def member_starts(self, after: int, before: int) -> list[int]:
        """Positions of the member starts ``p`` with ``after < p < before``."""
        return [p for p, _ in self.members if after < p < before]

    def member_starts_at(self, position: int) -> bool:
        """Whether a gzip member starts at ``position``."""
        return any(p == position for p, _ in self.members)

    def starts_record(self, position: int) -> bool:
        """Whether the bytes held at ``position`` start a record (ARC_LINE or VERSION_LINE)."""
        index = position - self.start
        pattern = ARC_LINE if self.arc else VERSION_LINE
        return bool(pattern.match(self.buffer, index)) if index >= 0 else False

    def find_member(self, after: int, limit: int | None = None) -> tuple[int | None, int]:
        """The file offset of the first gzip member after ``after`` that starts a WARC record.

        Returns it (None if there is none, or none in the ``limit`` bytes after ``after``) and how
        many other gzip member headers were passed.
        """
        passed = 0
        position = after + 1
        carry = b""
        magic = _magic(self.member_kind)
        while limit is None or position <= after + limit:
            self.handle.seek(position)
            chunk = self.handle.read(_READ_SIZE)
            if not chunk:
                return None, passed
            data = carry + chunk
            base = position - len(carry)
            index = data.find(magic)
            while index != -1 and index + len(magic) + 1 <= len(data):
                candidate = base + index
                if _plausible_header(self.member_kind, data, index):
                    if self._member_starts_record(candidate):
                        return candidate, passed
                    passed += 1
                index = data.find(magic, index + 1)
            carry = data[-len(magic) :]
            position = base + len(data)
        return None, passed

    def _member_starts_record(self, offset: int) -> bool:
        self.handle.seek(offset)
        inflater = _new_decoder(self.member_kind)
        out = b""
        for _ in range(8):
            chunk = self.handle.read(_READ_SIZE // 4)
            if not chunk:
                break
            try:
                out += inflater.decompress(inflater.unconsumed_tail + chunk, 1024 - len(out))
            except zlib.error:
                return False
            if len(out) >= 1024 or inflater.eof:
                break
        arc = bool(ARC_LINE.match(out) or out.startswith(ARC_START))
        if self.arc is None:  # the file's kind is not told yet: either kind of record
            return arc or bool(VERSION_LINE.match(out))
        return arc if self.arc else bool(VERSION_LINE.match(out))

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
