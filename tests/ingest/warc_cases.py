"""The base of the WARC robustness tests: a real Common Crawl WARC excerpt, split into members.

The base is a real Common Crawl WARC excerpt, read here and never modified on disk:
``../shared/data/real/resiliparse-cc/warcfile.warc.gz`` (chatnoir-eu/chatnoir-resiliparse @
70459f0399718955d7dff1dec30781e07af1bbb7, ``tests/data/warcfile.warc.gz``, sha256 5cb22a7ab6d90664…,
Apache-2.0; see ``../shared/data/real/SOURCES.md``): 50 records, one per gzip member (warcinfo,
then request, response, metadata for 16 pages and one request without a response).
Every mutated file is built from its bytes in ``tmp_path``.
"""

from __future__ import annotations

import dataclasses
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from ingest.warc import read_captures
from ingest.warc_items import Page
from tests.fixtures.crawls import REAL_DATA

CC_WARC = REAL_DATA / "resiliparse-cc" / "warcfile.warc.gz"


@dataclass(frozen=True)
class Member:
    """One gzip member of the real file: where it is and the record it holds."""

    offset: int
    end: int
    text: bytes  # the inflated record

    @property
    def header_length(self) -> int:
        return self.text.index(b"\r\n\r\n") + 4

    @property
    def content_length(self) -> int:
        return int(re.search(rb"Content-Length: (\d+)", self.text).group(1))

    @property
    def kind(self) -> str:
        return re.search(rb"WARC-Type: (\S+)", self.text).group(1).decode()

    @property
    def record_id(self) -> str:
        return re.search(rb"WARC-Record-ID: (\S+)", self.text).group(1).decode()


def _split_members(data: bytes) -> list[Member]:
    members = []
    position = 0
    while position < len(data):
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        text = inflater.decompress(data[position:])
        assert inflater.eof
        end = len(data) - len(inflater.unused_data)
        members.append(Member(position, end, text))
        position = end
    return members


DATA = CC_WARC.read_bytes()
MEMBERS = _split_members(DATA)
BASELINE = list(read_captures(CC_WARC))
PAGE_MEMBER = {page.record_id: i for i, m in enumerate(MEMBERS) for page in BASELINE
               if m.kind == "response" and m.offset == page.offset}  # fmt: skip
METADATA_MEMBER = {
    re.search(rb"WARC-Concurrent-To: (\S+)", m.text).group(1).decode(): i
    for i, m in enumerate(MEMBERS)
    if m.kind == "metadata"
}


def _write(tmp_path: Path, data: bytes, name: str = "case.warc.gz") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _pages_without(lost: int) -> list[Page]:
    """The intact file's pages as they come out when member ``lost`` is unreadable."""
    pages = []
    for page in BASELINE:
        if PAGE_MEMBER[page.record_id] == lost:
            continue
        if METADATA_MEMBER[page.record_id] == lost:  # the page stays, without its languages
            page = dataclasses.replace(page, languages_cld2=None)
        pages.append(page)
    return pages


def _pages_before(cut: int) -> list[Page]:
    """The intact file's pages as they come out when the file ends in or before member ``cut``."""
    return [page for page in _pages_without(cut) if PAGE_MEMBER[page.record_id] < cut]


def _flip(data: bytes, position: int) -> bytes:
    return data[:position] + bytes([data[position] ^ 0x55]) + data[position + 1 :]
