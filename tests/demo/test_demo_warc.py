"""Tests of the Common Crawl-style WARC writer (``demo.warcgen``, ``demo.warc_fields``): a file of
captures in every shape the demo writes, read back with warcio and FastWARC."""

from __future__ import annotations

import datetime as dt
import json
import re
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from fastwarc.warc import ArchiveIterator as FastIterator
from fastwarc.warc import WarcRecordType
from resiliparse.parse.encoding import detect_encoding
from warcio.archiveiterator import ArchiveIterator as WarcioIterator

from demo.warc_fields import REVISIT_PROFILE, Capture, sha1_b32
from demo.warcgen import WarcFileWriter

CRAWL = "CC-MAIN-2024-10"
FILE_NAME = "CC-MAIN-20240223133422-20240223163422-00007.warc.gz"
T0 = dt.datetime(2024, 2, 23, 14, 0, 0, tzinfo=dt.UTC)


def _rid(n: int) -> str:
    return f"<urn:uuid:00000000-0000-4000-8000-{n:012d}>"


def _build(directory: Path, make_page: Callable[..., tuple[str, list[str], str]]) -> dict:
    """Write the test file; returns captures, paragraphs and offsets."""
    rng = np.random.default_rng(2024)
    captures: dict[str, Capture] = {}
    paragraphs: dict[str, list[str]] = {}
    _, paras, html = make_page(rng, "en", "www.garden-news.com")
    captures["utf8"] = Capture(
        url="https://www.garden-news.com/news/river-morning.html",
        fetched_at=T0,
        record_id=_rid(1),
        body=html.encode("utf-8"),
        languages_cld2=[("en", 96.0), ("fr", 3.0)],
    )
    paragraphs["utf8"] = paras
    _, paras, html = make_page(rng, "de", "blog.stadtgarten.de", n=12)
    captures["chunked"] = Capture(
        url="http://blog.stadtgarten.de/2024/02/fluss",
        fetched_at=T0 + dt.timedelta(seconds=7),
        record_id=_rid(2),
        body=html.encode("utf-8"),
        languages_cld2=[("de", 98.0)],
        chunked=True,
    )
    paragraphs["chunked"] = paras
    _, paras, html = make_page(rng, "ru", "gorod-sad.ru", charset="windows-1251")
    captures["cp1251"] = Capture(
        url="http://gorod-sad.ru/novosti/",
        fetched_at=T0 + dt.timedelta(seconds=31),
        record_id=_rid(3),
        charset="windows-1251",
        body=html.encode("windows-1251"),
        languages_cld2=[("ru", 99.0)],
    )
    paragraphs["cp1251"] = paras
    _, paras, html = make_page(rng, "ja", "www.niwa-eki.jp", charset="shift_jis")
    captures["sjis_meta"] = Capture(
        url="https://www.niwa-eki.jp/blog/entry-12.html",
        fetched_at=T0 + dt.timedelta(minutes=2),
        record_id=_rid(4),
        charset=None,  # only the <meta> tag names the charset
        body=html.encode("shift_jis"),
        languages_cld2=[("ja", 97.0), ("en", 2.0)],
    )
    paragraphs["sjis_meta"] = paras
    _, paras, html = make_page(rng, "ru", "les-i-reka.ru", declare=False)
    captures["undeclared"] = Capture(
        url="http://les-i-reka.ru/stati/1",
        fetched_at=T0 + dt.timedelta(minutes=3),
        record_id=_rid(5),
        charset=None,  # neither HTTP nor HTML declares it: readers must sniff
        body=html.encode("windows-1251"),
        languages_cld2=[("ru", 95.0)],
    )
    paragraphs["undeclared"] = paras
    captures["404"] = Capture(
        url="https://www.garden-news.com/missing",
        fetched_at=T0 + dt.timedelta(minutes=4),
        record_id=_rid(6),
        status=404,
        body=b"<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body>"
        b"</html>\n",
    )
    captures["301"] = Capture(
        url="http://garden-news.com/",
        fetched_at=T0 + dt.timedelta(minutes=5),
        record_id=_rid(7),
        status=301,
        location="https://www.garden-news.com/",
    )
    captures["500"] = Capture(
        url="https://shop.example.org/cart",
        fetched_at=T0 + dt.timedelta(minutes=6),
        record_id=_rid(8),
        status=500,
        content_type="text/plain",
        body=b"Internal Server Error\n",
    )
    pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n" + rng.bytes(3000) + b"\n%%EOF\n"
    captures["pdf"] = Capture(
        url="https://www.garden-news.com/files/report.pdf",
        fetched_at=T0 + dt.timedelta(minutes=7),
        record_id=_rid(9),
        content_type="application/pdf",  # charset left at its default: must not be sent
        body=pdf,
    )
    captures["jpeg"] = Capture(
        url="https://www.garden-news.com/img/river.jpg",
        fetched_at=T0 + dt.timedelta(minutes=8),
        record_id=_rid(10),
        content_type="image/jpeg",
        charset=None,
        body=b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + rng.bytes(2000) + b"\xff\xd9",
    )
    captures["plain"] = Capture(
        url="https://www.garden-news.com/robots-notes.txt",
        fetched_at=T0 + dt.timedelta(minutes=9),
        record_id=_rid(11),
        content_type="text/plain",
        body=b"Plain text file.\nSecond line.\n",
        chunked=True,
    )
    revisit = Capture(
        url="https://www.garden-news.com/news/river-morning.html?utm_source=feed",
        fetched_at=T0 + dt.timedelta(hours=1),
        record_id=_rid(12),
    )
    path = directory / FILE_NAME
    offsets: dict[str, int] = {}
    with WarcFileWriter(
        path, warcinfo={"operator": "hostaware demo"}, rng=np.random.default_rng(7), crawl=CRAWL
    ) as writer:
        for key, capture in captures.items():
            offsets[key] = writer.write_capture(capture)
        offsets["revisit"] = writer.write_revisit(revisit, captures["utf8"])
        counts = dict(writer.record_counts)
        warcinfo_id = writer.warcinfo_id
    return {
        "path": path,
        "captures": captures,
        "revisit": revisit,
        "paragraphs": paragraphs,
        "offsets": offsets,
        "counts": counts,
        "warcinfo_id": warcinfo_id,
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, make_page) -> dict:
    return _build(tmp_path_factory.mktemp("warc"), make_page)


