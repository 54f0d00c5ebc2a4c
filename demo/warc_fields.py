"""What the demo's WARC records say: the capture, its digests, dates, charsets and languages.

``Capture`` is one fetch (what the crawler asked for and what the server sent back); the
functions here spell its parts the way Common Crawl's crawler writes them: SHA-1 digests in
base 32 (``sha1_b32``), ``WARC-Date`` and HTTP dates, HTTP reason phrases, chunked transfer
encoding, the charset detected from the HTTP header or the page, the identified payload type,
a host's IP address and server software (a hash of the host name), the ``languages-cld2`` JSON
of the metadata record (``CLD2_LANGUAGES``), and the ``warcinfo`` description and Nutch version
of a crawl. ``demo.warcgen.WarcFileWriter`` lays them out as records.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import http
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

__all__ = [
    "CLD2_LANGUAGES",
    "REVISIT_PROFILE",
    "Capture",
    "b32",
    "chunk_encode",
    "cld2_json",
    "crawl_description",
    "detect_charset",
    "host_profile",
    "http_date",
    "identified_type",
    "is_textual",
    "nutch_version",
    "reason",
    "sha1_b32",
    "split_url",
    "urn_uuid",
    "utc",
    "warc_date",
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

_CHUNK_SIZE: Final = 8192
_B32_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_B32_PAIRS: Final = tuple(a + b for a in _B32_ALPHABET for b in _B32_ALPHABET)

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


def b32(digest: bytes) -> str:
    """RFC 4648 base32 of a 20-byte digest (32 characters, no padding), via 10-bit lookups."""
    n = int.from_bytes(digest, "big")
    return "".join([_B32_PAIRS[(n >> shift) & 0x3FF] for shift in range(150, -1, -10)])


def sha1_b32(data: bytes) -> str:
    """Return a WARC digest value: ``sha1:`` plus the base32 SHA-1 of ``data``."""
    return "sha1:" + b32(hashlib.sha1(data).digest())


def urn_uuid(n: int) -> str:
    """Format 128 random bits as a version-4 ``<urn:uuid:...>`` record id."""
    n = (n & ~(0xF << 76)) | (0x4 << 76)  # version 4
    n = (n & ~(0x3 << 62)) | (0x2 << 62)  # RFC 4122 variant
    h = f"{n:032x}"
    return f"<urn:uuid:{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}>"


def split_url(url: str) -> tuple[str, str, str]:
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


def utc(moment: dt.datetime) -> dt.datetime:
    """Return ``moment`` in UTC (naive datetimes are taken to be UTC already)."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(dt.UTC).replace(tzinfo=None)


def warc_date(moment: dt.datetime) -> str:
    """Format a WARC-Date (``2020-08-08T17:27:41Z``)."""
    m = utc(moment)
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}Z"


def http_date(moment: dt.datetime) -> str:
    """Format an HTTP date (``Sat, 08 Aug 2020 17:27:36 GMT``)."""
    m = utc(moment)
    return (
        f"{_DAYS[m.weekday()]}, {m.day:02d} {_MONTHS[m.month - 1]} {m.year:04d} "
        f"{m.hour:02d}:{m.minute:02d}:{m.second:02d} GMT"
    )


def reason(status: int) -> str:
    """HTTP reason phrase of ``status``."""
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def is_textual(mime: str) -> bool:
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


def detect_charset(capture: Capture) -> str | None:
    """The metadata record's ``charset-detected``: HTTP charset, else ``<meta>``, else a guess."""
    if capture.charset_detected is not None:
        return capture.charset_detected
    if not capture.body or not is_textual(capture.content_type):
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


def identified_type(capture: Capture) -> str:
    """``WARC-Identified-Payload-Type``: the mime type, XHTML when the page says it is."""
    mime = capture.content_type
    if mime == "text/html":
        head = capture.body[:512]
        if head.startswith(b"<?xml") or b"XHTML" in head:
            return "application/xhtml+xml"
    return mime


@lru_cache(maxsize=65536)
def host_profile(host: str) -> tuple[str, str, str | None]:
    """Per-host constants derived from the host name: (IP address, Server, X-Powered-By)."""
    h = hashlib.blake2b(host.encode(), digest_size=8).digest()
    first = 11 + h[0] % 212
    if first in (127, 169, 172, 192):
        first += 1
    ip = f"{first}.{h[1]}.{h[2]}.{1 + h[3] % 254}"
    return ip, _SERVERS[h[4] % len(_SERVERS)], _POWERED_BY[h[5] % len(_POWERED_BY)]


def cld2_json(languages: Sequence[tuple[str, float]], text_bytes: int, score_seed: int) -> str:
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


def crawl_description(crawl: str) -> str:
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


def nutch_version(crawl: str) -> str:
    """Nutch version string by crawl year (approximate; override via ``warcinfo``)."""
    found = re.match(r"CC-MAIN-(\d{4})", crawl)
    year = int(found.group(1)) if found else 2024
    return "1.17" if year <= 2020 else "1.18" if year <= 2021 else "1.19"
