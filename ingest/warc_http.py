"""The HTTP message and the WARC fields inside a record's block.

Splitting an HTTP response (status line, headers, body); undoing its transfer codings
(``chunked``) and content codings (``gzip``, ``deflate``, ``br``, ``zstd``, stacked ones such as
``gzip, gzip`` last applied first), each only when the bytes carry it — Common Crawl stores
payloads decoded and its older crawls kept the coding headers all the same (:func:`decode_body`
says how each coding is told) — and never decoding past
:data:`~ingest.warc_items.MAX_PAYLOAD`; and reading the values of WARC headers and blocks:
``WARC-Date``, ``WARC-Target-URI``, ``WARC-Record-ID`` (:func:`record_id`), a ``metadata``
record's ``languages-cld2`` and an ``application/warc-fields`` block.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from datetime import UTC, datetime
from urllib.parse import urlsplit

from ingest.languages import is_language_code
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


# WARC 1.1 §4: ``uri = <'URI' per RFC3986>``; §5.2: ``WARC-Record-ID = "<" uri ">"``, a
# legal URI with a registered scheme and no white space. RFC 3986 §3 and §2: a scheme, ":",
# then unreserved, reserved and percent-encoded characters only.
_RECORD_ID = re.compile(r"<[A-Za-z][A-Za-z0-9+.\-]*:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+>")
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def record_id_problem(value: str) -> str | None:
    """What is wrong with a WARC-Record-ID (or a field holding one): None, missing or bad.

    ``missing``: empty, or ``<>`` (it names nothing). ``bad``: anything but ``"<" uri ">"``
    with an absolute RFC 3986 URI inside (WARC 1.1 §5.2; ``WARC-Refers-To`` and
    ``WARC-Concurrent-To`` hold record ids too, §5.11 and §5.7): a bare URI, white space, a
    control character such as NUL, a character RFC 3986 does not allow, a stray ``%``.
    """
    inner = value[1:-1] if value.startswith("<") and value.endswith(">") else value
    if not inner.strip():
        return "missing"
    if _RECORD_ID.fullmatch(value) is None or _BAD_PERCENT.search(value):
        return "bad"
    return None


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


class UnknownCodingError(ValueError):
    """A Content-Encoding the reader cannot undo, over bytes that are not plain text."""


# -- transfer coding (RFC 9112 §7.1: chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF)

_CHUNK_LINE = re.compile(rb"([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n")


def _carries_chunks(body: bytes) -> bool:
    """Whether the body starts with a chunk-size line (hex digits, extensions, line end)."""
    return _CHUNK_LINE.match(body) is not None


def _dechunk(body: bytes) -> bytes:
    """The chunks' data joined; raises ValueError when a chunk line or a chunk is broken.

    The last chunk (size 0) ends the data; the trailer fields after it are dropped. The data is
    never longer than the body, so it is bounded by the block's own cap.
    """
    pieces: list[bytes] = []
    position = 0
    while True:
        line = _CHUNK_LINE.match(body, position)
        if line is None:
            raise ValueError(f"no chunk-size line at byte {position} of the chunked body")
        size = int(line.group(1), 16)
        position = line.end()
        if size == 0:
            return b"".join(pieces)
        if position + size > len(body):
            raise ValueError(f"a chunk of {size} bytes runs past the end of the body")
        pieces.append(body[position : position + size])
        position += size
        if body.startswith(b"\r\n", position):
            position += 2
        elif body.startswith(b"\n", position):
            position += 1
        else:
            raise ValueError(f"no line end after the chunk ending at byte {position}")


# -- content codings (RFC 9110 §8.4.1: gzip, deflate, compress; RFC 7932: br; RFC 8878: zstd)

_STEP = 1 << 20  # decoded bytes produced at a time
_GZIP_MAGIC = b"\x1f\x8b\x08"  # RFC 1952 §2.3.1: ID1 ID2, CM = 8 (deflate)
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # RFC 8878 §3.1.1, little-endian 0xFD2FB528
_TEXT_SAMPLE = 8192  # bytes looked at to tell plain text from coded bytes
# C0 controls that text never holds; TAB, LF, FF, CR and ESC (ISO-2022 encodings) may appear.
_NOT_TEXT = frozenset(range(0x20)) - {0x09, 0x0A, 0x0C, 0x0D, 0x1B} | {0x7F}


def looks_like_text(data: bytes) -> bool:
    """Whether the bytes read as text in some ASCII-compatible charset, not as coded bytes.

    Compressed data is close to uniformly random, so about one byte in ten is a C0 control
    character; text (UTF-8 or any legacy 8-bit or multi-byte web charset but UTF-16) holds
    none but TAB, LF, FF, CR and ESC. The first 8 KiB are looked at: no NUL and at most one
    such byte in a hundred.
    """
    sample = data[:_TEXT_SAMPLE]
    if not sample.strip() or 0 in sample:
        return False
    controls = sum(1 for byte in sample if byte in _NOT_TEXT)
    return controls * 100 <= len(sample)


def _capped(total: int) -> None:
    if total > MAX_PAYLOAD:
        raise TooLargeError(f"payload inflates past {MAX_PAYLOAD} bytes")


def _inflate(body: bytes, wbits: int, whole: bool = False) -> bytes:
    """Inflate zlib/gzip/raw deflate data, never past MAX_PAYLOAD bytes.

    A gzip body of several members (RFC 1952 §2.2) is inflated member after member. Bytes after
    the end of the data are ignored (as browsers do), unless ``whole``: then anything but
    whitespace after it is an error (raw deflate, which has no header, must fill the body).
    """
    pieces: list[bytes] = []
    total = 0
    rest = body
    while True:
        inflater = zlib.decompressobj(wbits)
        data = rest
        while True:
            out = inflater.decompress(data, _STEP)
            total += len(out)
            _capped(total)
            pieces.append(out)
            data = inflater.unconsumed_tail
            if inflater.eof or not data:
                break
        if not inflater.eof:
            raise zlib.error("incomplete or truncated stream")
        rest = inflater.unused_data
        if wbits > 16 and rest.startswith(_GZIP_MAGIC):
            continue
        if whole and rest.strip():
            raise zlib.error(f"{len(rest)} bytes after the end of the stream")
        return b"".join(pieces)


def _zlib_header(body: bytes) -> bool:
    """RFC 1950 §2.2: CM = 8, CINFO <= 7, FDICT clear, and CMF*256 + FLG a multiple of 31."""
    if len(body) < 2:
        return False
    cmf, flg = body[0], body[1]
    return cmf & 0x0F == 8 and cmf >> 4 <= 7 and not flg & 0x20 and (cmf * 256 + flg) % 31 == 0


def _unbrotli(body: bytes) -> bytes:
    """Decode a Brotli stream (RFC 7932), never past MAX_PAYLOAD; raises brotli.error."""
    import brotli

    decoder = brotli.Decompressor()
    pieces = [decoder.process(body, output_buffer_limit=_STEP)]
    total = len(pieces[0])
    while not decoder.can_accept_more_data():
        _capped(total)
        out = decoder.process(b"", output_buffer_limit=_STEP)
        total += len(out)
        pieces.append(out)
    _capped(total)
    if not decoder.is_finished():
        raise brotli.error("incomplete Brotli stream")
    return b"".join(pieces)


def _unzstd(body: bytes) -> bytes:
    """Decode Zstandard frames (RFC 8878), never past MAX_PAYLOAD; raises zstandard.ZstdError.

    The frames are first decoded a step at a time only to count their bytes (so a bomb stops at
    the cap), then frame by frame, each checked to end: a frame cut short is an error.
    """
    import io

    import zstandard

    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(body), read_across_frames=True)
    total = 0
    while out := reader.read(_STEP):
        total += len(out)
        _capped(total)
    pieces: list[bytes] = []
    rest = body
    while rest:
        frame = zstandard.ZstdDecompressor().decompressobj()
        pieces.append(frame.decompress(rest))
        if not frame.eof:
            raise zstandard.ZstdError("a Zstandard frame cut short")
        rest = frame.unused_data
        if not rest.startswith(_ZSTD_MAGIC):
            if rest.strip():
                raise zstandard.ZstdError(f"{len(rest)} bytes after the last frame")
            break
    return b"".join(pieces)


def _coding_list(value: str) -> list[str]:
    """The codings a Content-Encoding or Transfer-Encoding value names, in the order applied."""
    return [coding.strip().lower() for coding in value.split(",") if coding.strip()]


def _undo_content_coding(coding: str, body: bytes) -> bytes | None:
    """The body with one content coding undone, or None when its bytes do not carry it.

    Raises TooLargeError past MAX_PAYLOAD, ValueError (zlib.error, brotli.error,
    zstandard.ZstdError are caught and re-raised as such) when the bytes carry the coding
    but do not decode, UnknownCodingError for a coding this reader does not know.
    """
    if coding in ("identity", ""):
        return body
    if coding in ("gzip", "x-gzip"):
        return _inflate(body, 16 + zlib.MAX_WBITS) if body.startswith(_GZIP_MAGIC) else None
    if coding == "deflate":
        # RFC 9110 §8.4.1.2 means the zlib format; some servers send raw deflate, which has no
        # magic number: it is tried, and bytes that are text and do not inflate are as stored.
        if _zlib_header(body):
            return _inflate(body, zlib.MAX_WBITS)
        try:
            return _inflate(body, -zlib.MAX_WBITS, whole=True)
        except zlib.error:
            if looks_like_text(body):
                return None
            raise
    if coding == "br":
        # Brotli has no magic number: the bytes are decoded, and when they do not decode but
        # read as text they are taken as stored (decoded by the crawler).
        import brotli

        try:
            return _unbrotli(body)
        except brotli.error as error:
            if looks_like_text(body):
                return None
            raise ValueError(f"not a Brotli stream: {error}") from None
    if coding in ("zstd", "x-zstd"):
        if not body.startswith(_ZSTD_MAGIC):
            return None
        import zstandard

        try:
            return _unzstd(body)
        except zstandard.ZstdError as error:
            raise ValueError(f"not a Zstandard stream: {error}") from None
    raise UnknownCodingError(f"Content-Encoding {coding!r} is not undone by this reader")


def decode_body(headers: dict[str, str], body: bytes) -> tuple[bytes, tuple[str, ...]]:
    """The payload with its transfer and content codings undone, and the codings not applied.

    Common Crawl stores payloads decoded. Before CC-MAIN-2018-34 (and in CC-NEWS before May
    2019) it kept the ``Content-Encoding`` and ``Transfer-Encoding`` headers as the server sent
    them, where later crawls rename them ``X-Crawler-Content-Encoding`` and so on: a header
    naming a coding does not say the bytes carry it. So each coding named is undone only when
    the bytes carry it, last applied first (RFC 9110 §8.4: codings are listed in the order
    applied; the transfer codings were applied after the content codings):

    * ``chunked``: the body starts with a chunk-size line; a body that does and does not
      dechunk whole is undecodable;
    * ``gzip``/``x-gzip``: gzip's magic number; ``deflate``: a zlib header, or raw deflate
      that inflates whole; ``zstd``: Zstandard's magic number;
    * ``br`` (no magic number): the bytes decode as a Brotli stream;

    and otherwise the bytes are taken as stored, when they read as text
    (:func:`looks_like_text`), and ``content_encoding_not_applied`` /
    ``transfer_encoding_not_applied`` is returned for the page's books. Bytes that carry
    neither the coding nor text are undecodable, so still-encoded bytes are never kept. A
    coding this reader does not know (``compress``, ...) over bytes that are text is taken as
    stored too; over other bytes it raises :class:`UnknownCodingError`. No step decodes past
    :data:`~ingest.warc_items.MAX_PAYLOAD` (:class:`TooLargeError`).

    Raises:
        TooLargeError: a coding that decodes past MAX_PAYLOAD.
        UnknownCodingError: a coding not known here over bytes that are not text.
        ValueError: bytes that carry a coding and do not decode, or that carry neither the
            coding named nor text (zlib.error included).
    """
    not_applied: list[str] = []
    for header, reason in (
        ("transfer-encoding", "transfer_encoding_not_applied"),
        ("content-encoding", "content_encoding_not_applied"),
    ):
        for coding in reversed(_coding_list(headers.get(header, ""))):
            if header == "transfer-encoding" and coding == "identity":
                continue
            if header == "transfer-encoding" and coding == "chunked":
                decoded = _dechunk(body) if _carries_chunks(body) else None
            else:  # a content coding, or a transfer coding such as gzip read as one
                decoded = _content_step(coding, body)
            if decoded is None:
                not_applied.append(reason)
            else:
                body = decoded
    return body, tuple(dict.fromkeys(not_applied))


def _content_step(coding: str, body: bytes) -> bytes | None:
    """One coding undone, or None when the bytes are text (or nothing) that does not carry it."""
    if not body.strip():
        return None  # nothing to decode: an empty payload is rejected as such
    try:
        decoded = _undo_content_coding(coding, body)
    except UnknownCodingError:
        if looks_like_text(body):
            return None
        raise
    if decoded is None and not looks_like_text(body):
        raise ValueError(f"the bytes carry neither the {coding!r} coding named nor text")
    return decoded


def metadata_languages(block: bytes) -> tuple[list[tuple[str, float]] | None, bool]:
    """The ``languages-cld2`` entries of a metadata block, and whether the field is malformed.

    The field is kept only when every entry has a ``code`` shaped like a language code
    (:func:`ingest.languages.is_language_code`) and a finite
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
                or not is_language_code(code)  # CLD2's codes: ISO 639-1/-3, BCP 47 tags
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