def _gzip_members(data: bytes) -> int:
    count, pos = 0, 0
    while pos < len(data):
        d = zlib.decompressobj(31)
        d.decompress(data[pos:])
        assert d.eof, "truncated gzip member"
        pos = len(data) - len(d.unused_data)
        count += 1
    return count


def _warcio_records(path: Path) -> list[dict]:
    records = []
    with path.open("rb") as fh:
        for rec in WarcioIterator(fh, check_digests="raise"):
            body = rec.content_stream().read()  # reading to the end runs the digest checks
            records.append(
                {
                    "type": rec.rec_type,
                    "id": rec.rec_headers.get_header("WARC-Record-ID"),
                    "uri": rec.rec_headers.get_header("WARC-Target-URI"),
                    "status": rec.http_headers.get_statuscode() if rec.http_headers else None,
                    "http": rec.http_headers,
                    "headers": rec.rec_headers,
                    "body": body,
                    "passed": rec.digest_checker.passed,
                    "problems": list(rec.digest_checker.problems),
                }
            )
    return records


def test_record_counts_and_gzip_members(built: dict) -> None:
    n_captures = len(built["captures"])
    expected = {
        "warcinfo": 1,
        "request": n_captures + 1,
        "response": n_captures,
        "metadata": n_captures,
        "revisit": 1,
    }
    assert built["counts"] == expected
    records = _warcio_records(built["path"])
    assert Counter(r["type"] for r in records) == expected
    assert _gzip_members(built["path"].read_bytes()) == len(records) == sum(expected.values())
    assert records[0]["type"] == "warcinfo"
    with built["path"].open("rb") as fh:
        first = fh.read(10)
    assert first[:4] == b"\x1f\x8b\x08\x00" and first[4:8] == b"\x00\x00\x00\x00"  # mtime 0


