"""Reading WARC, WET and ARC files: everything read comes out as a page, a rejection, or a break.

**What is read.** The reader parses the records itself (gzip members inflated with :mod:`zlib`,
LZ4 frames decoded with the ``lz4`` package, see :mod:`ingest.warc_members`), so that every byte
of the file is accounted for. An ARC file (Common Crawl's 2008–2012 crawls; a ``filedesc://``
version block, then one header line and the HTTP response per record) is read record by record
as if each were a WARC ``response`` (:func:`ingest.warc_records._read_arc_record` says how its
header line maps, and the record id ARC lacks is derived); damage in it is told as in a WARC
file. What :func:`read_captures` yields,
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
  whose field name is no token (``name: value``), a header longer than ``MAX_HEADER`` bytes,
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
rejected (``missing_record_id``), one whose id is no ``"<" uri ">"`` with an absolute URI inside
(WARC 1.1 §5.2: white space, a NUL or other control character, no scheme) too
(``bad_record_id``), a WET record whose ``WARC-Refers-To`` is no record id (§5.11) too
(``bad_refers_to``), a response or conversion without a usable http(s)
``WARC-Target-URI`` too (``missing_target_uri``, ``bad_target_uri``), a block longer than
:data:`MAX_PAYLOAD` is skipped unread and a payload that inflates past it is not inflated further
(``payload_too_large``), and any other exception while a record is interpreted becomes an
``unreadable_record`` rejection whose ``detail`` keeps the exception's type and text. Values that
cannot be read but do not make a page unusable are set to ``None`` and named in the page's
``nulled`` (``bad_warc_date``, ``missing_warc_date``, ``malformed_languages_cld2``, and a WET
``WARC-Identified-Content-Language`` that is no language code,
``malformed_identified_content_language``); so are the ways a page was read as stored rather
than as its headers say: a coding named that the payload does not carry
(``content_encoding_not_applied``, ``transfer_encoding_not_applied``) and a block longer than
its ``Content-Length`` by up to ``_TRAILER_SLACK`` bytes (``content_length_understated``, the
payload without them).

The HTTP message is split here: status line, headers, then the transfer and content codings,
each undone only when the bytes carry it (:func:`ingest.warc_http.decode_body`: Common Crawl's
crawls before CC-MAIN-2018-34 kept the coding headers over payloads stored decoded); a coding
this reader does not know, over bytes that are not text, is ``unsupported_content_encoding``.

A WET ``conversion`` record has an id of its own; the page it was made from is named by its
``WARC-Refers-To`` header (the response record's ``WARC-Record-ID``, FineWeb's ``id``), and that
is the id a :class:`TextPage` carries, so that one capture read from its WARC and from its WET is
one document. :func:`read_head` tells a WARC, a WET and a WAT file apart from their first records
(and a file that is no WARC at all), and reads the ``isPartOf`` field of their ``warcinfo``
record.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from ingest.languages import is_language_code
from ingest.warc_http import (
    TooLargeError,
    UnknownCodingError,
    content_type,
    decode_body,
    metadata_languages,
    parse_date,
    record_id_problem,
    split_http,
    target_uri,
    warc_fields,
)
from ingest.warc_items import Break, FileHead, Page, Rejection, TextPage
from ingest.warc_members import ByteSource
from ingest.warc_records import Damage, Record, Stop, records

__all__ = ["read_captures", "read_head", "unreadable_format"]

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


def read_head(path: Path) -> FileHead:
    """The kind of a WARC-format file and its crawl, read from its first records.

    Records are read up to the first one that tells the kind: a ``response``, ``revisit`` or
    ``resource`` record (a WARC file), a ``conversion`` record (a WET file), or a ``metadata``
    record whose block is JSON (``Content-Type: application/json``: a WAT file, Common Crawl's
    link and header metadata). Its WARC header is enough (a record cut short still tells).
    ``warcinfo``, ``request`` and other ``metadata`` records before it are passed over; the first
    ``warcinfo`` record gives ``isPartOf``.

    The kind is ``arc`` for an ARC file (its first record is a ``filedesc://`` version block; its
    records are read as responses). It is ``not_warc`` when the file does not start with a WARC
    or ARC record: it is empty, or its first bytes (decompressed, when it is gzipped or in LZ4
    frames) are no ``WARC/x.y`` version line, or it is no gzip
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
            source = ByteSource(handle)
            for event in records(source):
                if isinstance(event, Stop):
                    break
                headers = event.headers
                if headers is None:
                    if isinstance(event, Damage) and event.reason == "corrupt_member":
                        continue  # resynchronised past a damaged member
                    break
                seen_header = True
                if source.arc:
                    kind = "arc"  # ARC holds responses only (read_captures reads them)
                    break
                record_type = headers.get("warc-type", "").lower()
                if record_type == "warcinfo":
                    if not seen_warcinfo and isinstance(event, Record):
                        seen_warcinfo = True
                        fields = warc_fields(event.block or b"")
                        is_part_of = fields.get("isPartOf") or None
                    continue
                block_type = headers.get("content-type", "").split(";")[0].strip().lower()
                if record_type == "conversion":
                    kind = "wet"
                elif record_type in ("response", "revisit", "resource"):
                    kind = "warc"
                elif record_type == "metadata" and block_type == "application/json":
                    kind = "wat"
                else:
                    continue
                break
    except OSError:
        pass
    return FileHead(kind if seen_header else "not_warc", is_part_of)


