"""Reading WARC and WET files: every capture comes out as a page, a rejection, or a break.

Records are read with FastWARC without its HTTP parsing, so that the whole block of each record
is in hand: a block shorter than its ``Content-Length`` means the file is truncated there (FastWARC
itself stops silently at a broken gzip member). The HTTP message is split here: status line,
headers, chunked transfer coding and gzip/deflate content coding.

A Common Crawl ``metadata`` record follows its response (``WARC-Concurrent-To``); its
``languages-cld2`` JSON is attached to the page.

A WET ``conversion`` record has an id of its own; the page it was made from is named by its
``WARC-Refers-To`` header (the response record's ``WARC-Record-ID``, FineWeb's ``id``), and that
is the id a :class:`TextPage` carries, so that one capture read from its WARC and from its WET is
one document. :func:`read_head` tells a WARC, a WET and a WAT file apart from their first records
and reads the ``isPartOf`` field of their ``warcinfo`` record.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from fastwarc.warc import ArchiveIterator, WarcRecordType

__all__ = [
    "Break",
    "FileHead",
    "Page",
    "Rejection",
    "TextPage",
    "read_captures",
    "read_head",
]

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_CAPTURE_TYPES = (
    WarcRecordType.response
    | WarcRecordType.metadata
    | WarcRecordType.revisit
    | WarcRecordType.conversion
    | WarcRecordType.resource
)


@dataclass
class Page:
    """An HTTP 200 HTML response (the payload decoded from transfer and content codings)."""

    record_id: str
    url: str
    offset: int
    fetched_at: datetime | None
    payload: bytes
    http_charset: str | None
    payload_digest: str | None
    languages_cld2: list[tuple[str, float]] | None = None


@dataclass(frozen=True)
class TextPage:
    """A WET ``conversion`` record: text already extracted by Common Crawl.

    ``record_id`` is the id of the response record the text was extracted from (the conversion
    record's ``WARC-Refers-To``), not the conversion record's own ``WARC-Record-ID``.
    """

    record_id: str
    url: str
    offset: int
    fetched_at: datetime | None
    text: str
    payload_digest: str | None
    languages: tuple[str, ...]  # ISO 639-3 codes from WARC-Identified-Content-Language


@dataclass(frozen=True)
class Rejection:
    """A capture that is read but not kept, and why."""

    record_id: str
    offset: int
    reason: str


@dataclass(frozen=True)
class FileHead:
    """What the first records of a WARC-format file say about it (see :func:`read_head`)."""

    kind: str  # 'warc', 'wet', 'wat', or 'unknown' when no record tells
    is_part_of: str | None  # the isPartOf field of its first warcinfo record, if any


@dataclass(frozen=True)
class Break:
    """The file cannot be read past this byte offset."""

    offset: int
    message: str


def _parse_date(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return None


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
        if position + size > len(body):
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
    status_line = lines[0].split(" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith("HTTP/"):
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


def _decode_body(headers: dict[str, str], body: bytes) -> bytes:
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _dechunk(body)
    coding = headers.get("content-encoding", "").lower()
    if coding in ("gzip", "x-gzip"):
        body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
    elif coding == "deflate":
        try:
            body = zlib.decompress(body)
        except zlib.error:
            body = zlib.decompress(body, -zlib.MAX_WBITS)
    return body


def _metadata_languages(block: bytes) -> list[tuple[str, float]] | None:
    for line in block.decode("utf-8", "replace").splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "languages-cld2":
            try:
                parsed = json.loads(value.strip())
                return [
                    (entry["code"], float(entry.get("text-covered", 0.0)))
                    for entry in parsed.get("languages", [])
                ]
            except (ValueError, KeyError, TypeError, AttributeError):
                return None
    return None


def _warc_fields(block: bytes) -> dict[str, str]:
    """The ``name: value`` lines of an ``application/warc-fields`` block (first of each name)."""
    fields: dict[str, str] = {}
    for line in block.decode("utf-8", "replace").splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip() and name.strip() not in fields:
            fields[name.strip()] = value.strip()
    return fields


def read_head(path: Path) -> FileHead:
    """The kind of a WARC-format file and its crawl, read from its first records.

    Records are read up to the first one that tells the kind: a ``response``, ``revisit`` or
    ``resource`` record (a WARC file), a ``conversion`` record (a WET file), or a ``metadata``
    record whose block is JSON (``Content-Type: application/json``: a WAT file, Common Crawl's
    link and header metadata). ``warcinfo``, ``request`` and other ``metadata`` records before it
    are passed over; the first ``warcinfo`` record gives ``isPartOf``. A file that cannot be read
    that far is ``unknown`` (:func:`read_captures` reports where it breaks).

    Raises:
        FileNotFoundError: when ``path`` is not a file.
    """
    if not path.is_file():
        raise FileNotFoundError(f"no such WARC/WET file: {path}")
    is_part_of: str | None = None
    seen_warcinfo = False
    kind = "unknown"
    try:
        with path.open("rb") as handle:
            for record in ArchiveIterator(handle, parse_http=False):
                record_type = record.record_type
                if record_type == WarcRecordType.warcinfo:
                    if not seen_warcinfo:
                        seen_warcinfo = True
                        is_part_of = _warc_fields(record.reader.read()).get("isPartOf") or None
                    continue
                if record_type == WarcRecordType.conversion:
                    kind = "wet"
                elif record_type in (
                    WarcRecordType.response,
                    WarcRecordType.revisit,
                    WarcRecordType.resource,
                ):
                    kind = "warc"
                elif record_type == WarcRecordType.metadata and (
                    (record.headers.get("Content-Type") or "").split(";")[0].strip().lower()
                    == "application/json"
                ):
                    kind = "wat"
                else:
                    continue
                break
    except OSError:
        pass
    return FileHead(kind, is_part_of)


def read_captures(path: Path) -> Iterator[Page | TextPage | Rejection | Break]:
    """Every capture of a WARC/WET file, in file order.

    Yields a :class:`Page` per HTTP 200 HTML response, a :class:`TextPage` per WET conversion
    record, a :class:`Rejection` per other capture (revisit, non-200, non-HTML, empty or
    undecodable payload, a conversion record without ``WARC-Refers-To``), and a :class:`Break`
    — then stops — where the file is truncated or corrupt. ``metadata`` records are not
    captures: a WARC's are attached to their page, others are passed over (a WAT file, all
    JSON metadata, is refused up front by the ingest, see :func:`read_head`).
    """
    if not path.is_file():
        raise FileNotFoundError(f"no such WARC/WET file: {path}")
    pending: Page | None = None
    last_offset = 0
    try:
        records = ArchiveIterator(
            str(path), record_types=_CAPTURE_TYPES, parse_http=False, fsspec_args=False
        )
        for record in records:
            offset = record.stream_pos
            last_offset = offset
            kind = record.record_type
            headers = record.headers
            block = record.reader.read()
            if len(block) < record.content_length:
                if pending is not None:
                    yield pending
                yield Break(
                    offset,
                    f"record at byte {offset} is cut short: {len(block)} of "
                    f"{record.content_length} block bytes",
                )
                return
            if kind == WarcRecordType.metadata:
                if pending is not None and headers.get("WARC-Concurrent-To") == pending.record_id:
                    pending.languages_cld2 = _metadata_languages(block)
                    yield pending
                    pending = None
                continue
            if pending is not None:
                yield pending
                pending = None
            record_id = headers.get("WARC-Record-ID") or ""
            if kind == WarcRecordType.revisit:
                yield Rejection(record_id, offset, "revisit")
                continue
            if kind == WarcRecordType.resource:
                yield Rejection(record_id, offset, "resource_record")
                continue
            url = headers.get("WARC-Target-URI") or ""
            fetched_at = _parse_date(headers.get("WARC-Date"))
            digest = headers.get("WARC-Payload-Digest")
            if kind == WarcRecordType.conversion:
                response_id = (headers.get("WARC-Refers-To") or "").strip()
                if not response_id:  # no way to tell which capture the text belongs to
                    yield Rejection(record_id, offset, "missing_refers_to")
                    continue
                languages = tuple(
                    code.strip()
                    for code in (headers.get("WARC-Identified-Content-Language") or "").split(",")
                    if code.strip()
                )
                text = block.decode("utf-8", "replace")
                if not text.strip():
                    yield Rejection(record_id, offset, "empty_payload")
                else:
                    yield TextPage(response_id, url, offset, fetched_at, text, digest, languages)
                continue
            page_or_rejection = _response(record_id, url, offset, fetched_at, digest, block)
            if isinstance(page_or_rejection, Page):
                pending = page_or_rejection
            else:
                yield page_or_rejection
    except OSError as error:
        if pending is not None:
            yield pending
            pending = None
        yield Break(last_offset, f"unreadable after byte {last_offset}: {error}")
        return
    if pending is not None:
        yield pending


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
    except ValueError:
        return Rejection(record_id, offset, "malformed_http")
    if status != 200:
        return Rejection(record_id, offset, "non_200")
    mime, charset = _content_type(headers)
    if mime not in _HTML_TYPES:
        return Rejection(record_id, offset, "non_html")
    try:
        payload = _decode_body(headers, body)
    except (ValueError, zlib.error):
        return Rejection(record_id, offset, "undecodable_payload")
    if not payload.strip():
        return Rejection(record_id, offset, "empty_payload")
    return Page(record_id, url, offset, fetched_at, payload, charset, digest)
