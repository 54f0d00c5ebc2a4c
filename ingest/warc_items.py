"""What the WARC reader yields: pages, text pages, rejections, breaks and file heads.

The item types of :func:`ingest.warc.read_captures` and :func:`ingest.warc.read_head` (see
:mod:`ingest.warc` for what each stands for), and the two limits callers need: the largest
payload read (:data:`MAX_PAYLOAD`) and the rejection reasons that mean a damaged file
(:data:`DAMAGE_REASONS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

__all__ = [
    "DAMAGE_REASONS",
    "MAX_PAYLOAD",
    "Break",
    "FileHead",
    "Page",
    "Rejection",
    "TextPage",
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


@dataclass
class Page:
    """An HTTP 200 HTML response (the payload decoded from transfer and content codings).

    ``nulled`` names the values set to ``None`` because they could not be read
    (``bad_warc_date``, ``missing_warc_date``, ``malformed_languages_cld2``) and the ways the
    payload was read as stored rather than as its headers say (``content_encoding_not_applied``,
    ``transfer_encoding_not_applied``, ``content_length_understated``); each is counted in the
    file's books. A page read from an ARC file has a derived ``record_id`` (``<urn:sha1:…>``)
    and no ``payload_digest``.
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
    as for :class:`Page` (and ``malformed_identified_content_language`` when the header holds
    something that is no language code: ``languages`` is then empty).
    """

    record_id: str
    url: str
    offset: int
    fetched_at: datetime | None
    text: str
    payload_digest: str | None
    languages: tuple[str, ...]  # WARC-Identified-Content-Language's codes (ISO 639-3), checked
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

    kind: str  # 'warc', 'wet', 'wat', 'arc', 'not_warc', or 'unknown' when no record tells
    is_part_of: str | None  # the isPartOf field of its first warcinfo record, if any


@dataclass(frozen=True)
class Break:
    """The file cannot be read past this byte offset (nothing after it could be resumed at)."""

    offset: int
    message: str
