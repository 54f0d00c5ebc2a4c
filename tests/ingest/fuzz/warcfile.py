"""An independent reading of WARC files: units (gzip members, or records of a plain file).

Written from the WARC 1.1 standard, not from ``ingest.warc``: a gzip member is inflated with
``zlib`` alone; a record is ``WARC/1.x`` header lines, an empty line, ``Content-Length`` bytes
of block and two CRLFs. The oracle uses it to say which captures a mutated file still holds.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

CAPTURE_TYPES = {"response", "revisit", "resource", "conversion"}  # what the ingest counts
_ID = re.compile(rb"WARC-Record-ID:[ \t]*(<[^>\r\n]*>)", re.IGNORECASE)


@dataclass(frozen=True)
class Record:
    """The header fields of one WARC record that the oracle needs."""

    warc_type: str
    record_id: str
    refers_to: str | None
    concurrent_to: str | None
    content_length: int
    header_end: int  # bytes of WARC header, including the empty line
    http_header_end: int | None  # bytes of WARC header + HTTP header, for response records


@dataclass(frozen=True)
class Unit:
    """A slice of the file: one gzip member, or one record of an uncompressed file."""

    data: bytes  # the bytes in the file
    content: bytes  # the inflated bytes (= data for a plain file)
    record: Record | None  # None when the content is no single well-formed record


def inflate(member: bytes) -> tuple[bytes, bool, int]:
    """Inflate one gzip member: (output so far, it ended cleanly, bytes of input used)."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(member)
    except zlib.error:
        # what a streaming reader could have seen before the error: inflate byte by byte
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        parts = []
        for index in range(len(member)):
            try:
                parts.append(inflater.decompress(member[index : index + 1]))
            except zlib.error:
                break
        return b"".join(parts), False, len(member)
    used = len(member) - len(inflater.unused_data)
    return out, inflater.eof, used


def parse_record(content: bytes) -> Record | None:
    """The record that ``content`` holds entirely, or None."""
    if not content.startswith(b"WARC/"):
        return None
    end = content.find(b"\r\n\r\n")
    if end < 0:
        return None
    fields: dict[str, str] = {}
    for line in content[:end].decode("utf-8", "replace").split("\r\n")[1:]:
        name, colon, value = line.partition(":")
        if colon:
            fields.setdefault(name.strip().lower(), value.strip())
    try:
        length = int(fields.get("content-length", ""))
    except ValueError:
        return None
    header_end = end + 4
    if length < 0 or len(content) < header_end + length:
        return None
    http_end = None
    warc_type = fields.get("warc-type", "")
    if warc_type == "response":
        found = content.find(b"\r\n\r\n", header_end, header_end + length)
        http_end = found + 4 if found >= 0 else None
    return Record(
        warc_type,
        fields.get("warc-record-id", ""),
        fields.get("warc-refers-to"),
        fields.get("warc-concurrent-to"),
        length,
        header_end,
        http_end,
    )


def split(data: bytes) -> tuple[list[Unit], bool]:
    """The units of a well-formed file and whether it is gzipped per record.

    Raises:
        ValueError: when the file does not split cleanly (a base file must).
    """
    units = []
    if data[:2] == b"\x1f\x8b":
        position = 0
        while position < len(data):
            content, clean, used = inflate(data[position:])
            if not clean:
                raise ValueError(f"gzip member at byte {position} does not inflate")
            units.append(Unit(data[position : position + used], content, parse_record(content)))
            position += used
        return units, True
    position = 0
    while position < len(data):
        record = parse_record(data[position:])
        if record is None:
            raise ValueError(f"no WARC record at byte {position}")
        end = position + record.header_end + record.content_length
        while data[end : end + 2] == b"\r\n":
            end += 2
        units.append(Unit(data[position:end], data[position:end], record))
        position = end
    return units, False


def record_ids(data: bytes, gzipped: bool) -> set[str]:
    """Every record id and WARC-Refers-To the bytes could show a streaming reader (a superset)."""
    texts = []
    if gzipped:
        position = 0
        while True:
            start = data.find(b"\x1f\x8b", position)
            if start < 0:
                break
            content, _, _ = inflate(data[start:])
            texts.append(content)
            # Every gzip magic is tried, even inside what looked like a member: a false start
            # in damaged bytes must not hide the real member after it.
            position = start + 2
    else:
        texts.append(data)
    found = set()
    for text in texts:
        found.update(match.decode("utf-8", "replace") for match in _ID.findall(text))
        found.update(
            match.decode("utf-8", "replace")
            for match in re.findall(rb"WARC-Refers-To:[ \t]*(<[^>\r\n]*>)", text, re.IGNORECASE)
        )
    return found
