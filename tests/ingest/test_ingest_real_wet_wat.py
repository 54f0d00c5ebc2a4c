"""Real Common Crawl WARC, WET and WAT bytes of one page (tests/fixtures/real/whirlwind): the
WARC and the WET copy are one document, the WAT is refused, and warcinfo's isPartOf is checked."""

from __future__ import annotations

import logging
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastwarc.warc import ArchiveIterator, WarcRecordType

from ingest.__main__ import main
from ingest.documents import DocumentIngestError, ingest_documents
from ingest.warc import read_captures, read_head
from ingest.warc_items import FileHead, Page, TextPage
from tests.fixtures.documents import lake_rows, warc_with

WHIRLWIND = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "whirlwind"
WARC = WHIRLWIND / "whirlwind.warc.gz"
WET = WHIRLWIND / "whirlwind.warc.wet.gz"
WAT = WHIRLWIND / "whirlwind.warc.wat.gz"
CRAWL = "CC-MAIN-2024-22"  # the files' warcinfo isPartOf
URL = "https://an.wikipedia.org/wiki/Escopete"
FETCHED_AT = datetime(2024, 5, 18, 1, 58, 10, tzinfo=UTC)


def _records(path: Path, record_type: WarcRecordType) -> list[tuple[int, dict[str, str], bytes]]:
    """(offset, headers, block) of every record of one type, read with FastWARC directly."""
    with path.open("rb") as handle:
        return [
            (record.stream_pos, dict(record.headers), record.reader.read())
            for record in ArchiveIterator(handle, record_types=record_type, parse_http=False)
        ]


@pytest.fixture(scope="module")
def response_id() -> str:
    """The WARC response record's id, which the WET conversion record refers to."""
    ((_, response, _),) = _records(WARC, WarcRecordType.response)
    ((_, conversion, _),) = _records(WET, WarcRecordType.conversion)
    assert conversion["WARC-Refers-To"] == response["WARC-Record-ID"]
    assert conversion["WARC-Record-ID"] != response["WARC-Record-ID"]
    assert response["WARC-Record-ID"] == "<urn:uuid:2aabeff2-67f5-4608-8466-e87c6296e2b6>"
    return response["WARC-Record-ID"]


def _copies(tmp_path: Path, *paths: Path) -> list[Path]:
    folder = tmp_path / "in"
    folder.mkdir(exist_ok=True)
    return [Path(shutil.copy(path, folder / path.name)) for path in paths]


# ----------------------------------------------------------------------- the reader


def test_the_heads_tell_warc_wet_and_wat_apart():
    assert read_head(WARC) == FileHead("warc", CRAWL)
    assert read_head(WET) == FileHead("wet", CRAWL)
    assert read_head(WAT) == FileHead("wat", None)  # the WAT's warcinfo has no isPartOf


def test_the_wet_text_page_carries_the_response_id(response_id: str):
    (page,) = read_captures(WARC)
    (text_page,) = read_captures(WET)
    assert isinstance(page, Page) and isinstance(text_page, TextPage)
    assert page.record_id == text_page.record_id == response_id
    assert page.url == text_page.url == URL
    assert page.fetched_at == text_page.fetched_at == FETCHED_AT
    assert text_page.languages == ("spa",)
    ((offset, _, block),) = _records(WET, WarcRecordType.conversion)
    assert text_page.offset == offset
    assert text_page.text == block.decode("utf-8")
    assert text_page.text.startswith("Escopete - Biquipedia, a enciclopedia libre\n")


# ----------------------------------------------------------------------- the ingest


_COLUMNS = (
    "doc_id, url, surt_host_name, url_host_tld, warc_file, warc_record_offset, language, "
    "language_score, language_source, fetched_at, text_length, text, crawl"
)


def _document(lake: Path) -> tuple:
    (row,) = lake_rows(lake, f"select {_COLUMNS} from documents")
    return row