def test_warcio_digests_ids_uris_status(built: dict) -> None:
    records = _warcio_records(built["path"])
    for rec in records:
        assert rec["problems"] == [], rec["id"]
        assert rec["headers"].protocol == "WARC/1.0"
    responses = [r for r in records if r["type"] == "response"]
    assert all(r["passed"] is True for r in responses)
    by_id = {r["id"]: r for r in records}
    for capture in built["captures"].values():
        rec = by_id[capture.record_id]
        assert rec["type"] == "response"
        assert rec["uri"] == capture.url
        assert rec["status"] == str(capture.status)
        assert rec["headers"].get_header("WARC-Payload-Digest").startswith("sha1:")
        # warcio removes the chunked transfer coding: the decoded body is the payload.
        assert rec["body"] == capture.body
    caps = built["captures"]
    assert by_id[caps["301"].record_id]["http"].get_header("Location") == caps["301"].location
    assert by_id[caps["pdf"].record_id]["http"].get_header("Content-Type") == "application/pdf"
    assert (
        by_id[caps["cp1251"].record_id]["http"].get_header("Content-Type")
        == "text/html; charset=windows-1251"
    )
    assert by_id[caps["sjis_meta"].record_id]["http"].get_header("Content-Type") == "text/html"
    assert by_id[caps["chunked"].record_id]["http"].get_header("Transfer-Encoding") == "chunked"
    assert by_id[caps["chunked"].record_id]["http"].get_header("Content-Length") is None
    info = records[0]
    assert info["id"] == built["warcinfo_id"]
    assert info["headers"].get_header("WARC-Filename") == FILE_NAME
    fields = dict(
        line.split(": ", 1) for line in info["body"].decode("utf-8").split("\r\n") if line
    )
    assert fields["isPartOf"] == CRAWL
    assert fields["operator"] == "hostaware demo"
    assert list(fields)[:3] == ["isPartOf", "publisher", "description"]
    assert fields["format"] == "WARC File Format 1.1"
    for rec in records[1:]:
        assert rec["headers"].get_header("WARC-Warcinfo-ID") == built["warcinfo_id"]


def test_request_response_metadata_linking(built: dict) -> None:
    records = _warcio_records(built["path"])
    for i, rec in enumerate(records):
        if rec["type"] != "response":
            continue
        request, metadata = records[i - 1], records[i + 1]
        assert request["type"] == "request" and metadata["type"] == "metadata"
        assert rec["headers"].get_header("WARC-Concurrent-To") == request["id"]
        assert metadata["headers"].get_header("WARC-Concurrent-To") == rec["id"]
        assert request["uri"] == metadata["uri"] == rec["uri"]
        assert request["headers"].get_header("WARC-Date") == rec["headers"].get_header("WARC-Date")
        assert request["body"].startswith(b"GET ") or request["http"].protocol.startswith("GET")
    ids = [r["id"] for r in records]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"<urn:uuid:[0-9a-f-]{36}>", i) for i in ids)


def test_fastwarc_reads_and_verifies(built: dict) -> None:
    types: Counter[str] = Counter()
    with built["path"].open("rb") as fh:
        for rec in FastIterator(fh, parse_http=False):
            types[str(rec.record_type)] += 1
            has_block = "WARC-Block-Digest" in rec.headers
            if rec.record_type in (WarcRecordType.response, WarcRecordType.revisit):
                assert has_block
            if has_block:
                assert rec.verify_block_digest(consume=False), rec.record_id
            if rec.is_http:
                rec.parse_http()
            if rec.record_type == WarcRecordType.response:
                assert rec.verify_payload_digest(consume=False), rec.record_id
    assert types == {
        "warcinfo": 1,
        "request": len(built["captures"]) + 1,
        "response": len(built["captures"]),
        "metadata": len(built["captures"]),
        "revisit": 1,
    }


