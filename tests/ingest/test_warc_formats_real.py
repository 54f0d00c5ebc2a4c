"""The reader on the real public test files of other WARC readers, value by value.

The files are in ``tests/fixtures/real/warc-readers/`` (``SOURCES.md`` there cites each one):
jwarc's Common Crawl CC-MAIN-2019-51 record, warcio's ``example-wrong-chunks`` and ARC example,
webarchive-commons' Heritrix ARC file, resiliparse's LZ4 WARC. Common Crawl records written
the way crawls before CC-MAIN-2018-34 wrote them (``Content-Encoding``/``Transfer-Encoding``
kept while the payload is stored decoded) are built here, at test time, from real records
(the jwarc record, the whirlwind CC-MAIN-2024-22 record, the resiliparse CC-MAIN-2020-34
excerpt): their ``X-Crawler-`` headers renamed back.
"""

from __future__ import annotations

import dataclasses
import gzip
import re
import zlib
from pathlib import Path

import pytest

from ingest.documents_worker import _cld2_language, main_text
from ingest.quality import LanguageIdentifier
from ingest.warc import read_captures, read_head
from ingest.warc_items import FileHead, Page, Rejection
from tests.fixtures.crawls import REAL_DATA

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real"
READERS = FIXTURES / "warc-readers"
OLD_STYLE = ("transfer_encoding_not_applied", "content_encoding_not_applied")


def _members(data: bytes) -> list[bytes]:
    """The inflated text of each gzip member."""
    texts = []
    while data:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        texts.append(inflater.decompress(data))
        data = inflater.unused_data
    return texts


def _old_style(record: bytes) -> bytes:
    """A response record with its HTTP ``X-Crawler-`` coding headers named as servers sent them
    (as Common Crawl kept them before CC-MAIN-2018-34), its WARC Content-Length set again."""
    head, _, rest = record.partition(b"\r\n\r\n")
    http_head, separator, body = rest.partition(b"\r\n\r\n")
    if not separator or not http_head.startswith(b"HTTP/"):
        return record
    http_head = re.sub(
        rb"(?im)^X-Crawler-(content-encoding|transfer-encoding):", rb"\1:", http_head
    )
    block = http_head + separator + body
    block = block[:-4] if block.endswith(b"\r\n\r\n") else block
    head = re.sub(rb"Content-Length: \d+", b"Content-Length: %d" % len(block), head)
    return head + b"\r\n\r\n" + block + b"\r\n\r\n"


def _old_style_file(path: Path, out: Path) -> Path:
    out.write_bytes(
        b"".join(gzip.compress(_old_style(text)) for text in _members(path.read_bytes()))
    )
    return out


def _words(page: Page, count: int = 8) -> str:
    return " ".join(main_text(page).split()[:count])


# ----------------------------------------------------------------------- jwarc's CC record


def test_jwarc_common_crawl_record_values():
    (page,) = read_captures(READERS / "cc.warc.gz")
    assert page.record_id == "<urn:uuid:ececb7b0-ed4d-4d27-9ae8-2676df51cf7d>"
    assert page.url == "http://commoncrawl.org/"
    assert page.fetched_at.isoformat() == "2019-12-10T10:00:01+00:00"
    assert page.payload_digest == "sha1:CIBK2YFSVPNDFLXUHSKZG2SPN7UNN65W"
    assert page.http_charset == "utf-8"
    assert page.nulled == ()
    assert page.payload.startswith(b"\n<!DOCTYPE html>")
    assert _words(page) == "Us We build and maintain an open repository"
    ((language, _),) = LanguageIdentifier().identify([main_text(page)])
    assert language == "en"


def test_jwarc_record_with_old_style_headers_is_read_as_stored(tmp_path: Path):
    # Was 1 read, 0 written (undecodable_payload): the header said gzip + chunked, the bytes
    # are the decoded page.
    (original,) = read_captures(READERS / "cc.warc.gz")
    path = _old_style_file(READERS / "cc.warc.gz", tmp_path / "old.warc.gz")
    assert b"\r\nContent-Encoding: gzip\r\n" in gzip.decompress(path.read_bytes())
    (page,) = read_captures(path)
    assert page == dataclasses.replace(original, nulled=OLD_STYLE)


def test_whirlwind_record_with_old_style_headers_is_read_as_stored(tmp_path: Path):
    source = FIXTURES / "whirlwind" / "whirlwind.warc.gz"
    (original,) = read_captures(source)
    (page,) = read_captures(_old_style_file(source, tmp_path / "old.warc.gz"))
    assert page.url == "https://an.wikipedia.org/wiki/Escopete"
    assert page == dataclasses.replace(original, nulled=OLD_STYLE, offset=page.offset)
    assert _words(page, 3) == _words(original, 3)
    assert _cld2_language(page.languages_cld2)[0] == "es"


