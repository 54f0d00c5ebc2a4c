"""Write Common Crawl-style ``.warc.gz`` files for the demo crawl.

The layout copies what Common Crawl's crawler (Apache Nutch with CC's ``WarcWriter``) writes, as
seen in the real ``CC-MAIN-2020-34`` excerpt under ``shared/data/real/resiliparse-cc``:

* every record is its own gzip member; records are ``WARC/1.0`` (although the ``warcinfo``
  says ``format: WARC File Format 1.1``), header lines end in CRLF and every record ends in
  ``CRLF CRLF``;
* the file starts with one ``warcinfo`` record (``WARC-Filename`` plus ``isPartOf``,
  ``publisher``, ``description``, ``operator``, ``hostname``, ``software``, ``robots``,
  ``format``, ``conformsTo``);
* each capture is a ``request`` record, a ``response`` record (``WARC-Concurrent-To`` the
  request, with ``WARC-Payload-Digest``, ``WARC-Block-Digest`` and
  ``WARC-Identified-Payload-Type``) and a ``metadata`` record (``WARC-Concurrent-To`` the
  response) holding ``fetchTimeMs``, ``charset-detected`` and ``languages-cld2`` JSON;
* WARC header order is CC's: ``WARC-Type, WARC-Date, WARC-Record-ID, Content-Length,
  Content-Type``, then the record-specific fields;
* a revisit follows CC's ``writeWarcRevisitRecord``: ``WARC-Refers-To``,
  ``WARC-Refers-To-Target-URI``, ``WARC-Refers-To-Date``, the 1.1 ``identical-payload-digest``
  profile, the original payload digest and a block digest over the HTTP headers.

Everything is deterministic: the caller supplies dates and response record ids; every other
record id and every random detail (fetch time, request headers, ...) comes from the
``numpy.random.Generator`` handed to the writer, and per-host details (IP address, server
software) from a hash of the host name. Gzip members carry mtime 0 and no file name, so the same
calls give byte-identical files. The bytes are built directly (no ``warcio`` writer): roughly
a hundred microseconds of Python, hashing and I/O per capture on top of zlib, which dominates.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import http
import random
import re
import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Final

import numpy as np

__all__ = [
    "CLD2_LANGUAGES",
    "REVISIT_PROFILE",
    "Capture",
    "WarcFileWriter",
    "chunk_encode",
    "sha1_b32",
]

#: ``WARC-Profile`` of Common Crawl's identical-payload revisits (CC's WarcWriter constant).
REVISIT_PROFILE: Final = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

#: CLD2 names and ISO 639-3 codes, as Common Crawl's ``languages-cld2`` JSON spells them
#: (CLD2 writes most names in capitals but the CJK ones in title case).
CLD2_LANGUAGES: Final[Mapping[str, tuple[str, str]]] = {
    "en": ("eng", "ENGLISH"),
    "de": ("deu", "GERMAN"),
    "fr": ("fra", "FRENCH"),
    "ru": ("rus", "RUSSIAN"),
    "ja": ("jpn", "Japanese"),
    "zh": ("zho", "Chinese"),
    "zh-Hant": ("zho", "ChineseT"),
    "ko": ("kor", "Korean"),
    "pt": ("por", "PORTUGUESE"),
    "es": ("spa", "SPANISH"),
    "it": ("ita", "ITALIAN"),
    "nl": ("nld", "DUTCH"),
    "da": ("dan", "DANISH"),
    "sv": ("swe", "SWEDISH"),
    "no": ("nor", "NORWEGIAN"),
    "fi": ("fin", "FINNISH"),
    "pl": ("pol", "POLISH"),
    "cs": ("ces", "CZECH"),
    "uk": ("ukr", "UKRAINIAN"),
    "tr": ("tur", "TURKISH"),
    "el": ("ell", "GREEK"),
    "hu": ("hun", "HUNGARIAN"),
    "ro": ("ron", "ROMANIAN"),
    "ar": ("ara", "ARABIC"),
    "fa": ("fas", "PERSIAN"),
    "he": ("heb", "HEBREW"),
    "hi": ("hin", "HINDI"),
    "id": ("ind", "INDONESIAN"),
    "vi": ("vie", "VIETNAMESE"),
    "th": ("tha", "THAI"),
}

_CRLF: Final = "\r\n"
_RECORD_END: Final = b"\r\n\r\n"
# Gzip member header: deflate, no flags, mtime 0, no extra flags, OS "unknown".
_GZIP_HEADER: Final = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_CHUNK_SIZE: Final = 8192
_B32_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_B32_PAIRS: Final = tuple(a + b for a in _B32_ALPHABET for b in _B32_ALPHABET)

_USER_AGENT: Final = "CCBot/2.0 (https://commoncrawl.org/faq/)"
_ACCEPT: Final = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
_DAYS: Final = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS: Final = (
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
)
_SERVERS: Final = (
    "nginx",
    "nginx/1.18.0",
    "nginx/1.24.0",
    "Apache",
    "Apache/2.4.41 (Ubuntu)",
    "Apache/2.4.57 (Debian)",
    "cloudflare",
    "Microsoft-IIS/10.0",
    "LiteSpeed",
    "openresty",
)
_POWERED_BY: Final = (None, None, "PHP/7.4.33", "PHP/8.1.27", "PHP/8.2.12", "ASP.NET", "Express")
_TEXTUAL_TYPES: Final = frozenset(
    {
        "application/xhtml+xml",
        "application/xml",
        "application/json",
        "application/javascript",
        "application/rss+xml",
        "application/atom+xml",
    }
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_CHARSET_NAMES: Final = {
    "utf-8": "UTF-8",
    "utf8": "UTF-8",
    "shift_jis": "Shift_JIS",
    "shift-jis": "Shift_JIS",
    "sjis": "Shift_JIS",
    "euc-jp": "EUC-JP",
    "iso-2022-jp": "ISO-2022-JP",
    "gb2312": "GB2312",
    "gbk": "GBK",
    "gb18030": "GB18030",
    "big5": "Big5",
    "euc-kr": "EUC-KR",
    "koi8-r": "KOI8-R",
    "iso-8859-1": "ISO-8859-1",
    "latin-1": "ISO-8859-1",
    "iso-8859-2": "ISO-8859-2",
    "iso-8859-5": "ISO-8859-5",
    "iso-8859-15": "ISO-8859-15",
    "us-ascii": "US-ASCII",
}


@dataclass(frozen=True)
class Capture:
    """One fetch: what the crawler asked for and what the server sent back.

    Attributes:
        url: Target URI (ASCII; IDNs in punycode).
        fetched_at: Fetch time; naive values are taken as UTC. Written with second precision.
        record_id: ``<urn:uuid:...>`` of the response (or revisit) record, the document key
            downstream.
        status: HTTP status code.
        content_type: HTTP ``Content-Type`` mime type, without parameters.
        charset: Charset appended to the HTTP ``Content-Type`` (``; charset=...``) when not
            None. Ignored for non-textual mime types (images, PDF, ...).
        body: HTTP payload as sent, already encoded (never compressed).
        languages_cld2: ``(code, percent)`` pairs, percent in 0-100, for the metadata record's
            ``languages-cld2`` entry, most prominent first; empty means no entry.
        chunked: Send the payload with ``Transfer-Encoding: chunked`` (8 KiB chunks) instead of
            ``Content-Length``. The payload digest then covers the chunked bytes, which is what
            warcio and FastWARC verify.
        location: ``Location`` header (for 3xx responses).
        charset_detected: Value of the metadata record's ``charset-detected``; None derives it
            from ``charset``, else the page's ``<meta>`` declaration, else UTF-8 when the body
            decodes as such, else resiliparse's ``detect_encoding``. Only textual, non-empty
            payloads get the line.
    """

    url: str
    fetched_at: dt.datetime
    record_id: str
    status: int = 200
    content_type: str = "text/html"
    charset: str | None = "utf-8"
    body: bytes = b""
    languages_cld2: Sequence[tuple[str, float]] = ()
    chunked: bool = False
    location: str | None = None
    charset_detected: str | None = None


def _b32(digest: bytes) -> str:
    """RFC 4648 base32 of a 20-byte digest (32 characters, no padding), via 10-bit lookups."""
    n = int.from_bytes(digest, "big")
    return "".join([_B32_PAIRS[(n >> shift) & 0x3FF] for shift in range(150, -1, -10)])


def sha1_b32(data: bytes) -> str:
    """Return a WARC digest value: ``sha1:`` plus the base32 SHA-1 of ``data``."""
    return "sha1:" + _b32(hashlib.sha1(data).digest())


def _urn_uuid(n: int) -> str:
    """Format 128 random bits as a version-4 ``<urn:uuid:...>`` record id."""
    n = (n & ~(0xF << 76)) | (0x4 << 76)  # version 4
    n = (n & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
    h = f"{n:032x}"
    return f"<urn:uuid:{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}>"


def _split_url(url: str) -> tuple[str, str, str]:
    """Split an absolute URL into (lower-case host, netloc, request target)."""
    rest = url.split("://", 1)[-1].split("#", 1)[0]
    cut = len(rest)
    for sep in "/?":
        k = rest.find(sep)
        if -1 < k < cut:
            cut = k
    netloc, target = rest[:cut], rest[cut:]
    if not target.startswith("/"):
        target = "/" + target
    host = netloc.rsplit("@", 1)[-1]
    host = host[1 : host.find("]")] if host.startswith("[") else host.split(":", 1)[0]
    return host.lower(), netloc, target


def chunk_encode(body: bytes, chunk_size: int = _CHUNK_SIZE) -> bytes:
    """Encode ``body`` with HTTP/1.1 chunked transfer coding (no trailers).

    Args:
        body: Payload bytes.
        chunk_size: Size of every chunk but the last.

    Returns:
        The chunked bytes, ending in the zero-length chunk.
    """
    parts: list[bytes] = []
    for start in range(0, len(body), chunk_size):
        piece = body[start : start + chunk_size]
        parts.append(b"%x\r\n" % len(piece))
        parts.append(piece)
        parts.append(b"\r\n")
    parts.append(b"0\r\n\r\n")
    return b"".join(parts)


def _utc(moment: dt.datetime) -> dt.datetime:
    """Return ``moment`` in UTC (naive datetimes are taken to be UTC already)."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(dt.UTC).replace(tzinfo=None)


