"""Content and transfer codings, record ids, WET languages and the language column's codes.

Payloads are a real page (jwarc's Common Crawl CC-MAIN-2019-51 record,
``tests/fixtures/real/warc-readers/cc.warc.gz``), coded here with each coding; header values are
edited into the real Common Crawl excerpt (``tests/ingest/warc_cases.py``) and the whirlwind WET
record.
"""

from __future__ import annotations

import dataclasses
import gzip
import re
import zlib
from pathlib import Path

import brotli
import pytest
import zstandard

from ingest.documents_worker import _cld2_language
from ingest.languages import is_language_code, language_code
from ingest.warc import _response, read_captures
from ingest.warc_http import decode_body, looks_like_text
from ingest.warc_items import MAX_PAYLOAD, Page, Rejection, TextPage
from tests.ingest.warc_cases import BASELINE, DATA, MEMBERS, PAGE_MEMBER

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real"
(_CC_PAGE,) = read_captures(FIXTURES / "warc-readers" / "cc.warc.gz")
HTML = _CC_PAGE.payload  # 20,289 bytes of http://commoncrawl.org/ as Common Crawl stored it
ID = "<urn:uuid:ececb7b0-ed4d-4d27-9ae8-2676df51cf7d>"


def _block(body: bytes, **headers: str) -> bytes:
    lines = [b"HTTP/1.1 200 OK", b"Content-Type: text/html; charset=UTF-8"]
    lines += [f"{name.replace('_', '-')}: {value}".encode() for name, value in headers.items()]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def _read(body: bytes, **headers: str) -> Page | Rejection:
    return _response(ID, "http://commoncrawl.org/", 0, None, None, _block(body, **headers))


def _chunked(body: bytes, size: int = 4000) -> bytes:
    pieces = [b"%x\r\n%s\r\n" % (len(body[i : i + size]), body[i : i + size])
              for i in range(0, len(body), size)]  # fmt: skip
    return b"".join(pieces) + b"0\r\n\r\n"


def _raw_deflate(body: bytes) -> bytes:
    coder = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return coder.compress(body) + coder.flush()


# ----------------------------------------------------------------------- codings the bytes carry


@pytest.mark.parametrize(
    ("coded", "headers"),
    [
        (gzip.compress(HTML), {"Content_Encoding": "gzip"}),
        (gzip.compress(HTML), {"Content_Encoding": "x-gzip"}),
        (zlib.compress(HTML), {"Content_Encoding": "deflate"}),
        (_raw_deflate(HTML), {"Content_Encoding": "deflate"}),
        (brotli.compress(HTML), {"Content_Encoding": "br"}),
        (zstandard.ZstdCompressor().compress(HTML), {"Content_Encoding": "zstd"}),
        (gzip.compress(gzip.compress(HTML)), {"Content_Encoding": "gzip, gzip"}),
        (gzip.compress(brotli.compress(HTML)), {"Content_Encoding": "br, gzip"}),
        (brotli.compress(zlib.compress(HTML)), {"Content_Encoding": "deflate,br"}),
        (
            _chunked(gzip.compress(HTML)),
            {"Content_Encoding": "gzip", "Transfer_Encoding": "chunked"},
        ),
        (_chunked(HTML), {"Transfer_Encoding": "chunked"}),
        (gzip.compress(HTML[:9000]) + gzip.compress(HTML[9000:]), {"Content_Encoding": "gzip"}),
        (gzip.compress(HTML) + b"\x00\x17junk", {"Content_Encoding": "gzip"}),  # as browsers
        (HTML, {"Content_Encoding": "identity"}),
    ],
    ids=[
        "gzip",
        "x-gzip",
        "deflate",
        "raw_deflate",
        "br",
        "zstd",
        "gzip_gzip",
        "br_gzip",
        "deflate_br",
        "chunked_gzip",
        "chunked",
        "two_gzip_members",
        "gzip_then_junk",
        "identity",
    ],
)
def test_a_coding_the_bytes_carry_is_undone(coded: bytes, headers: dict[str, str]):
    page = _read(coded, **headers)
    assert isinstance(page, Page)
    assert page.payload == HTML
    assert page.nulled == ()


# ----------------------------------------------------------------------- codings they do not


