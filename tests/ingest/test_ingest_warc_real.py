"""The WARC reader on real Common Crawl and Webrecorder files (../shared/data/real)."""

from __future__ import annotations

from collections import Counter

import pytest

from ingest.hosts import surt_host_name
from ingest.warc import read_captures, read_head
from ingest.warc_items import FileHead, Page, Rejection
from tests.fixtures.crawls import REAL_DATA

CC_HOSTS = {
    "003338.cn",
    "01spb.ru",
    "035.psb556.com",
    "037426.cn",
    "041696.com",
    "044545.com",
    "0513mt.com",
    "05925.net",
    "06.live-radsport.ch",
    "0615235.com",
    "0755krk.com",
    "0760.jxtdw.com",
    "077678u.info",
    "0900-hovenier.nl",
    "096355.com",
}


def test_common_crawl_excerpt_pages_hosts_and_languages():
    items = list(read_captures(REAL_DATA / "resiliparse-cc" / "warcfile.warc.gz"))
    pages = [item for item in items if isinstance(item, Page)]
    assert len(pages) == len(items) == 16
    hosts = Counter(surt_host_name(page.url) for page in pages)
    assert set(hosts) == {surt_host_name(host) for host in CC_HOSTS}
    assert hosts[surt_host_name("06.live-radsport.ch")] == 2
    assert len({page.record_id for page in pages}) == 16
    assert all(page.record_id.startswith("<urn:uuid:") for page in pages)
    main = Counter(page.languages_cld2[0][0] for page in pages if page.languages_cld2)
    assert main == {"zh": 11, "de": 2, "ru": 1, "en": 1, "nl": 1}
    any_language = Counter(code for page in pages for code, _ in page.languages_cld2)
    assert any_language["zh"] == 12 and any_language["en"] == 4 and any_language["ja"] == 2
    assert all(page.fetched_at is not None and page.fetched_at.year == 2020 for page in pages)
    assert all(page.payload_digest.startswith("sha1:") for page in pages)


def test_offsets_point_at_the_response_records():
    path = REAL_DATA / "resiliparse-cc" / "warcfile.warc.gz"
    from fastwarc.warc import ArchiveIterator

    pages = [item for item in read_captures(path) if isinstance(item, Page)]
    with path.open("rb") as handle:
        for page in pages[:5]:
            handle.seek(page.offset)
            record = next(iter(ArchiveIterator(handle, parse_http=False)))
            assert record.headers.get("WARC-Record-ID") == page.record_id
            assert record.headers.get("WARC-Type") == "response"


@pytest.mark.parametrize(
    ("name", "head"),
    [
        ("resiliparse-cc/warcfile.warc.gz", FileHead("warc", "CC-MAIN-2020-34")),
        ("resiliparse-cc/clipped.warc.gz", FileHead("warc", None)),  # no warcinfo record
        # Webrecorder names its collection in isPartOf (URL-encoded, kept as written).
        ("warcio-examples/example.warc.gz", FileHead("warc", "Temporary%20Collection")),
        ("warcio-examples/example-iana.org-chunked.warc", FileHead("warc", None)),
    ],
)
def test_the_head_names_the_kind_and_the_warcinfo_crawl(name: str, head: FileHead):
    assert read_head(REAL_DATA / name) == head


def test_truncated_file_reports_where_it_broke():
    # The file ends inside its only record's block: a counted rejection naming the record, the
    # bytes read and the Content-Length (nothing follows it, so no Break).
    (item,) = read_captures(REAL_DATA / "resiliparse-cc" / "clipped.warc.gz")
    assert item == Rejection(
        "<urn:uuid:f3dfa8fa-f031-4a38-90cc-1dcee3d07bb5>",
        0,
        "truncated_record",
        1,
        "the file ends inside the record at byte 0 (response record): 75207 of 88275 block bytes",
    )


def test_revisit_is_rejected_and_the_response_kept():
    items = list(read_captures(REAL_DATA / "warcio-examples" / "example.warc.gz"))
    pages = [item for item in items if isinstance(item, Page)]
    rejections = [item for item in items if isinstance(item, Rejection)]
    assert [page.url for page in pages] == ["http://example.com/"]
    assert [rejection.reason for rejection in rejections] == ["revisit"]
    assert b"Example Domain" in pages[0].payload


def test_chunked_transfer_encoding_is_decoded():
    items = list(read_captures(REAL_DATA / "warcio-examples" / "example-iana.org-chunked.warc"))
    (page,) = items
    assert isinstance(page, Page)
    assert page.url == "http://www.iana.org/"
    assert page.payload.startswith(b"<!doctype html>")
    assert page.payload.rstrip().endswith(b"</html>")
    assert b"\r\n0\r\n" not in page.payload[-20:]


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        (b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n<html></html>", "non_200"),
        (b"HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4", "non_html"),
        (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n   ", "empty_payload"),
        (b"garbage without headers", "malformed_http"),
        (
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"1a\r\nabc",  # a chunk line for 26 bytes, 3 follow: chunked, and broken
            "undecodable_payload",
        ),
    ],
)
def test_responses_that_are_not_pages_are_rejected_with_a_reason(block: bytes, reason: str):
    from ingest.warc import _response

    result = _response("<urn:uuid:x>", "http://a.example/", 0, None, None, block)
    assert isinstance(result, Rejection)
    assert result.reason == reason