def _warc_date(moment: dt.datetime) -> str:
    """Format a WARC-Date (``2020-08-08T17:27:41Z``)."""
    m = _utc(moment)
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}Z"


def _http_date(moment: dt.datetime) -> str:
    """Format an HTTP date (``Sat, 08 Aug 2020 17:27:36 GMT``)."""
    m = _utc(moment)
    return (
        f"{_DAYS[m.weekday()]}, {m.day:02d} {_MONTHS[m.month - 1]} {m.year:04d} "
        f"{m.hour:02d}:{m.minute:02d}:{m.second:02d} GMT"
    )


def _reason(status: int) -> str:
    """HTTP reason phrase of ``status``."""
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def _is_textual(mime: str) -> bool:
    """Whether a mime type carries text (so a charset applies)."""
    return mime.startswith("text/") or mime in _TEXTUAL_TYPES or mime.endswith("+xml")


def _canonical_charset(name: str) -> str:
    """Spell a charset the way detectors report it (``UTF-8``, ``windows-1251``, ``Shift_JIS``)."""
    key = name.strip().lower()
    if key in _CHARSET_NAMES:
        return _CHARSET_NAMES[key]
    if key.startswith(("windows-", "cp125")):
        return "windows-" + key.rsplit("-", 1)[-1].removeprefix("cp")
    return name.strip()