@pytest.mark.parametrize(
    ("headers", "notes"),
    [
        ({"Content_Encoding": "gzip"}, ("content_encoding_not_applied",)),
        ({"Content_Encoding": "deflate"}, ("content_encoding_not_applied",)),
        ({"Content_Encoding": "br"}, ("content_encoding_not_applied",)),
        ({"Content_Encoding": "zstd"}, ("content_encoding_not_applied",)),
        ({"Content_Encoding": "gzip, gzip"}, ("content_encoding_not_applied",)),
        ({"Transfer_Encoding": "chunked"}, ("transfer_encoding_not_applied",)),
        (
            {"Content_Encoding": "gzip", "Transfer_Encoding": "chunked"},
            ("transfer_encoding_not_applied", "content_encoding_not_applied"),
        ),
        ({"Content_Encoding": "compress"}, ("content_encoding_not_applied",)),
        ({"Content_Encoding": "foo"}, ("content_encoding_not_applied",)),
    ],
)
def test_a_coding_named_over_decoded_text_is_taken_as_stored(headers, notes):
    # Common Crawl before CC-MAIN-2018-34: the headers as the server sent them, the payload
    # stored decoded.
    page = _read(HTML, **headers)
    assert isinstance(page, Page)
    assert page.payload == HTML
    assert page.nulled == notes


def test_a_coding_applied_outside_one_not_applied_is_still_undone():
    # "gzip, br" stored with only the gzip layer: br does not decode and the bytes are no text
    # (gzip data), so nothing is kept that is still coded.
    result = _read(gzip.compress(HTML), Content_Encoding="gzip, br")
    assert isinstance(result, Rejection) and result.reason == "undecodable_payload"


@pytest.mark.parametrize(
    ("coded", "coding"),
    [
        (brotli.compress(HTML)[:-40], "br"),  # cut short
        (b"\x1f\x8b\x08" + bytes(range(200)), "gzip"),  # the magic number, then no gzip
        (zstandard.ZstdCompressor().compress(HTML)[:300], "zstd"),
        (gzip.compress(HTML), "br"),  # gzip bytes named br: neither br nor text
        (brotli.compress(HTML), "gzip"),  # br bytes named gzip
        (zstandard.ZstdCompressor().compress(HTML), "deflate"),
    ],
)
def test_coded_bytes_that_do_not_decode_are_undecodable(coded: bytes, coding: str):
    result = _read(coded, Content_Encoding=coding)
    assert isinstance(result, Rejection)
    assert result.reason == "undecodable_payload"


@pytest.mark.parametrize("coding", ["compress", "foo", "x-compress"])
def test_an_unknown_coding_over_coded_bytes_is_rejected_naming_it(coding: str):
    result = _read(zlib.compress(HTML), Content_Encoding=coding)
    assert isinstance(result, Rejection)
    assert result.reason == "unsupported_content_encoding"
    assert repr(coding) in result.detail


@pytest.mark.parametrize(
    ("bomb", "coding"),
    [
        (brotli.compress(b"\0" * (MAX_PAYLOAD + 1024)), "br"),
        (zstandard.ZstdCompressor().compress(b"\0" * (MAX_PAYLOAD + 1024)), "zstd"),
        (gzip.compress(gzip.compress(b"\0" * (MAX_PAYLOAD + 1024), 9), 9), "gzip, gzip"),
        (zlib.compress(b"<" * (MAX_PAYLOAD + 1024), 9), "deflate"),
    ],
    ids=["br", "zstd", "gzip_gzip", "deflate"],
)
def test_a_decompression_bomb_is_refused_at_the_cap(bomb: bytes, coding: str):
    assert len(bomb) < 64 * 1024
    result = _read(bomb, Content_Encoding=coding)
    assert isinstance(result, Rejection)
    assert result.reason == "payload_too_large"
    assert str(MAX_PAYLOAD) in result.detail


def test_a_broken_chunked_stream_is_undecodable_and_a_chunk_extension_is_read():
    assert _read(b"ff\r\n<html>short</html>", Transfer_Encoding="chunked").reason == (
        "undecodable_payload"
    )
    page = _read(b"5;name=value\r\n<html\r\n1\r\n>\r\n0\r\nTrailer: x\r\n\r\n",
                 Transfer_Encoding="chunked")  # fmt: skip
    assert page.payload == b"<html>" and page.nulled == ()