def _books(row: dict) -> tuple[int, int, dict[str, int]]:
    assert row["records_read"] == row["records_written"] + row["records_rejected"]
    return row["records_read"], row["records_written"], dict(row["rejected_by_reason"])


def test_one_page_from_its_warc_and_from_its_wet_is_one_document(
    trained, response_id: str, tmp_path: Path
):
    warc, wet = _copies(tmp_path, WARC, WET)
    ((response_offset, _, _),) = _records(WARC, WarcRecordType.response)
    ((conversion_offset, _, conversion_block),) = _records(WET, WarcRecordType.conversion)

    (warc_row,) = ingest_documents([warc], CRAWL, tmp_path / "a", trained, 1, keep_text=True)
    (wet_row,) = ingest_documents([wet], CRAWL, tmp_path / "b", trained, 1, keep_text=True)
    assert _books(warc_row) == (1, 1, {})
    assert _books(wet_row) == (1, 1, {})
    assert warc_row["crawl"] == wet_row["crawl"] == CRAWL

    from_warc = _document(tmp_path / "a")
    from_wet = _document(tmp_path / "b")
    assert from_warc[:4] == from_wet[:4] == (response_id, URL, "org,wikipedia,an", "org")
    assert from_warc[4:6] == ("whirlwind.warc.gz", response_offset)
    assert from_wet[4:6] == ("whirlwind.warc.wet.gz", conversion_offset)
    # The WARC's language is cld2's (metadata record: es, 69 % of the text); the WET header's
    # ISO 639-3 'spa' becomes 'es', with no score since the header has none.
    assert from_warc[6:9] == ("es", 0.69, "cld2")
    assert from_wet[6:9] == ("es", None, "cc_wet")
    assert from_warc[9] == from_wet[9] == FETCHED_AT
    warc_text, wet_text = from_warc[11], from_wet[11]
    assert wet_text == conversion_block.decode("utf-8")
    assert from_wet[10] == len(wet_text)
    assert from_warc[10] == len(warc_text) > 500
    assert "Escopete" in warc_text and "Guadalachara" in warc_text
    assert from_warc[12] == from_wet[12] == CRAWL
    for lake in (tmp_path / "a", tmp_path / "b"):
        scores = lake_rows(lake, "select doc_id, classifier, score from document_scores")
        assert sorted(classifier for _, classifier, _ in scores) == sorted(
            entry.classifier for entry in trained
        )
        assert all(doc_id == response_id and 0 <= score <= 1 for doc_id, _, score in scores)


@pytest.mark.parametrize("one_run", [True, False], ids=["one_run", "two_runs"])
def test_the_wet_copy_after_the_warc_is_a_duplicate(
    trained, response_id: str, tmp_path: Path, one_run: bool
):
    warc, wet = _copies(tmp_path, WARC, WET)
    lake = tmp_path / "lake"
    if one_run:
        rows = ingest_documents([warc, wet], CRAWL, lake, trained[:2], workers=2)
    else:
        rows = ingest_documents([warc], CRAWL, lake, trained[:2], workers=1)
        rows += ingest_documents([wet], CRAWL, lake, trained[:2], workers=1)
    assert [Path(row["source_file"]).name for row in rows] == [warc.name, wet.name]
    assert _books(rows[0]) == (1, 1, {})
    assert _books(rows[1]) == (1, 0, {"duplicate_record_id": 1})
    ((offset, _, _),) = _records(WET, WarcRecordType.conversion)
    assert list(rows[1]["rejected_examples"]) == [
        f"{wet}:byte {offset}: duplicate_record_id: {response_id!r}"
    ]
    assert lake_rows(lake, "select doc_id, warc_file, language_source from documents") == [
        (response_id, warc.name, "cld2")
    ]
    assert lake_rows(lake, "select count(*), count(distinct classifier) from document_scores") == [
        (2, 2)
    ]