def _detect_charset(capture: Capture) -> str | None:
    """The metadata record's ``charset-detected``: HTTP charset, else ``<meta>``, else a guess."""
    if capture.charset_detected is not None:
        return capture.charset_detected
    if not capture.body or not _is_textual(capture.content_type):
        return None
    if capture.charset:
        return _canonical_charset(capture.charset)
    found = _META_CHARSET.search(capture.body, 0, 4096)
    if found:
        return _canonical_charset(found.group(1).decode("ascii"))
    try:
        capture.body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return "UTF-8"
    try:
        from resiliparse.parse.encoding import detect_encoding
    except ImportError:  # pragma: no cover - resiliparse is a project dependency
        return "ISO-8859-1"
    return _canonical_charset(detect_encoding(capture.body))


def _identified_type(capture: Capture) -> str:
    """``WARC-Identified-Payload-Type``: the mime type, XHTML when the page says it is."""
    mime = capture.content_type
    if mime == "text/html":
        head = capture.body[:512]
        if head.startswith(b"<?xml") or b"XHTML" in head:
            return "application/xhtml+xml"
    return mime


@lru_cache(maxsize=65536)
def _host_profile(host: str) -> tuple[str, str, str | None]:
    """Per-host constants derived from the host name: (IP address, Server, X-Powered-By)."""
    h = hashlib.blake2b(host.encode(), digest_size=8).digest()
    first = 11 + h[0] % 212
    if first in (127, 169, 172, 192):
        first += 1
    ip = f"{first}.{h[1]}.{h[2]}.{1 + h[3] % 254}"
    return ip, _SERVERS[h[4] % len(_SERVERS)], _POWERED_BY[h[5] % len(_POWERED_BY)]