def test_text_and_coded_bytes_are_told_apart():
    assert looks_like_text(HTML)
    assert looks_like_text("Привет, мир <p>".encode("koi8-r"))  # 8-bit text
    assert looks_like_text("日本語 <p>".encode("iso-2022-jp"))  # holds ESC
    for coded in (gzip.compress(HTML), brotli.compress(HTML), zlib.compress(HTML)):
        assert not looks_like_text(coded)
    assert not looks_like_text("<p>".encode("utf-16"))  # NUL bytes
    assert not looks_like_text(b"")


def test_decode_body_reports_the_codings_not_applied_in_order():
    body, notes = decode_body(
        {"transfer-encoding": "chunked", "content-encoding": "gzip"}, _chunked(HTML)
    )
    assert body == HTML and notes == ("content_encoding_not_applied",)


# ----------------------------------------------------------------------- record ids


RESPONSE = 5


def _with_header(index: int, name: bytes, value: bytes) -> bytes:
    text = MEMBERS[index].text
    text = re.sub(rb"(?m)^" + name + rb": [^\r\n]*", name + b": " + value, text, count=1)
    return DATA[: MEMBERS[index].offset] + gzip.compress(text) + DATA[MEMBERS[index].end :]


@pytest.mark.parametrize(
    "value",
    [
        b"<urn:uuid:a3b9\x00c1e2-0000-4000-8000-000000000000>",  # a NUL byte
        b"<urn:uuid:a3b9 c1e2>",  # white space inside
        b"<urn:uuid:a3b9\x07c1e2>",  # a control character
        b"urn:uuid:a3b9c1e2-0000-4000-8000-000000000000",  # no angle brackets
        b"<a3b9c1e2-0000-4000-8000-000000000000>",  # no scheme: not an absolute URI
        b"<urn:uuid:a3b9%zz>",  # a stray percent sign
        b"<urn:uuid:\xc3\xa9t\xc3\xa9>",  # a character no URI holds
    ],
)
def test_a_record_id_that_is_no_uri_is_rejected(tmp_path: Path, value: bytes):
    path = tmp_path / "case.warc.gz"
    path.write_bytes(_with_header(RESPONSE, b"WARC-Record-ID", value))
    items = list(read_captures(path))
    (rejection,) = [item for item in items if isinstance(item, Rejection)]
    assert rejection.reason == "bad_record_id"
    assert rejection.offset == MEMBERS[RESPONSE].offset
    pages = [item for item in items if isinstance(item, Page)]
    assert [page.record_id for page in pages] == [
        page.record_id for page in BASELINE if PAGE_MEMBER[page.record_id] != RESPONSE
    ]


WET = FIXTURES / "whirlwind" / "whirlwind.warc.wet.gz"


def _wet_with(tmp_path: Path, name: bytes, value: bytes | None) -> list:
    data = WET.read_bytes()
    first = zlib.decompressobj(31)
    first.decompress(data)
    split = len(data) - len(first.unused_data)
    text = gzip.decompress(data[split:])
    if value is None:
        text = re.sub(rb"(?m)^" + name + rb": [^\r\n]*\r\n", b"", text)
    else:
        text = re.sub(rb"(?m)^" + name + rb": [^\r\n]*", name + b": " + value, text)
    path = tmp_path / "case.warc.wet.gz"
    path.write_bytes(data[:split] + gzip.compress(text))
    return list(read_captures(path))


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (b"not-a-record-id", "bad_refers_to"),
        (b"<urn:uuid:2aabeff2 67f5>", "bad_refers_to"),
        (b"<urn:uuid:2aabeff2\x0067f5>", "bad_refers_to"),
        (b"<>", "missing_refers_to"),
    ],
)
def test_a_wet_refers_to_that_is_no_record_id_is_rejected(tmp_path: Path, value, reason):
    (item,) = _wet_with(tmp_path, b"WARC-Refers-To", value)
    assert isinstance(item, Rejection) and item.reason == reason