def test_fastwarc_transfer_decoding(built: dict) -> None:
    # FastWARC hands out the raw (chunked) payload unless asked to decode the transfer coding.
    chunked = built["captures"]["chunked"]
    with built["path"].open("rb") as fh:
        fh.seek(built["offsets"]["chunked"])
        raw = next(iter(FastIterator(fh, parse_http=True)))
        assert raw.reader.read() != chunked.body
        fh.seek(built["offsets"]["chunked"])
        decoded = next(iter(FastIterator(fh, parse_http=True, auto_decode="transfer")))
        assert decoded.reader.read() == chunked.body


def test_record_id_validation(tmp_path: Path) -> None:
    writer = WarcFileWriter(
        tmp_path / "x.warc.gz", warcinfo={}, rng=np.random.default_rng(0), crawl=CRAWL
    )
    with writer, pytest.raises(ValueError, match="record_id"):
        writer.write_capture(Capture(url="http://a.com/", fetched_at=T0, record_id="abc"))
    with pytest.raises(ValueError, match="closed"):
        writer.write_capture(Capture(url="http://a.com/", fetched_at=T0, record_id=_rid(1)))
    # An empty file still holds its warcinfo record.
    with (tmp_path / "x.warc.gz").open("rb") as fh:
        assert [str(r.record_type) for r in FastIterator(fh)] == ["warcinfo"]


def test_offsets_point_at_response_records(built: dict) -> None:
    targets = dict(built["captures"], revisit=built["revisit"])
    with built["path"].open("rb") as fh:
        for key, offset in built["offsets"].items():
            fh.seek(offset)
            rec = next(iter(FastIterator(fh, parse_http=True)))
            assert rec.record_id == targets[key].record_id
            expected = WarcRecordType.revisit if key == "revisit" else WarcRecordType.response
            assert rec.record_type == expected
            assert rec.http_headers.status_code == targets[key].status
            fh.seek(offset)
            rec2 = next(iter(WarcioIterator(fh)))
            assert rec2.rec_headers.get_header("WARC-Record-ID") == targets[key].record_id


def test_metadata_record(built: dict) -> None:
    records = _warcio_records(built["path"])
    by_parent = {
        r["headers"].get_header("WARC-Concurrent-To"): r for r in records if r["type"] == "metadata"
    }
    for key, capture in built["captures"].items():
        meta = by_parent[capture.record_id]
        assert meta["headers"].get_header("Content-Type") == "application/warc-fields"
        assert meta["body"].endswith(b"\r\n\r\n")  # CC's warc-fields end in an empty line
        lines = meta["body"].decode("utf-8").split("\r\n")
        assert lines[0].startswith("fetchTimeMs: ")
        fields = dict(line.split(": ", 1) for line in lines if line)
        assert int(fields["fetchTimeMs"]) > 0
        if capture.languages_cld2:
            cld2 = json.loads(fields["languages-cld2"])
            assert list(cld2) == ["reliable", "text-bytes", "languages"]
            assert cld2["reliable"] is True
            assert 0 < cld2["text-bytes"] < len(capture.body)
            got = [(lang["code"], lang["text-covered"]) for lang in cld2["languages"]]
            assert got == [(c, round(p / 100, 2)) for c, p in capture.languages_cld2]
            assert list(cld2["languages"][0]) == [
                "code",
                "code-iso-639-3",
                "text-covered",
                "score",
                "name",
            ]
            assert '"score":' in fields["languages-cld2"] and ".0," in fields["languages-cld2"]
        else:
            assert "languages-cld2" not in fields
        if key in ("pdf", "jpeg", "301"):
            assert "charset-detected" not in fields
    charsets = {
        key: dict(
            line.split(": ", 1)
            for line in by_parent[c.record_id]["body"].decode().split("\r\n")
            if line
        ).get("charset-detected")
        for key, c in built["captures"].items()
    }
    assert charsets["utf8"] == "UTF-8"
    assert charsets["cp1251"] == "windows-1251"
    assert charsets["sjis_meta"] == "Shift_JIS"
    assert charsets["undeclared"] == "windows-1251"
    assert charsets["404"] == "UTF-8" and charsets["500"] == charsets["plain"] == "UTF-8"
    names = {
        json.loads(
            dict(line.split(": ", 1) for line in r["body"].decode().split("\r\n") if line)[
                "languages-cld2"
            ]
        )["languages"][0]["name"]
        for r in by_parent.values()
        if b"languages-cld2" in r["body"]
    }
    assert {"ENGLISH", "RUSSIAN", "Japanese", "GERMAN"} <= names


