"""The HTTP message and the WARC fields inside a record's block.

Splitting an HTTP response (status line, headers, body), undoing its chunked transfer coding and
gzip/deflate content coding (never inflating past :data:`~ingest.warc_items.MAX_PAYLOAD`), and
reading the values of WARC headers and blocks: ``WARC-Date``, ``WARC-Target-URI``, a
``metadata`` record's ``languages-cld2`` and an ``application/warc-fields`` block.
"""

from __future__ import annotations

import json
import math
import zlib
from datetime import UTC, datetime
from urllib.parse import urlsplit

from ingest.warc_items import MAX_PAYLOAD


def parse_date(text: str | None) -> tuple[datetime | None, str | None]:
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


def target_uri(value: str | None) -> tuple[str | None, str | None]:
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


def split_http(block: bytes) -> tuple[int, dict[str, str], bytes]:
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


def content_type(headers: dict[str, str]) -> tuple[str, str | None]:
    """The MIME type (lower-cased) and charset named by the ``Content-Type`` header."""
    value = headers.get("content-type", "")
    mime, _, params = value.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, val = param.partition("=")
        if key.strip().lower() == "charset" and val.strip():
            charset = val.strip().strip("\"'").lower()
    return mime.strip().lower(), charset


class TooLargeError(Exception):
    """A payload that inflates past MAX_PAYLOAD."""


def _inflate(body: bytes, wbits: int) -> bytes:
    """Inflate a whole zlib/gzip/raw deflate stream, never past MAX_PAYLOAD bytes."""
    inflater = zlib.decompressobj(wbits)
    out = inflater.decompress(body, MAX_PAYLOAD + 1)
    if len(out) > MAX_PAYLOAD:
        raise TooLargeError(f"payload inflates past {MAX_PAYLOAD} bytes")
    if not inflater.eof:
        raise zlib.error("incomplete or truncated stream")
    return out


def decode_body(headers: dict[str, str], body: bytes) -> bytes:
    """The payload with its chunked transfer coding and gzip/deflate content coding undone."""
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


def metadata_languages(block: bytes) -> tuple[list[tuple[str, float]] | None, bool]:
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


def warc_fields(block: bytes) -> dict[str, str]:
    """The ``name: value`` lines of an ``application/warc-fields`` block (first of each name)."""
    fields: dict[str, str] = {}
    for line in block.decode("utf-8", "replace").splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip() and name.strip() not in fields:
            fields[name.strip()] = value.strip()
    return fields