def test_a_wat_file_is_refused_before_anything_is_written(trained, tmp_path: Path):
    warc, wat = _copies(tmp_path, WARC, WAT)
    lake = tmp_path / "lake"
    with pytest.raises(DocumentIngestError) as raised:
        ingest_documents([warc, wat], CRAWL, lake, trained[:1], workers=1)
    assert str(raised.value) == (
        f"{wat}: a WAT (link metadata) file, its records are JSON metadata; "
        "expected WARC or WET files"
    )
    assert not lake.exists()


def test_the_cli_refuses_a_wat_file_in_one_line_with_exit_2(trained, tmp_path: Path, capsys):
    (wat,) = _copies(tmp_path, WAT)
    lake = tmp_path / "lake"
    raw = trained[0].model_path.parents[1]
    argv = ["documents", "--crawl", CRAWL, "--lake", str(lake), "--raw", str(raw)]
    assert main([*argv, "--warc", str(wat)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"python -m ingest documents: error: {wat}: a WAT (link metadata) file, its records "
        "are JSON metadata; expected WARC or WET files\n"
    )
    assert not lake.exists()


def test_a_crawl_the_warcinfo_contradicts_is_refused_unless_allowed(
    trained, response_id: str, tmp_path: Path, caplog
):
    html = b"<html><body><p>" + b"A page with no warcinfo around it. " * 20 + b"</p></body></html>"
    plain = warc_with(
        tmp_path / "plain.warc.gz",
        [("<urn:uuid:00000000-0000-4000-8000-0000000000b1>", "http://plain.example.org/", html)],
    )
    warc, wet = _copies(tmp_path, WARC, WET)
    lake = tmp_path / "lake"
    other = "CC-MAIN-2024-10"
    with pytest.raises(DocumentIngestError) as raised:
        ingest_documents([plain, warc, wet], other, lake, trained[:1], workers=1)
    assert str(raised.value) == (
        f"{warc}: its warcinfo says isPartOf {CRAWL}, not --crawl {other} (and 1 more file of "
        f"another crawl); pass --allow-crawl-mismatch to ingest as {other} all the same"
    )
    assert not lake.exists()

    # A file without warcinfo has nothing to contradict.
    (row,) = ingest_documents([plain], other, lake, trained[:1], workers=1)
    assert _books(row) == (1, 1, {})

    with caplog.at_level(logging.WARNING):
        rows = ingest_documents(
            [warc], other, lake, trained[:1], workers=1, allow_crawl_mismatch=True
        )
    assert [row["crawl"] for row in rows] == [other]
    assert _books(rows[0]) == (1, 1, {})
    assert any(
        str(warc) in record.message and CRAWL in record.message and other in record.message
        for record in caplog.records
    )
    assert sorted(lake_rows(lake, "select doc_id, crawl from documents")) == sorted(
        [("<urn:uuid:00000000-0000-4000-8000-0000000000b1>", other), (response_id, other)]
    )


def test_the_cli_names_the_override_flag_and_honours_it(trained, tmp_path: Path, capsys):
    (wet,) = _copies(tmp_path, WET)
    lake = tmp_path / "lake"
    raw = trained[0].model_path.parents[1]
    other = "CC-MAIN-2024-10"
    argv = ["documents", "--crawl", other, "--lake", str(lake), "--raw", str(raw)]
    argv += ["--classifiers", trained[0].classifier, "--workers", "1", "--warc", str(wet)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"python -m ingest documents: error: {wet}: its warcinfo says isPartOf {CRAWL}, not "
        f"--crawl {other}; pass --allow-crawl-mismatch to ingest as {other} all the same\n"
    )
    assert not lake.exists()

    assert main([*argv, "--allow-crawl-mismatch"]) == 0
    captured = capsys.readouterr()
    assert captured.out == (
        f"documents {other}: 1 files ingested (0 already in the lake), 1 records read, "
        "1 written, 0 rejected\n"
    )
    assert lake_rows(lake, "select url, language, language_score, crawl from documents") == [
        (URL, "es", None, other)
    ]