def test_revisit_record(built: dict) -> None:
    records = _warcio_records(built["path"])
    revisit = next(r for r in records if r["type"] == "revisit")
    original = built["captures"]["utf8"]
    orig_rec = next(r for r in records if r["id"] == original.record_id)
    headers = revisit["headers"]
    assert revisit["id"] == built["revisit"].record_id
    assert headers.get_header("WARC-Refers-To") == original.record_id
    assert headers.get_header("WARC-Refers-To-Target-URI") == original.url
    assert headers.get_header("WARC-Refers-To-Date") == "2024-02-23T14:00:00Z"
    assert headers.get_header("WARC-Profile") == REVISIT_PROFILE
    assert (
        headers.get_header("WARC-Payload-Digest")
        == orig_rec["headers"].get_header("WARC-Payload-Digest")
        == sha1_b32(original.body)
    )
    assert headers.get_header("Content-Type") == "application/http; msgtype=response"
    assert revisit["status"] == "200" and revisit["body"] == b""
    assert revisit["http"].get_header("Content-Length") == str(len(original.body))
    bad = WarcFileWriter(
        built["path"].parent / "bad.warc.gz", warcinfo={}, rng=np.random.default_rng(1), crawl=CRAWL
    )
    with bad, pytest.raises(ValueError, match="identical"):
        bad.write_revisit(
            Capture(url=original.url, fetched_at=T0, record_id=_rid(99), body=b"other"), original
        )


def _charset_of(http_content_type: str | None, body: bytes) -> str | None:
    if http_content_type and "charset=" in http_content_type:
        return http_content_type.split("charset=", 1)[1].strip()
    found = re.search(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_-]+)""", body[:2048], re.I)
    return found.group(1).decode() if found else None


def test_non_utf8_text_round_trips(built: dict) -> None:
    records = {r["id"]: r for r in _warcio_records(built["path"])}
    for key, expected in (
        ("cp1251", "windows-1251"),
        ("sjis_meta", "shift_jis"),
        ("undeclared", None),
    ):
        capture = built["captures"][key]
        rec = records[capture.record_id]
        assert rec["body"] == capture.body
        charset = _charset_of(rec["http"].get_header("Content-Type"), rec["body"])
        assert charset == expected
        if charset is None:
            charset = detect_encoding(rec["body"])  # sniffing, as a reader must
        text = rec["body"].decode(charset)
        for para in built["paragraphs"][key]:
            assert para in text
    with pytest.raises(UnicodeDecodeError):
        built["captures"]["undeclared"].body.decode("utf-8")


REAL_CC = Path("/work/shared/data/real/resiliparse-cc/warcfile.warc.gz")


def _header_layout(path: Path) -> dict[str, tuple[str, ...]]:
    layout: dict[str, tuple[str, ...]] = {}
    with path.open("rb") as fh:
        for rec in WarcioIterator(fh):
            names = tuple(name for name, _ in rec.rec_headers.headers)
            layout.setdefault(rec.rec_type, names)
    return layout


@pytest.mark.skipif(not REAL_CC.exists(), reason="real Common Crawl excerpt not available")
def test_header_layout_matches_real_common_crawl(built: dict) -> None:
    real = _header_layout(REAL_CC)
    ours = _header_layout(built["path"])
    for kind in ("warcinfo", "request", "response", "metadata"):
        assert ours[kind] == real[kind], kind
    with REAL_CC.open("rb") as fh:
        assert fh.read(4) == b"\x1f\x8b\x08\x00"


def test_deterministic_bytes(tmp_path: Path, built: dict, make_page) -> None:
    again = _build(tmp_path, make_page)
    assert again["path"].read_bytes() == built["path"].read_bytes()
    assert again["offsets"] == built["offsets"]