def _cld2_json(languages: Sequence[tuple[str, float]], text_bytes: int, score_seed: int) -> str:
    """Format ``languages-cld2`` exactly as CC does (compact JSON, Java float formatting).

    Args:
        languages: ``(code, percent)`` pairs, percent in 0-100.
        text_bytes: Value of ``text-bytes``.
        score_seed: Integer that makes the CLD2 ``score`` values vary deterministically.

    Returns:
        The JSON text.
    """
    items = []
    for k, (code, percent) in enumerate(languages):
        iso3, name = CLD2_LANGUAGES.get(code, (code, code.upper()))
        covered = round(float(percent) / 100.0, 2)
        score = float(400 + (score_seed >> (3 * k)) % 1700)
        items.append(
            f'{{"code":"{code}","code-iso-639-3":"{iso3}","text-covered":{covered!r},'
            f'"score":{score!r},"name":"{name}"}}'
        )
    reliable = "true" if languages and float(languages[0][1]) >= 50.0 else "false"
    return f'{{"reliable":{reliable},"text-bytes":{text_bytes},"languages":[{",".join(items)}]}}'


def _crawl_description(crawl: str) -> str:
    """``description`` of the warcinfo record, from a crawl id like ``CC-MAIN-2024-10``."""
    found = re.fullmatch(r"CC-MAIN-(\d{4})-(\d{2})", crawl)
    if not found:
        return f"Wide crawl of the web ({crawl})"
    year, week = int(found.group(1)), int(found.group(2))
    try:
        month = dt.date.fromisocalendar(year, max(1, min(week, 52)), 1).strftime("%B")
    except ValueError:
        return f"Wide crawl of the web ({crawl})"
    return f"Wide crawl of the web for {month} {year}"


def _nutch_version(crawl: str) -> str:
    """Nutch version string by crawl year (approximate; override via ``warcinfo``)."""
    found = re.match(r"CC-MAIN-(\d{4})", crawl)
    year = int(found.group(1)) if found else 2024
    return "1.17" if year <= 2020 else "1.18" if year <= 2021 else "1.19"


_CC_FILENAME = re.compile(r"CC-MAIN-(\d{14})-")