def test_the_real_wet_record_keeps_its_refers_to_and_language(tmp_path: Path):
    (page,) = read_captures(WET)
    assert page.record_id == "<urn:uuid:2aabeff2-67f5-4608-8466-e87c6296e2b6>"
    assert page.languages == ("spa",) and page.nulled == ()
    assert language_code(page.languages[0]) == "es"


@pytest.mark.parametrize(
    "value", [b"english", b"e n", b"spa;q=1", b"\xc3\xa9sp", b"12", b"spa,<script>"]
)
def test_a_wet_language_that_is_no_code_is_nulled_and_the_page_kept(tmp_path: Path, value):
    (page,) = _wet_with(tmp_path, b"WARC-Identified-Content-Language", value)
    (original,) = read_captures(WET)
    assert isinstance(page, TextPage)
    assert page == dataclasses.replace(
        original, languages=(), nulled=("malformed_identified_content_language",)
    )


def test_wet_languages_in_bcp47_shape_and_several_are_kept(tmp_path: Path):
    (page,) = _wet_with(tmp_path, b"WARC-Identified-Content-Language", b"ukr,eng,zh-Hant")
    assert page.languages == ("ukr", "eng", "zh-Hant") and page.nulled == ()


# ----------------------------------------------------------------------- the language column


@pytest.mark.parametrize(
    ("code", "column"),
    [
        # ISO 639-3 as Common Crawl's WET files write them: the four the issue found verbatim
        ("ukr", "uk"), ("ell", "el"), ("heb", "he"), ("hun", "hu"),
        # macrolanguages and 639-2/B codes
        ("nor", "no"), ("zho", "zh"), ("ara", "ar"), ("fas", "fa"), ("msa", "ms"),
        ("ger", "de"), ("fre", "fr"), ("chi", "zh"), ("gre", "el"), ("dut", "nl"),
        # no ISO 639-1 code: kept as 639-3
        ("yue", "yue"), ("ceb", "ceb"), ("fil", "fil"), ("hbs", "hbs"),
        # cld2's and fastText's codes: BCP 47 tags, codes ISO 639-1 withdrew
        ("zh-Hant", "zh"), ("sr-Latn", "sr"), ("pt_BR", "pt"), ("iw", "he"), ("jw", "jv"),
        ("in", "id"), ("EN", "en"), ("en", "en"),
        # no language
        ("un", None), ("xx-Qaai", None), ("und", None), ("zxx", None), ("", None),
        ("english", None), ("e n", None),
    ],
)  # fmt: skip
def test_language_codes_land_in_one_code_system(code: str, column: str | None):
    assert language_code(code) == column


def test_every_code_of_the_iso639_table_maps_to_its_639_1_code_or_stays_itself():
    from iso639 import iter_langs

    langs = [lang for lang in iter_langs() if lang.pt3]
    with_pt1 = [lang for lang in langs if lang.pt1]
    # every 639-3 code with a 639-1 equivalent maps to it, from any of its codes
    for lang in with_pt1:
        for code in {lang.pt3, lang.pt2t, lang.pt2b, lang.pt1} - {""}:
            assert language_code(code) == lang.pt1, (code, lang)
    # every other 639-3 code stays itself, but und and zxx (no language: None)
    for lang in langs:
        if not lang.pt1 and lang.pt3 not in ("und", "zxx"):
            assert language_code(lang.pt3) == lang.pt3, lang
    # counted a different way: the ISO 639-1 codes are the two-letter outputs, and there are as
    # many distinct ones as the table has 639-1 codes (183 in iso639-lang 2.6.3)
    outputs = {language_code(lang.pt3) for lang in langs} - {None}
    two_letter = {code for code in outputs if code and len(code) == 2}
    assert two_letter == {lang.pt1 for lang in with_pt1}
    assert len(two_letter) == 183
    assert all(len(code) == 3 for code in outputs - two_letter)


def test_the_cld2_path_uses_the_same_code_system():
    assert _cld2_language([("zh-Hant", 0.9)]) == ("zh", 0.9)
    assert _cld2_language([("iw", 0.7)]) == ("he", 0.7)
    assert _cld2_language([("xx-Qaai", 0.7)]) == (None, 0.0)
    assert _cld2_language([("un", 0.7)]) == (None, 0.0)
    assert is_language_code("zh-Hant") and not is_language_code("zh Hant")
