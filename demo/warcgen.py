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
``Capture`` and the spelling of each record's fields are in ``demo.warc_fields``; this module
lays them out as records and gzip members.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
import struct
import zlib
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Final

import numpy as np

from demo.warc_fields import (
    REVISIT_PROFILE,
    Capture,
    b32,
    chunk_encode,
    cld2_json,
    crawl_description,
    detect_charset,
    host_profile,
    http_date,
    identified_type,
    is_textual,
    nutch_version,
    reason,
    sha1_b32,
    split_url,
    urn_uuid,
    utc,
    warc_date,
)

__all__ = ["WarcFileWriter"]

_CRLF: Final = "\r\n"
_RECORD_END: Final = b"\r\n\r\n"
# Gzip member header: deflate, no flags, mtime 0, no extra flags, OS "unknown".
_GZIP_HEADER: Final = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_USER_AGENT: Final = "CCBot/2.0 (https://commoncrawl.org/faq/)"
_ACCEPT: Final = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
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
        date = warc_date(capture.fetched_at)
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
        block_digest = "sha1:" + b32(block_hash.digest())
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
            extra += f"WARC-Identified-Payload-Type: {identified_type(capture)}\r\n"
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
        date = warc_date(capture.fetched_at)
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
                f"WARC-Refers-To-Date: {warc_date(refers_to.fetched_at)}\r\n"
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
        return urn_uuid(self._bits(128))

    def _draw(self, n_ids: int, n_ints: int) -> tuple[list[str], list[int]]:
        """Draw ``n_ids`` record ids and ``n_ints`` 62-bit integers."""
        bits = self._bits
        return [urn_uuid(bits(128)) for _ in range(n_ids)], [bits(62) for _ in range(n_ints)]

    def _warcinfo_fields(self, warcinfo: Mapping[str, str]) -> dict[str, str]:
        """CC's default warcinfo fields, overridden and extended by the caller's."""
        octets = [self._bits(8), self._bits(8)]
        fields = {
            "isPartOf": self._crawl,
            "publisher": "Common Crawl",
            "description": crawl_description(self._crawl),
            "operator": "Common Crawl Admin (info@commoncrawl.org)",
            "hostname": f"ip-10-67-{octets[0]}-{octets[1]}.ec2.internal",
            "software": f"Apache Nutch {nutch_version(self._crawl)} "
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
            warc_date(date),
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
        host, netloc, target = split_url(capture.url)
        ip = host_profile(host)[0]
        lines = [
            f"GET {target} HTTP/1.1",
            f"User-Agent: {_USER_AGENT}",
            f"Accept: {_ACCEPT}",
            "Accept-Language: en-US,en;q=0.5",
        ]
        if rand % 100 < 15:  # a re-fetch: CC sends the last modification time it knows
            days = 7 + (rand >> 8) % 300
            seconds = (rand >> 20) % 86400
            known = utc(capture.fetched_at) - dt.timedelta(days=days, seconds=seconds)
            lines.append(f"If-Modified-Since: {http_date(known)}")
        lines += ["Accept-Encoding: br,gzip", f"Host: {netloc}", "Connection: Keep-Alive"]
        return host, ip, (_CRLF.join(lines) + "\r\n\r\n").encode()

    @staticmethod
    def _response_head(capture: Capture, host: str, payload_len: int, rand: int) -> str:
        """HTTP status line and headers of a response, ending in the blank line."""
        _, server, powered_by = host_profile(host)
        mime = capture.content_type
        content_type = mime
        if capture.charset is not None and is_textual(mime):
            content_type = f"{mime}; charset={capture.charset}"
        lines = [
            f"HTTP/1.1 {capture.status} {reason(capture.status)}",
            f"Server: {server}",
            f"Date: {http_date(capture.fetched_at)}",
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
                modified = utc(capture.fetched_at) - dt.timedelta(
                    seconds=3600 + (rand >> 4) % (400 * 86400)
                )
                lines.append(f"Last-Modified: {http_date(modified)}")
            if is_textual(mime):
                lines.append("Vary: Accept-Encoding")
            if (rand >> 40) % 4 == 0:
                lines.append(f"Cache-Control: max-age={60 * (1 + (rand >> 44) % 60)}")
        elif capture.status >= 500:
            lines.append("Retry-After: 120")
        if powered_by is not None and is_textual(mime):
            lines.append(f"X-Powered-By: {powered_by}")
        if not capture.chunked and is_textual(mime) and payload_len > 1024 and rand % 2:
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
        charset = detect_charset(capture)
        if charset is not None:
            lines.append(f"charset-detected: {charset}")
        if capture.languages_cld2:
            # CLD2 sees the visible text only: about 15-45 % of an HTML page's bytes.
            share = 15 + (rand_lang >> 32) % 31
            text_bytes = max(1, len(capture.body) * share // 100)
            lines.append(
                "languages-cld2: " + cld2_json(capture.languages_cld2, text_bytes, rand_lang)
            )
        # CC's warc-fields block ends in an empty line (CRLF CRLF), as in the real files.
        return (_CRLF.join(lines) + "\r\n\r\n").encode()