class WarcFileWriter:
    """Write one Common Crawl-style ``.warc.gz`` file, one gzip member per record.

    Use as a context manager (or call :meth:`close`). The ``warcinfo`` record is written before
    the first capture (or on close for an empty file); its ``WARC-Date`` is ``started_at``,
    else the timestamp in a CC-style file name (``CC-MAIN-20240223133422-...``), else the
    first capture's ``fetched_at``.

    Attributes:
        path: The output file.
        warcinfo_id: Record id of the file's ``warcinfo`` record.
        record_counts: Records written so far, by WARC-Type.
        last_record_length: Compressed length in bytes of the response (or revisit) record
            written by the last ``write_capture`` / ``write_revisit`` call.
    """

    def __init__(
        self,
        path: Path,
        *,
        warcinfo: Mapping[str, str],
        rng: np.random.Generator,
        crawl: str,
        started_at: dt.datetime | None = None,
        compresslevel: int = 6,
    ) -> None:
        """Open ``path`` for writing.

        Args:
            path: Output file (``.warc.gz``); its name becomes ``WARC-Filename``.
            warcinfo: Fields of the ``warcinfo`` record. They override CC's defaults
                (``isPartOf`` = ``crawl``, ``publisher``, ``description``, ``operator``,
                ``hostname``, ``software``, ``robots``, ``format``, ``conformsTo``), which keep
                their order; other keys follow in the given order.
            rng: Source of record ids and of random details: the writer takes 32 bytes from it
                here, once, to seed its own stream.
            crawl: Crawl id (``CC-MAIN-2024-10``), the ``isPartOf`` value.
            started_at: ``WARC-Date`` of the ``warcinfo`` record (see class docstring).
            compresslevel: zlib level of every gzip member (CC's Java default is 6).
        """
        self.path = Path(path)
        # One draw from the caller's generator seeds the writer's own stream: a Mersenne Twister
        # (stable across Python versions) is ten times cheaper per draw than numpy's bytes().
        self._bits = random.Random(int.from_bytes(rng.bytes(32), "big")).getrandbits
        self._crawl = crawl
        self._level = compresslevel
        self._started_at = started_at
        if self._started_at is None:
            found = _CC_FILENAME.search(self.path.name)
            if found:
                self._started_at = dt.datetime.strptime(found.group(1), "%Y%m%d%H%M%S")
        self._fields = self._warcinfo_fields(warcinfo)
        self.warcinfo_id = self._new_id()
        self.record_counts: dict[str, int] = {}
        self.last_record_length = 0
        self._payload_digests: dict[str, str] = {}
        self._pos = 0
        self._warcinfo_written = False
        self._fh: BinaryIO | None = open(self.path, "wb")  # noqa: SIM115 - closed in close()

    # ------------------------------------------------------------------ context manager
    def __enter__(self) -> WarcFileWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Write the ``warcinfo`` record if nothing was written yet, and close the file."""
        if self._fh is None:
            return
        if not self._warcinfo_written:
            self._write_warcinfo(self._started_at or dt.datetime(1970, 1, 1))
        self._fh.close()
        self._fh = None

    def tell(self) -> int:
        """Bytes written to the file so far (the offset of the next record)."""
        return self._pos

    # ------------------------------------------------------------------ public writers
    def write_capture(self, capture: Capture) -> int:
        """Write the ``request``, ``response`` and ``metadata`` records of one capture.

        Args:
            capture: The fetch to archive.

        Returns:
            Byte offset in the file of the (gzip member of the) response record.

        Raises:
            ValueError: On a closed writer or a malformed ``record_id``.
        """
        self._ensure_open(capture)
        (request_id, metadata_id), rand = self._draw(2, 4)
        date = _warc_date(capture.fetched_at)
        host, ip, request = self._request_block(capture, rand[0])

        request_member = self._member(
            self._record_head(
                "request",
                date,
                request_id,
                len(request),
                "application/http; msgtype=request",
                f"WARC-Warcinfo-ID: {self.warcinfo_id}\r\n"
                f"WARC-IP-Address: {ip}\r\n"
                f"WARC-Target-URI: {capture.url}\r\n",
            ),
            request,
        )

        payload = chunk_encode(capture.body) if capture.chunked else capture.body
        http_head = self._response_head(capture, host, len(payload), rand[1]).encode()
        payload_digest = sha1_b32(payload)
        block_hash = hashlib.sha1(http_head)
        block_hash.update(payload)
        block_digest = "sha1:" + _b32(block_hash.digest())
        self._payload_digests[capture.record_id] = payload_digest
        extra = (
            f"WARC-Warcinfo-ID: {self.warcinfo_id}\r\n"
            f"WARC-Concurrent-To: {request_id}\r\n"
            f"WARC-IP-Address: {ip}\r\n"
            f"WARC-Target-URI: {capture.url}\r\n"
            f"WARC-Payload-Digest: {payload_digest}\r\n"
            f"WARC-Block-Digest: {block_digest}\r\n"
        )
        if capture.body:
            extra += f"WARC-Identified-Payload-Type: {_identified_type(capture)}\r\n"
        response_member = self._member(
            self._record_head(
                "response",
                date,
                capture.record_id,
                len(http_head) + len(payload),
                "application/http; msgtype=response",
                extra,
            ),
            http_head,
            payload,
        )

        metadata = self._metadata_block(capture, rand[2], rand[3])
        metadata_member = self._member(
            self._record_head(
                "metadata",
                date,
                metadata_id,
                len(metadata),
                "application/warc-fields",
                f"WARC-Warcinfo-ID: {self.warcinfo_id}\r\n"
                f"WARC-Concurrent-To: {capture.record_id}\r\n"
                f"WARC-Target-URI: {capture.url}\r\n",
            ),
            metadata,
        )
        offset = self._pos + len(request_member)
        self._write(request_member + response_member + metadata_member)
        self.last_record_length = len(response_member)
        for kind in ("request", "response", "metadata"):
            self.record_counts[kind] = self.record_counts.get(kind, 0) + 1
        return offset

    def write_revisit(self, capture: Capture, refers_to: Capture) -> int:
        """Write a ``request`` and an identical-payload-digest ``revisit`` record.

        The revisit stands for a fetch of ``capture.url`` at ``capture.fetched_at`` whose
        payload was byte-identical to that of ``refers_to`` (an earlier capture, in this file or
        another one). As Common Crawl writes them, the record holds only the HTTP status line
        and headers; ``WARC-Payload-Digest`` is the original's, ``WARC-Refers-To`` its record
        id. The HTTP headers (type, charset, transfer coding) are those of ``refers_to``.

        Args:
            capture: The new fetch; ``record_id`` becomes the revisit's record id, ``body``
                must be empty or equal to ``refers_to.body``.
            refers_to: The capture whose payload was archived.

        Returns:
            Byte offset in the file of the revisit record.

        Raises:
            ValueError: When ``capture.body`` is neither empty nor identical to the original's,
                on a closed writer or a malformed ``record_id``.
        """
        if capture.body and capture.body != refers_to.body:
            raise ValueError("a revisit needs a payload identical to the original's")
        self._ensure_open(capture)
        (request_id,), rand = self._draw(1, 2)
        date = _warc_date(capture.fetched_at)
        host, ip, request = self._request_block(capture, rand[0])
        request_member = self._member(
            self._record_head(
                "request",
                date,
                request_id,
                len(request),
                "application/http; msgtype=request",
                f"WARC-Warcinfo-ID: {self.warcinfo_id}\r\n"
                f"WARC-IP-Address: {ip}\r\n"
                f"WARC-Target-URI: {capture.url}\r\n",
            ),
            request,
        )
        payload_digest = self._payload_digests.get(refers_to.record_id)
        if payload_digest is None:
            original = chunk_encode(refers_to.body) if refers_to.chunked else refers_to.body
            payload_digest = sha1_b32(original)
        payload_len = (
            len(chunk_encode(refers_to.body)) if refers_to.chunked else len(refers_to.body)
        )
        shown = Capture(
            url=capture.url,
            fetched_at=capture.fetched_at,
            record_id=capture.record_id,
            status=capture.status,
            content_type=refers_to.content_type,
            charset=refers_to.charset,
            chunked=refers_to.chunked,
            location=capture.location,
        )
        http_head = self._response_head(shown, host, payload_len, rand[1]).encode()
        revisit_member = self._member(
            self._record_head(
                "revisit",
                date,
                capture.record_id,
                len(http_head),
                "application/http; msgtype=response",
                f"WARC-Warcinfo-ID: {self.warcinfo_id}\r\n"
                f"WARC-Refers-To: {refers_to.record_id}\r\n"
                f"WARC-IP-Address: {ip}\r\n"
                f"WARC-Target-URI: {capture.url}\r\n"
                f"WARC-Refers-To-Target-URI: {refers_to.url}\r\n"
                f"WARC-Refers-To-Date: {_warc_date(refers_to.fetched_at)}\r\n"
                f"WARC-Profile: {REVISIT_PROFILE}\r\n"
                f"WARC-Payload-Digest: {payload_digest}\r\n"
                f"WARC-Block-Digest: {sha1_b32(http_head)}\r\n",
            ),
            http_head,
        )
        offset = self._pos + len(request_member)
        self._write(request_member + revisit_member)
        self.last_record_length = len(revisit_member)
        for kind in ("request", "revisit"):
            self.record_counts[kind] = self.record_counts.get(kind, 0) + 1
        return offset

    # ------------------------------------------------------------------ internals
    def _new_id(self) -> str:
        """A fresh ``<urn:uuid:...>`` (version 4 layout) from the writer's random stream."""
        return _urn_uuid(self._bits(128))

    def _draw(self, n_ids: int, n_ints: int) -> tuple[list[str], list[int]]:
        """Draw ``n_ids`` record ids and ``n_ints`` 62-bit integers."""
        bits = self._bits
        return [_urn_uuid(bits(128)) for _ in range(n_ids)], [bits(62) for _ in range(n_ints)]

    def _warcinfo_fields(self, warcinfo: Mapping[str, str]) -> dict[str, str]:
        """CC's default warcinfo fields, overridden and extended by the caller's."""
        octets = [self._bits(8), self._bits(8)]
        fields = {
            "isPartOf": self._crawl,
            "publisher": "Common Crawl",
            "description": _crawl_description(self._crawl),
            "operator": "Common Crawl Admin (info@commoncrawl.org)",
            "hostname": f"ip-10-67-{octets[0]}-{octets[1]}.ec2.internal",
            "software": f"Apache Nutch {_nutch_version(self._crawl)} "
            "(modified, https://github.com/commoncrawl/nutch/)",
            "robots": "checked via crawler-commons 1.2-SNAPSHOT "
            "(https://github.com/crawler-commons/crawler-commons)",
            "format": "WARC File Format 1.1",
            "conformsTo": "http://iipc.github.io/warc-specifications/specifications/"
            "warc-format/warc-1.1/",
        }
        fields.update(warcinfo)
        return fields

    def _ensure_open(self, capture: Capture) -> None:
        """Check the writer and the record id; write the warcinfo record before the first capture.

        Raises:
            ValueError: On a closed writer or a record id that is not ``<urn:...>``.
        """
        if self._fh is None:
            raise ValueError(f"write to closed WarcFileWriter ({self.path})")
        rid = capture.record_id
        if not (rid.startswith("<urn:") and rid.endswith(">")):
            raise ValueError(f"record_id must look like '<urn:uuid:...>', got {rid!r}")
        if not self._warcinfo_written:
            self._write_warcinfo(self._started_at or capture.fetched_at)

    def _write_warcinfo(self, date: dt.datetime) -> None:
        """Write the file's ``warcinfo`` record."""
        block = "".join(f"{k}: {v}\r\n" for k, v in self._fields.items()).encode()
        head = self._record_head(
            "warcinfo",
            _warc_date(date),
            self.warcinfo_id,
            len(block),
            "application/warc-fields",
            f"WARC-Filename: {self.path.name}\r\n",
        )
        self._write(self._member(head, block))
        self._warcinfo_written = True
        self.record_counts["warcinfo"] = self.record_counts.get("warcinfo", 0) + 1

    @staticmethod
    def _record_head(
        kind: str, date: str, record_id: str, length: int, content_type: str, extra: str
    ) -> bytes:
        """WARC/1.0 version line and header block, in CC's field order."""
        return (
            f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Date: {date}\r\n"
            f"WARC-Record-ID: {record_id}\r\nContent-Length: {length}\r\n"
            f"Content-Type: {content_type}\r\n{extra}\r\n"
        ).encode()

    def _member(self, *parts: bytes) -> bytes:
        """One gzip member holding a record: ``parts`` (header and block) plus CRLF CRLF."""
        data = b"".join((*parts, _RECORD_END))
        return b"".join(
            (
                _GZIP_HEADER,
                zlib.compress(data, self._level, -15),
                struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF),
            )
        )

    def _write(self, data: bytes) -> None:
        """Append bytes to the file and advance the offset."""
        assert self._fh is not None
        self._fh.write(data)
        self._pos += len(data)

    @staticmethod
    def _request_block(capture: Capture, rand: int) -> tuple[str, str, bytes]:
        """The HTTP request CCBot sent: returns (host, IP address, request bytes)."""
        host, netloc, target = _split_url(capture.url)
        ip = _host_profile(host)[0]
        lines = [
            f"GET {target} HTTP/1.1",
            f"User-Agent: {_USER_AGENT}",
            f"Accept: {_ACCEPT}",
            "Accept-Language: en-US,en;q=0.5",
        ]
        if rand % 100 < 15:  # a re-fetch: CC sends the last modification time it knows
            days = 7 + (rand >> 8) % 300
            seconds = (rand >> 20) % 86400
            known = _utc(capture.fetched_at) - dt.timedelta(days=days, seconds=seconds)
            lines.append(f"If-Modified-Since: {_http_date(known)}")
        lines += ["Accept-Encoding: br,gzip", f"Host: {netloc}", "Connection: Keep-Alive"]
        return host, ip, (_CRLF.join(lines) + "\r\n\r\n").encode()

    @staticmethod
    def _response_head(capture: Capture, host: str, payload_len: int, rand: int) -> str:
        """HTTP status line and headers of a response, ending in the blank line."""
        _, server, powered_by = _host_profile(host)
        mime = capture.content_type
        content_type = mime
        if capture.charset is not None and _is_textual(mime):
            content_type = f"{mime}; charset={capture.charset}"
        lines = [
            f"HTTP/1.1 {capture.status} {_reason(capture.status)}",
            f"Server: {server}",
            f"Date: {_http_date(capture.fetched_at)}",
            f"Content-Type: {content_type}",
        ]
        if capture.chunked:
            lines.append("Transfer-Encoding: chunked")
        else:
            lines.append(f"Content-Length: {payload_len}")
        lines.append("Connection: keep-alive")
        if capture.location is not None:
            lines.append(f"Location: {capture.location}")
        if capture.status == 200:
            if rand % 3 == 0:
                modified = _utc(capture.fetched_at) - dt.timedelta(
                    seconds=3600 + (rand >> 4) % (400 * 86400)
                )
                lines.append(f"Last-Modified: {_http_date(modified)}")
            if _is_textual(mime):
                lines.append("Vary: Accept-Encoding")
            if (rand >> 40) % 4 == 0:
                lines.append(f"Cache-Control: max-age={60 * (1 + (rand >> 44) % 60)}")
        elif capture.status >= 500:
            lines.append("Retry-After: 120")
        if powered_by is not None and _is_textual(mime):
            lines.append(f"X-Powered-By: {powered_by}")
        if not capture.chunked and _is_textual(mime) and payload_len > 1024 and rand % 2:
            # The server sent the page gzip-compressed; CC stores it decoded and renames the
            # header, as in the real files (X-Crawler-Content-Encoding).
            lines.append("X-Crawler-Content-Encoding: gzip")
        return _CRLF.join(lines) + "\r\n\r\n"

    @staticmethod
    def _metadata_block(capture: Capture, rand_fetch: int, rand_lang: int) -> bytes:
        """``fetchTimeMs``, ``charset-detected`` and ``languages-cld2`` lines."""
        # Log-normal-ish fetch time, median about 400 ms, long tail to tens of seconds.
        u = (rand_fetch % 1_000_003) / 1_000_003
        fetch_ms = int(60 + 340 * (u / (1.0 - u + 0.02)) ** 0.8)
        lines = [f"fetchTimeMs: {fetch_ms}"]
        charset = _detect_charset(capture)
        if charset is not None:
            lines.append(f"charset-detected: {charset}")
        if capture.languages_cld2:
            # CLD2 sees the visible text only: about 15-45 % of an HTML page's bytes.
            share = 15 + (rand_lang >> 32) % 31
            text_bytes = max(1, len(capture.body) * share // 100)
            lines.append(
                "languages-cld2: " + _cld2_json(capture.languages_cld2, text_bytes, rand_lang)
            )
        # CC's warc-fields block ends in an empty line (CRLF CRLF), as in the real files.
        return (_CRLF.join(lines) + "\r\n\r\n").encode()