# Compressed formats the reader does not read, by their magic numbers, for the refusal message.
_OTHER_FORMATS = (
    (b"\x28\xb5\x2f\xfd", "a Zstandard-compressed file (.warc.zst is not read)"),
    (b"BZh", "a bzip2-compressed file (not read)"),
    (b"\xfd7zXZ\x00", "an xz-compressed file (not read)"),
    (b"PK\x03\x04", "a ZIP archive (not read)"),
)


def unreadable_format(path: Path) -> str:
    """Why a file whose first bytes hold no record is refused, naming what it seems to be."""
    with path.open("rb") as handle:
        first = handle.read(16)
    for magic, what in _OTHER_FORMATS:
        if first.startswith(magic):
            return f"not a WARC or WET file, nor an ARC file: {what}"
    return (
        "not a WARC or WET file, nor an ARC file (uncompressed, gzip or LZ4): its first bytes "
        "are no WARC record or ARC version block, and no record follows"
    )


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
            for event in records(ByteSource(handle)):
                last_offset = event.offset
                if isinstance(event, Stop):
                    if pending is not None:
                        yield pending
                        pending = None
                    yield Break(event.offset, event.message)
                    return
                if isinstance(event, Damage):
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


def _interpret(
    record: Record, pending: Page | None
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
                languages, malformed = metadata_languages(record.block)
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
    problem = record_id_problem(record_id)
    if problem == "missing":
        return reject("missing_record_id")
    if problem == "bad":  # WARC 1.1 §5.2: "<" uri ">", an absolute URI without white space
        return reject("bad_record_id", repr(record_id[:200]))
    if record.block is None:
        return reject("payload_too_large", f"a block of {record.length} bytes")
    if kind == "revisit":
        return reject("revisit")
    if kind == "resource":
        return reject("resource_record")
    if "warc-segment-number" in headers:  # one segment of a record split across records
        return reject("segmented_record")
    url, bad_url = target_uri(headers.get("warc-target-uri"))
    if url is None:
        return reject(bad_url or "bad_target_uri", headers.get("warc-target-uri", "")[:200])
    fetched_at, bad_date = parse_date(headers.get("warc-date"))
    nulled = (bad_date,) if bad_date else ()
    if record.understated:  # stray block bytes before the record's end: kept out of the payload
        nulled += ("content_length_understated",)
    digest = headers.get("warc-payload-digest")
    if kind == "conversion":
        response_id = headers.get("warc-refers-to", "").strip()
        problem = record_id_problem(response_id)
        if problem == "missing":  # no way to tell which capture the text is of
            return reject("missing_refers_to")
        if problem == "bad":  # WARC 1.1 §5.11: a record id, "<" uri ">" as in §5.2
            return reject("bad_refers_to", repr(response_id[:200]))
        languages = tuple(
            code.strip()
            for code in headers.get("warc-identified-content-language", "").split(",")
            if code.strip()
        )
        if not all(is_language_code(code) for code in languages):
            # Common Crawl's header holds ISO 639-3 codes; anything else is no language.
            languages = ()
            nulled += ("malformed_identified_content_language",)
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
    result.nulled = nulled + result.nulled
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
        status, headers, body = split_http(block)
    except ValueError as error:
        return Rejection(record_id, offset, "malformed_http", detail=str(error))
    if status != 200:
        return Rejection(record_id, offset, "non_200", detail=str(status))
    mime, charset = content_type(headers)
    if mime not in _HTML_TYPES:
        return Rejection(record_id, offset, "non_html", detail=mime[:80])
    try:
        payload, not_applied = decode_body(headers, body)
    except TooLargeError as error:
        return Rejection(record_id, offset, "payload_too_large", detail=str(error))
    except UnknownCodingError as error:  # the detail names the coding
        return Rejection(record_id, offset, "unsupported_content_encoding", detail=str(error))
    except (ValueError, zlib.error) as error:
        return Rejection(record_id, offset, "undecodable_payload", detail=str(error))
    if not payload.strip():
        return Rejection(record_id, offset, "empty_payload")
    return Page(record_id, url, offset, fetched_at, payload, charset, digest, nulled=not_applied)