def test_every_page_of_the_cc_excerpt_survives_old_style_headers(tmp_path: Path):
    source = REAL_DATA / "resiliparse-cc" / "warcfile.warc.gz"
    originals = list(read_captures(source))
    renamed = {}  # record id -> the codings its server sent (X-Crawler- headers)
    for text in _members(source.read_bytes()):
        if b"WARC-Type: response" in text:
            record_id = re.search(rb"WARC-Record-ID: (\S+)", text).group(1).decode()
            http_head = text.partition(b"\r\n\r\n")[2].partition(b"\r\n\r\n")[0]
            renamed[record_id] = {
                name.lower() for name in re.findall(rb"(?im)^X-Crawler-(\S+)-Encoding:", http_head)
            }
    pages = list(read_captures(_old_style_file(source, tmp_path / "old.warc.gz")))
    assert len(pages) == len(originals) == 16
    for page, original in zip(pages, originals, strict=True):
        sent = renamed[page.record_id]
        notes = tuple(
            note
            for note, name in zip(OLD_STYLE, (b"transfer", b"content"), strict=True)
            if name in sent
        )
        assert page == dataclasses.replace(original, nulled=notes, offset=page.offset)
    assert sum(bool(page.nulled) for page in pages) == 14  # servers that sent a coding
    assert sum(b"content" in names for names in renamed.values()) == 12
    assert sum(b"transfer" in names for names in renamed.values()) == 7


# ----------------------------------------------------------------------- warcio's wrong chunks


def test_warcio_wrong_chunks_states_the_true_difference():
    # The block is 1,614 bytes, Content-Length says 1,613: it understates the block by one
    # byte (the page's last newline), which was reported as "overstates the block by 3". One
    # stray byte is within the slack tolerated, so the page is kept, and says so.
    (page,) = read_captures(READERS / "example-wrong-chunks.warc.gz")
    body = gzip.decompress((READERS / "example-wrong-chunks.warc.gz").read_bytes())
    block_start = body.index(b"\r\n\r\n") + 4
    true_block = body[block_start : body.index(b"\r\n\r\nWARC/1.0", block_start)]
    assert len(true_block) == 1614 and b"Content-Length: 1613\r\n" in body[:block_start]
    assert page.record_id == "<urn:uuid:80d63307-60af-43e0-903f-574b2f432b7e>"
    assert page.url == "http://example.com/"
    assert page.nulled == ("content_length_understated",)
    assert page.payload == true_block.partition(b"\r\n\r\n")[2][:-1]
    assert page.payload.endswith(b"</html>\n")
    assert _words(page, 2) == "Example Domain"


def test_an_overstated_content_length_still_names_the_true_overstatement(tmp_path: Path):
    texts = _members((READERS / "cc.warc.gz").read_bytes())
    record = texts[0]
    length = int(re.search(rb"Content-Length: (\d+)", record).group(1))
    data = gzip.compress(
        record.replace(b"Content-Length: %d" % length, b"Content-Length: %d" % (length + 3), 1)
    ) + gzip.compress(record)
    path = tmp_path / "over.warc.gz"
    path.write_bytes(data)
    first, second = read_captures(path)
    assert isinstance(first, Rejection) and first.reason == "bad_content_length"
    assert "overstates the block by 3 bytes" in first.detail
    assert isinstance(second, Page) and second.url == "http://commoncrawl.org/"


# ----------------------------------------------------------------------- ARC files


def test_warcio_arc_example_is_read_as_a_response():
    path = READERS / "example.arc.gz"
    assert read_head(path) == FileHead("arc", None)
    (page,) = read_captures(path)
    assert page.url == "http://example.com/"
    assert page.offset == 171  # the record's gzip member (the version block is the first)
    assert page.fetched_at.isoformat() == "2014-02-16T05:02:21+00:00"
    assert page.payload_digest is None
    # No record id in ARC: the SHA-1 of the header line and block, base32, as an urn.
    assert page.record_id == "<urn:sha1:3NHQFUVQANHJECKCLZKH5O3KBJAXZTXD>"
    assert len(page.payload) == 1270 and page.payload.startswith(b"<!doctype html>")
    assert _words(page, 2) == "Example Domain"


def test_the_same_arc_record_uncompressed_has_the_same_id(tmp_path: Path):
    plain = tmp_path / "example.arc"
    plain.write_bytes(gzip.decompress((READERS / "example.arc.gz").read_bytes()))
    (page,) = read_captures(plain)
    (gzipped,) = read_captures(READERS / "example.arc.gz")
    assert page == dataclasses.replace(gzipped, offset=page.offset)


