"""A WARC file that loses its pages is not a success: expected skips apart from failures.

Every rejected record is an expected skip (revisit, non-200, non-HTML, no main text, …) or a
failure (a response that is no HTTP message, a truncated record, …), as ``ingest.reasons``
classes them. A file more than ``--max-failure-rate`` of whose pages (written + failed) failed is
held back: not committed, named in the error, exit status 2; the files beside it are committed
and summed up. Skips never count, however many.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ingest.__main__ import main
from ingest.documents import DEFAULT_MAX_FAILURE_RATE, FilesHeldBackError, ingest_documents
from ingest.lake import committed_parts
from ingest.reasons import DOCUMENT_SKIPS, REJECTED, is_document_failure
from tests.fixtures.documents import lake_rows

CRAWL = "CC-MAIN-2024-10"
_TEXT = b"A page about the history of bridges and how they are built. " * 12
_HTML = b"<html><body><article><p>" + _TEXT + b"</p></article></body></html>"


def _record(number: int, kind: str) -> bytes:
    """One uncompressed WARC response record of the given kind, built byte by byte."""
    if kind == "page":
        block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + _HTML
    elif kind == "not_found":  # an expected skip: non_200
        block = b"HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n" + _HTML
    elif kind == "pdf":  # an expected skip: non_html
        block = b"HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 ..."
    elif kind == "no_http":  # a failure: malformed_http
        block = b"this block is no HTTP message at all\r\n\r\n" + _HTML
    else:
        raise ValueError(kind)
    headers = (
        "WARC/1.0\r\n"
        "WARC-Type: response\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{number:012d}>\r\n"
        "WARC-Date: 2024-02-20T10:00:00Z\r\n"
        f"WARC-Target-URI: http://site{number % 7}.example.org/page/{number}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode()
    return headers + block + b"\r\n\r\n"


def _warc(path: Path, kinds: list[str], first: int = 0) -> Path:
    path.write_bytes(b"".join(_record(first + n, kind) for n, kind in enumerate(kinds)))
    return path


def _committed_files(lake: Path) -> set[str]:
    rows = lake_rows(lake, "select source_file from manifest") if committed_parts(lake) else []
    return {Path(row[0]).name for row in rows}


def test_every_reason_is_a_skip_or_a_failure_and_the_skips_are_registered():
    assert REJECTED.keys() >= DOCUMENT_SKIPS
    assert {REJECTED[reason][0] for reason in DOCUMENT_SKIPS} == {"documents"}
    assert not is_document_failure("revisit") and not is_document_failure("non_200")
    assert is_document_failure("undecodable_payload") and is_document_failure("truncated_record")
    assert is_document_failure("malformed_http") and is_document_failure("extraction_failed")


def test_a_file_that_loses_every_page_is_held_back_the_others_committed(trained, tmp_path):
    good = _warc(tmp_path / "good.warc", ["page", "page", "not_found"])
    lost = _warc(tmp_path / "lost.warc", ["no_http"] * 4 + ["pdf"], first=100)
    lake = tmp_path / "lake"
    with pytest.raises(FilesHeldBackError) as raised:
        ingest_documents([good, lost], CRAWL, lake, trained[:1], workers=1)
    message = str(raised.value)
    assert "lost.warc: 4 of 4 pages failed (malformed_http 4)" in message
    assert "--max-failure-rate 5%" in message and "not committed" in message
    assert [Path(row["source_file"]).name for row in raised.value.rows] == ["good.warc"]
    assert _committed_files(lake) == {"good.warc"}
    assert lake_rows(lake, "select count(*) from documents") == [(2,)]
    # held back, so not skipped next time: allowed, it is committed with what it holds (nothing)
    rows = ingest_documents([good, lost], CRAWL, lake, trained[:1], max_failure_rate=1.0)
    (row,) = rows
    assert Path(row["source_file"]).name == "lost.warc"
    assert row["records_written"] == 0
    assert dict(row["rejected_by_reason"]) == {"malformed_http": 4, "non_html": 1}
    assert _committed_files(lake) == {"good.warc", "lost.warc"}


def test_skips_never_count_however_many(trained, tmp_path):
    only_skips = _warc(tmp_path / "skips.warc", ["not_found"] * 30 + ["pdf"] * 10 + ["page"])
    (row,) = ingest_documents([only_skips], CRAWL, tmp_path / "lake", trained[:1], workers=1)
    assert row["records_written"] == 1
    assert dict(row["rejected_by_reason"]) == {"non_200": 30, "non_html": 10}


@pytest.mark.parametrize("seed", range(6))
def test_held_back_exactly_when_failures_exceed_the_rate(trained, tmp_path, seed):
    """Random mixes around the limit: the rule recomputed from the kinds written, not the books."""
    rng = random.Random(seed)
    rate = rng.choice([0.0, DEFAULT_MAX_FAILURE_RATE, 0.2, 0.5])
    pages = rng.randint(1, 12)
    limit = int(rate * pages / (1 - rate)) if rate < 1 else pages
    failed = rng.choice([0, limit, limit + 1, rng.randint(0, 6)])
    kinds = ["page"] * pages + ["no_http"] * failed + ["not_found"] * rng.randint(0, 5)
    rng.shuffle(kinds)
    path = _warc(tmp_path / f"mix{seed}.warc", kinds)
    lake = tmp_path / "lake"
    expect_held = failed > rate * (pages + failed)
    if expect_held:
        with pytest.raises(FilesHeldBackError) as raised:
            ingest_documents([path], CRAWL, lake, trained[:1], max_failure_rate=rate)
        assert f"{failed:,} of {pages + failed:,} pages failed" in str(raised.value)
        assert _committed_files(lake) == set()
        assert not list(lake.rglob("*.tmp"))  # its temporary parts are gone too
    else:
        (row,) = ingest_documents([path], CRAWL, lake, trained[:1], max_failure_rate=rate)
        assert row["records_written"] == pages
        assert dict(row["rejected_by_reason"]).get("malformed_http", 0) == failed


def test_the_command_sums_up_what_it_committed_and_names_what_it_held_back(
    trained, tmp_path, capsys
):
    good = _warc(tmp_path / "good.warc", ["page", "page", "not_found"])
    lost = _warc(tmp_path / "lost.warc", ["no_http", "no_http", "page"], first=100)
    model = trained[0].model_path
    raw = model.parents[1]  # the registry's model paths are classifiers/<name>.bin
    common = ["--lake", str(tmp_path / "lake"), "--raw", str(raw), "--crawl", CRAWL]
    common += ["--classifiers", trained[0].classifier, "--workers", "1"]
    argv = ["documents", "--warc", str(good), str(lost), *common]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith(f"documents {CRAWL}: 1 files ingested (0 already in the lake")
    assert "1 refused or held back" in captured.out
    assert captured.err.count("\n") == 1
    assert "lost.warc: 2 of 3 pages failed (malformed_http 2)" in captured.err
    assert main([*argv, "--max-failure-rate", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"documents {CRAWL}: 1 files ingested (1 already in the lake)")
    assert "3 records read, 1 written, 2 rejected (malformed_http 2); 2 of them failed" in out