def test_heritrix_arc_file_every_record_read():
    path = READERS / "IAH-20080430204825-00000-blackbook-truncated.arc"
    assert read_head(path) == FileHead("arc", None)
    items = list(read_captures(path))
    summary = [(item.offset, item.url if isinstance(item, Page) else item.reason) for item in items]
    assert summary == [
        (1399, "bad_target_uri"),  # dns:www.archive.org
        (1515, "non_html"),  # robots.txt
        (2376, "http://www.archive.org/"),
        (3124, "http://www.archive.org/index.php"),
        (32203, "non_html"),  # image/jpeg
        (34252, "non_html"),  # image/gif
        (35773, "non_html"),  # image/png
        (36420, "non_html"),  # text/xml (an RSS feed)
    ]
    index = items[3]
    assert index.fetched_at.isoformat() == "2008-04-30T20:48:26+00:00"
    assert index.record_id == "<urn:sha1:UXMBMJMMKHIWHKLOFNBX3MR2NEQRD6AQ>"
    assert _words(index, 6) == "(logo) Web | Moving Images |"
    assert "Please visit our website at: http://www.archive.org" in main_text(items[2])
    ((language, _),) = LanguageIdentifier().identify([main_text(index)])
    assert language == "en"


def test_a_cut_arc_file_keeps_what_precedes_the_cut(tmp_path: Path):
    data = (READERS / "IAH-20080430204825-00000-blackbook-truncated.arc").read_bytes()
    path = tmp_path / "cut.arc"
    path.write_bytes(data[:20000])  # inside index.php's record
    items = list(read_captures(path))
    assert [getattr(item, "url", None) for item in items[:3]] == [
        None,
        None,
        "http://www.archive.org/",
    ]
    assert isinstance(items[3], Rejection) and items[3].reason == "truncated_record"
    assert items[3].offset == 3124 and len(items) == 4


def test_a_damaged_arc_header_is_one_rejection_and_reading_resumes(tmp_path: Path):
    data = (READERS / "IAH-20080430204825-00000-blackbook-truncated.arc").read_bytes()
    line = b"http://www.archive.org/ 207.241.229.39 20080430204826 text/html 680"
    bad = data.replace(line, line.replace(b"20080430204826", b"2008-04-30"))
    path = tmp_path / "bad.arc"
    path.write_bytes(bad)
    items = list(read_captures(path))
    reasons = [(item.offset, getattr(item, "reason", "page")) for item in items]
    assert reasons[:4] == [
        (1399, "bad_target_uri"),
        (1515, "non_html"),
        (2376, "malformed_record"),  # the record whose header line is bad, alone
        (3120, "page"),  # the next record, 4 bytes earlier than in the intact file
    ]
    assert "no ARC header line at byte 2376" in items[2].detail
    assert [item.url for item in items if isinstance(item, Page)] == [
        "http://www.archive.org/index.php"
    ]


# ----------------------------------------------------------------------- LZ4


def test_resiliparse_lz4_warc_reads_as_its_gzip_twin():
    lz4_items = list(read_captures(READERS / "warcfile.warc.lz4"))
    gzip_items = list(read_captures(REAL_DATA / "resiliparse-cc" / "warcfile.warc.gz"))
    assert read_head(READERS / "warcfile.warc.lz4") == FileHead("warc", "CC-MAIN-2020-34")
    assert len(lz4_items) == 16
    for ours, theirs in zip(lz4_items, gzip_items, strict=True):
        assert ours == dataclasses.replace(theirs, offset=ours.offset)
    assert lz4_items[0].url == "http://003338.cn/l41/481397.html"
    assert lz4_items[0].record_id == "<urn:uuid:c4c112a5-3503-4483-abf8-51a0dd86dd53>"


def test_a_corrupt_lz4_frame_is_skipped_and_reading_resumes(tmp_path: Path):
    data = bytearray((READERS / "warcfile.warc.lz4").read_bytes())
    pages = list(read_captures(READERS / "warcfile.warc.lz4"))
    hit = pages[3].offset + 200  # inside the fourth page's frame
    data[hit] ^= 0x55
    path = tmp_path / "corrupt.warc.lz4"
    path.write_bytes(bytes(data))
    items = list(read_captures(path))
    rejections = [item for item in items if isinstance(item, Rejection)]
    assert [(r.offset, r.reason) for r in rejections] == [(pages[3].offset, "corrupt_member")]
    assert "LZ4 frame" in rejections[0].detail
    assert [item.record_id for item in items if isinstance(item, Page)] == [
        page.record_id for page in pages if page is not pages[3]
    ]


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (b"\x28\xb5\x2f\xfd" + bytes(64), "Zstandard"),
        (b"BZh91AY&SY" + bytes(64), "bzip2"),
        (b"just some text\n" * 10, "no WARC record or ARC version block"),
    ],
)
def test_a_file_in_no_format_read_is_refused_naming_it(tmp_path: Path, data: bytes, named: str):
    from ingest.warc import unreadable_format

    path = tmp_path / "file.warc"
    path.write_bytes(data)
    assert read_head(path) == FileHead("not_warc", None)
    assert unreadable_format(path).startswith("not a WARC or WET file, nor an ARC file")
    assert named in unreadable_format(path)
