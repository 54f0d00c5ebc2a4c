"""`python -m ingest documents` end to end: real Common Crawl files, the tiny demo crawl,
idempotency, duplicates across files, and a run killed with SIGKILL half-way."""

from __future__ import annotations

import gzip
import io
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import duckdb
import pytest
from warcio.warcwriter import WARCWriter

from hostaware.paths import HOME_VARIABLE, PROJECT, SEEDS
from ingest.documents import DocumentIngestError, FilesHeldBackError, ingest_documents
from ingest.lake import LakeError, expand_inputs
from tests.fixtures.crawls import REAL_DATA, Crawl
from tests.fixtures.documents import lake_rows, warc_with

REGISTRY = SEEDS / "classifier_registry.csv"
CRAWL = "CC-MAIN-2024-10"
REAL_CRAWL = "CC-MAIN-2020-34"  # isPartOf of resiliparse-cc/warcfile.warc.gz's warcinfo


@pytest.fixture
def real_files(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "real"
    folder.mkdir()
    names = [
        "resiliparse-cc/warcfile.warc.gz",
        "resiliparse-cc/clipped.warc.gz",
        "warcio-examples/example.warc.gz",
        "warcio-examples/example-iana.org-chunked.warc",
    ]
    return [Path(shutil.copy(REAL_DATA / name, folder / Path(name).name)) for name in names]


def test_real_common_crawl_files(trained, real_files, tmp_path: Path, caplog):
    lake = tmp_path / "lake"
    with caplog.at_level(logging.WARNING), pytest.raises(FilesHeldBackError) as held:
        ingest_documents(real_files, REAL_CRAWL, lake, trained, workers=2)
    # clipped.warc.gz loses its one page (truncated): held back, the other three committed
    assert str(held.value).startswith(f"{real_files[1]}: 1 of 1 pages failed (truncated_record 1)")
    rows = held.value.rows
    assert sorted(Path(row["source_file"]).name for row in rows) == [
        "example-iana.org-chunked.warc",
        "example.warc.gz",
        "warcfile.warc.gz",
    ]
    with caplog.at_level(logging.WARNING):  # allowed, it is committed with what it holds
        rows += ingest_documents(real_files, REAL_CRAWL, lake, trained, max_failure_rate=1.0)
    by_file = {Path(row["source_file"]).name: row for row in rows}
    assert by_file["warcfile.warc.gz"]["records_read"] == 16
    assert by_file["warcfile.warc.gz"]["records_written"] == 16
    assert by_file["example.warc.gz"]["records_written"] == 1
    assert dict(by_file["example.warc.gz"]["rejected_by_reason"]) == {"revisit": 1}
    assert by_file["example-iana.org-chunked.warc"]["records_written"] == 1
    assert by_file["clipped.warc.gz"]["records_written"] == 0
    assert dict(by_file["clipped.warc.gz"]["rejected_by_reason"]) == {"truncated_record": 1}
    assert any("clipped.warc.gz" in r.message and "byte 0" in r.message for r in caplog.records)
    for row in rows:
        assert row["records_read"] == row["records_written"] + row["records_rejected"]

    documents = lake_rows(
        lake,
        "select surt_host_name, url_host_registered_domain, url_host_tld, language, "
        "language_source, warc_file, doc_id from documents",
    )
    hosts = Counter(row[0] for row in documents)
    assert hosts["ch,live-radsport,06"] == 2
    assert hosts["com,example"] == 1 and hosts["org,iana"] == 1
    assert len(hosts) == 17
    by_host = {row[0]: row for row in documents}
    assert by_host["ch,live-radsport,06"][1:3] == ("live-radsport.ch", "ch")
    assert by_host["com,psb556,035"][1:3] == ("psb556.com", "com")
    languages = Counter((row[3], row[4]) for row in documents)
    assert languages[("zh", "cld2")] == 11
    assert by_host["com,example"][3:5] == ("en", "fasttext_lid176")
    assert by_host["org,iana"][3:5] == ("en", "fasttext_lid176")
    assert len({row[6] for row in documents}) == len(documents) == 18
    per_doc = lake_rows(
        lake,
        "select count(*), count(distinct classifier), min(score), max(score) "
        "from document_scores group by doc_id",
    )
    assert len(per_doc) == 18
    assert all(row[0] == row[1] == len(trained) and 0 <= row[2] <= row[3] <= 1 for row in per_doc)


def _snapshot(lake: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(lake)): path.read_bytes()
        for path in sorted(lake.rglob("*"))
        if path.is_file()
    }


def test_rerun_changes_nothing(trained, real_files, tmp_path: Path):
    lake = tmp_path / "lake"
    ingest_documents(real_files, REAL_CRAWL, lake, trained, workers=1, max_failure_rate=1.0)
    before = _snapshot(lake)
    assert ingest_documents(real_files, REAL_CRAWL, lake, trained, max_failure_rate=1.0) == []
    assert _snapshot(lake) == before


def test_same_record_id_in_two_files_is_written_once(trained, real_files, tmp_path: Path):
    lake = tmp_path / "lake"
    ingest_documents(real_files[:1], REAL_CRAWL, lake, trained, workers=1)
    (existing,) = lake_rows(lake, "select doc_id from documents where surt_host_name = 'cn,003338'")
    html = (
        b"<html><body><article><p>"
        + b"An English page about research. " * 30
        + b"</p></article></body></html>"
    )
    again = warc_with(
        tmp_path / "again.warc.gz",
        [
            (existing[0], "http://003338.cn/copy.html", html),
            ("<urn:uuid:00000000-0000-4000-8000-000000000001>", "http://new.example.org/", html),
            ("<urn:uuid:00000000-0000-4000-8000-000000000001>", "http://new.example.org/2", html),
        ],
    )
    (row,) = ingest_documents([again], REAL_CRAWL, lake, trained, workers=1)
    assert row["records_read"] == 3
    assert row["records_written"] == 1
    assert dict(row["rejected_by_reason"]) == {"duplicate_record_id": 2}
    ids = lake_rows(lake, "select doc_id, count(*) from documents group by all having count(*) > 1")
    assert ids == []
    scores = lake_rows(
        lake,
        "select doc_id, classifier, count(*) from document_scores group by all having count(*) > 1",
    )
    assert scores == []


def test_whole_file_gzip_and_wet_files(trained, tmp_path: Path):
    whole = tmp_path / "iana.warc.gz"
    whole.write_bytes(
        gzip.compress(
            (REAL_DATA / "warcio-examples" / "example-iana.org-chunked.warc").read_bytes()
        )
    )
    wet = tmp_path / "sample.warc.wet.gz"
    german = "Das ist ein deutscher Text über Forschung und Wissenschaft. " * 20
    english = "This is an English text about research and science. " * 20
    response_id = "<urn:uuid:00000000-0000-4000-8000-0000000000a0>"
    no_refers_to = "<urn:uuid:00000000-0000-4000-8000-00000000000b>"
    with wet.open("wb") as handle:
        writer = WARCWriter(handle, gzip=True)
        for record_id, url, text, headers in [
            (
                "<urn:uuid:00000000-0000-4000-8000-00000000000a>",
                "https://beispiel.de/seite",
                german,
                {"WARC-Refers-To": response_id, "WARC-Identified-Content-Language": "deu,eng"},
            ),
            (no_refers_to, "https://beispiel.de/ohne", german, {}),
            (
                "<urn:uuid:00000000-0000-4000-8000-00000000000c>",
                "https://example.org/unlabelled",
                english,
                {"WARC-Refers-To": "<urn:uuid:00000000-0000-4000-8000-0000000000c0>"},
            ),
        ]:
            record = writer.create_warc_record(
                url,
                "conversion",
                payload=io.BytesIO(text.encode()),
                warc_headers_dict={
                    "WARC-Record-ID": record_id,
                    "Content-Type": "text/plain",
                    **headers,
                },
            )
            writer.write_record(record)
    lake = tmp_path / "lake"
    # the WET record without WARC-Refers-To is a failure (1 of 3 pages): allowed here
    rows = ingest_documents([whole, wet], CRAWL, lake, trained, workers=1, max_failure_rate=0.5)
    assert [row["records_written"] for row in rows] == [1, 2]
    wet_row = rows[1]
    assert wet_row["records_read"] == 3 == wet_row["records_written"] + wet_row["records_rejected"]
    assert dict(wet_row["rejected_by_reason"]) == {"missing_refers_to": 1}
    (example,) = wet_row["rejected_examples"]
    assert example.startswith(f"{wet}:byte ") and example.endswith(
        f": missing_refers_to: {no_refers_to!r}"
    )
    documents = lake_rows(
        lake,
        "select surt_host_name, doc_id, language, language_score, language_source from documents "
        "order by surt_host_name",
    )
    by_host = {row[0]: row[1:] for row in documents}
    assert sorted(by_host) == ["de,beispiel", "org,example", "org,iana"]
    # WET: the response's id (WARC-Refers-To); the first header language, mapped to ISO 639-1,
    # with no score (the header has none).
    assert by_host["de,beispiel"] == (response_id, "de", None, "cc_wet")
    # No header language: lid.176 decides, with its probability.
    doc_id, language, score, source = by_host["org,example"]
    assert (doc_id, language, source) == (
        "<urn:uuid:00000000-0000-4000-8000-0000000000c0>",
        "en",
        "fasttext_lid176",
    )
    assert 0.5 < score <= 1
    assert by_host["org,iana"][1::2] == ("en", "fasttext_lid176")
    assert 0.5 < by_host["org,iana"][2] <= 1


def _run_cli(lake: Path, files: list[Path], raw: Path) -> subprocess.Popen:
    """The CLI over the tiny crawl's files and the real ones, whose warcinfo says
    CC-MAIN-2020-34: all ingested as CRAWL (--allow-crawl-mismatch)."""
    env = {**os.environ, HOME_VARIABLE: str(lake.parent)}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ingest",
            "documents",
            "--crawl",
            CRAWL,
            "--lake",
            str(lake),
            "--workers",
            "1",
            "--raw",
            str(raw),
            "--allow-crawl-mismatch",
            "--max-failure-rate",  # clipped.warc.gz loses its one page, and is kept all the same
            "1",
            "--warc",
            *map(str, files),
        ],
        cwd=PROJECT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _table(lake: Path, table: str, columns: str) -> list[tuple]:
    return sorted(
        duckdb.sql(
            f"select {columns} from read_parquet('{lake}/{table}/*/part-*.parquet', "
            "hive_partitioning = true)"
        ).fetchall()
    )


def test_killed_half_way_then_rerun_equals_one_clean_run(
    trained, tiny_crawl: Crawl, real_files: list[Path], tmp_path: Path
):
    # Six files, so that plenty of work is left when the first one is committed.
    files = sorted((tiny_crawl.root / "warc" / CRAWL).glob("*.warc.gz")) + real_files
    raw = trained[0].model_path.parents[1]
    clean = tmp_path / "clean" / "lake"
    first = _run_cli(clean, files, raw)
    assert first.wait(timeout=600) == 0, first.stderr.read()

    killed = tmp_path / "killed" / "lake"
    process = _run_cli(killed, files, raw)
    manifests = killed / "_manifest" / "documents"
    deadline = time.monotonic() + 300
    while not any(manifests.glob("*.parquet")) and process.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)  # the whole process group, workers included
    process.wait()
    assert len(list(manifests.glob("*.parquet"))) < len(files), "killed before the end"
    rerun = _run_cli(killed, files, raw)
    assert rerun.wait(timeout=600) == 0, rerun.stderr.read()

    document_columns = "doc_id, url, surt_host_name, language, text_length, warc_record_offset"
    assert _table(killed, "documents", document_columns) == _table(
        clean, "documents", document_columns
    )
    assert _table(killed, "document_scores", "doc_id, classifier, score") == _table(
        clean, "document_scores", "doc_id, classifier, score"
    )
    counts = "source_sha256, records_read, records_written, records_rejected"
    assert sorted(
        duckdb.sql(
            f"select {counts} from read_parquet('{killed}/_manifest/documents/*.parquet')"
        ).fetchall()
    ) == sorted(
        duckdb.sql(
            f"select {counts} from read_parquet('{clean}/_manifest/documents/*.parquet')"
        ).fetchall()
    )
    assert not list(killed.rglob("*.tmp"))


def test_pages_in_legacy_charsets_are_decoded(trained, tiny_crawl: Crawl, tmp_path: Path):
    """windows-1251, Shift_JIS and GB18030 pages (declared in HTTP, in <meta>, or not at all)."""
    files = sorted((tiny_crawl.root / "warc" / CRAWL).glob("*.warc.gz"))
    lake = tmp_path / "lake"
    ingest_documents(files, CRAWL, lake, trained[:1], workers=1, keep_text=True)
    rows = lake_rows(lake, "select language, text from documents")
    scripts = {"ru": ("\u0400", "\u04ff"), "ja": ("\u3040", "\u30ff"), "zh": ("\u4e00", "\u9fff")}
    checked = Counter()
    for language, text in rows:
        assert "\ufffd" not in text
        if language in scripts:
            low, high = scripts[language]
            assert sum(low <= char <= high for char in text) > 0.3 * len(text.replace(" ", ""))
            checked[language] += 1
    truth = tiny_crawl.truth["warc"]["html_charsets"]
    assert any(charset.startswith(("windows-1251", "shift_jis", "gb18030")) for charset in truth)
    assert all(checked[language] > 0 for language in scripts)


def test_a_page_has_its_hosts_last_label_and_public_suffix(trained, tmp_path: Path):
    """Common Crawl's url_host_tld is the last label (`uk`); the public suffix is apart."""
    html = b"<html><body><article><p>" + b"A page about teaching. " * 30 + b"</p></article>"
    pages = [
        ("<urn:uuid:00000000-0000-4000-8000-000000000011>", "https://www.ox.ac.uk/a", html),
        ("<urn:uuid:00000000-0000-4000-8000-000000000012>", "https://shop.example.co.uk/", html),
        ("<urn:uuid:00000000-0000-4000-8000-000000000013>", "http://www.example.com/", html),
        ("<urn:uuid:00000000-0000-4000-8000-000000000014>", "http://192.0.2.1/x", html),
    ]
    lake = tmp_path / "lake"
    ingest_documents([warc_with(tmp_path / "t.warc.gz", pages)], REAL_CRAWL, lake, trained)
    rows = lake_rows(
        lake,
        "select surt_host_name, url_host_tld, url_host_registry_suffix, "
        "url_host_registered_domain from documents order by doc_id",
    )
    assert rows == [
        ("uk,ac,ox", "uk", "ac.uk", "ox.ac.uk"),
        ("uk,co,example,shop", "uk", "co.uk", "example.co.uk"),
        ("com,example", "com", "com", "example.com"),
        ("1,2,0,192", None, None, None),
    ]


_HTML = (
    b"<html><body><article><p>"
    + b"An English page about research and the sea. " * 30
    + b"</p></article></body></html>"
)


def test_a_crashed_runs_leftover_part_never_counts_as_committed(trained, tmp_path: Path):
    """Finding 3: a part renamed into place by a run killed before its commit is no record of
    what the lake holds, even when a committed file has the same name: the rerun writes every
    page (the old rule, by file name, counted the leftover's ids as published)."""
    lake = tmp_path / "lake"
    ids = [f"<urn:uuid:00000000-0000-4000-8000-00000000010{i}>" for i in range(3)]
    (tmp_path / "a").mkdir()
    earlier = warc_with(
        tmp_path / "a" / "crawl.warc.gz", [(ids[0], "http://one.example.org/", _HTML)]
    )
    ingest_documents([earlier], CRAWL, lake, trained, workers=1)
    (tmp_path / "b").mkdir()
    pages = [(doc_id, f"http://two.example.org/{i}", _HTML) for i, doc_id in enumerate(ids[1:])]
    later = warc_with(tmp_path / "b" / "crawl.warc.gz", pages)  # the same file name
    clean = tmp_path / "clean"
    (row,) = ingest_documents([later], CRAWL, clean, trained, workers=1)
    leftover = clean / row["output_files"][0]
    orphan = lake / row["output_files"][0]  # published, then the run died: no manifest row
    shutil.copy(leftover, orphan)
    (rerun,) = ingest_documents([later], CRAWL, lake, trained, workers=1)
    assert (rerun["records_read"], rerun["records_written"]) == (2, 2)
    assert sorted(lake_rows(lake, "select doc_id from documents")) == [(doc_id,) for doc_id in ids]


def test_a_file_in_the_lake_under_another_crawl_is_refused_unless_replaced(trained, tmp_path: Path):
    """Finding 4: the crawl is part of a file's identity."""
    lake = tmp_path / "lake"
    warc = warc_with(
        tmp_path / "one.warc.gz",
        [("<urn:uuid:00000000-0000-4000-8000-000000000201>", "http://x.example.org/", _HTML)],
    )
    ingest_documents([warc], "CC-MAIN-2024-10", lake, trained, workers=1)
    with pytest.raises(LakeError, match=r"already in the lake as crawl CC-MAIN-2024-10"):
        ingest_documents([warc], "CC-MAIN-2024-18", lake, trained, workers=1)
    assert lake_rows(lake, "select crawl, count(*) from documents group by crawl") == [
        ("CC-MAIN-2024-10", 1)
    ]
    (row,) = ingest_documents([warc], "CC-MAIN-2024-18", lake, trained, workers=1, replace=True)
    assert row["crawl"] == "CC-MAIN-2024-18"
    assert lake_rows(lake, "select crawl, count(*) from documents group by crawl") == [
        ("CC-MAIN-2024-18", 1)
    ]
    assert lake_rows(
        lake, "select count(*) from document_scores where crawl = 'CC-MAIN-2024-10'"
    ) == [(0,)]


@pytest.mark.parametrize("crawl", ["CC-MAIN-2024-1O", "*", "CC-MAIN-2024-10\n", "", "crawl=A"])
def test_documents_crawl_must_be_a_crawl_id(trained, tmp_path: Path, crawl: str):
    warc = warc_with(
        tmp_path / "one.warc.gz",
        [("<urn:uuid:00000000-0000-4000-8000-000000000301>", "http://x.example.org/", _HTML)],
    )
    with pytest.raises(DocumentIngestError, match="not a crawl id"):
        ingest_documents([warc], crawl, tmp_path / "lake", trained, workers=1)
    assert not (tmp_path / "lake").exists()


@pytest.mark.parametrize(
    "content",
    [b"", b"<html><body>a page, not an archive</body></html>", gzip.compress(b"plain text\n" * 9)],
    ids=["empty", "html", "gzipped-text"],
)
def test_a_file_that_is_no_warc_is_refused_and_the_others_are_ingested(
    trained, tmp_path: Path, content: bytes
):
    """Finding 9: such a file used to be committed with exit 0 and nothing read. Now it is
    refused, named, and the other files still run (finding 7)."""
    good = warc_with(
        tmp_path / "good.warc.gz",
        [("<urn:uuid:00000000-0000-4000-8000-000000000401>", "http://x.example.org/", _HTML)],
    )
    bad = tmp_path / "bad.warc.gz"
    bad.write_bytes(content)
    lake = tmp_path / "lake"
    with pytest.raises(DocumentIngestError, match=f"^{bad}: not a WARC or WET file"):
        ingest_documents([bad, good], CRAWL, lake, trained, workers=1)
    (row,) = lake_rows(lake, "select source_file, records_written from manifest")
    assert row == (str(good), 1)


def test_quotes_and_brackets_in_paths_are_data(trained, tmp_path: Path):
    """Finding 12: a lake path with ' broke the second run (SQL built by an f-string); an input
    named with [1] was read as a glob."""
    folder = tmp_path / "it's [1]"
    folder.mkdir()
    lake = folder / "lake's"
    warc = warc_with(
        folder / "crawl [1].warc.gz",
        [("<urn:uuid:00000000-0000-4000-8000-000000000501>", "http://x.example.org/", _HTML)],
    )
    decoy = folder / "crawl 1.warc.gz"  # what the glob [1] would match
    shutil.copy(REAL_DATA / "warcio-examples" / "example.warc.gz", decoy)
    files = expand_inputs([str(warc)])
    assert files == [warc]
    (first,) = ingest_documents(files, CRAWL, lake, trained, workers=1)
    assert first["records_written"] == 1
    second = warc_with(
        folder / "more [2].warc.gz",
        [("<urn:uuid:00000000-0000-4000-8000-000000000501>", "http://x.example.org/2", _HTML)],
    )
    (again,) = ingest_documents([second], CRAWL, lake, trained, workers=1)
    assert dict(again["rejected_by_reason"]) == {"duplicate_record_id": 1}


@pytest.mark.parametrize("fault", [None, "part_rename", "manifest_rename"])
def test_a_replace_keeps_the_old_copy_until_the_new_one_is_committed(
    trained, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str | None
):
    """A file moved to another crawl with ``replace``: its rows are not duplicates of their own
    old copy, and a commit that fails (a read-only partition, a full disk at the manifest)
    leaves the old copy committed, whole, and names the input."""
    pages = [(f"<urn:uuid:00000000-0000-4000-8000-{n:012d}>", f"http://h{n}.example.org/", html)
             for n, html in enumerate([b"<html><body><p>" + b"Bridges and rivers. " * 40
                                       + b"</p></body></html>"] * 3)]  # fmt: skip
    warc = warc_with(tmp_path / "moved.warc.gz", pages)
    lake = tmp_path / "lake"
    ingest_documents([warc], "CC-MAIN-2024-10", lake, trained[:1], workers=1)
    query = "select crawl, doc_id from documents order by doc_id"
    before = lake_rows(lake, query)
    assert [crawl for crawl, _ in before] == ["CC-MAIN-2024-10"] * 3
    if fault is not None:
        real_replace = os.replace

        def refusing(source, target, *args, **kwargs):
            target = Path(target)
            if fault == "part_rename" and target.parent.name == "crawl=CC-MAIN-2024-18":
                raise OSError(30, "Read-only file system", str(target))
            if fault == "manifest_rename" and target.parent.parent.name == "_manifest":
                raise OSError(28, "No space left on device", str(source))
            return real_replace(source, target, *args, **kwargs)

        with monkeypatch.context() as patch:
            patch.setattr(os, "replace", refusing)
            with pytest.raises(LakeError, match=r"moved\.warc\.gz: cannot commit"):
                ingest_documents([warc], "CC-MAIN-2024-18", lake, trained[:1], replace=True)
        assert lake_rows(lake, query) == before
        assert not list(lake.rglob("*.tmp")) and not list(lake.glob("*/crawl=CC-MAIN-2024-18/*"))
    (row,) = ingest_documents([warc], "CC-MAIN-2024-18", lake, trained[:1], replace=True)
    assert row["records_written"] == 3 and not row["rejected_by_reason"]
    assert lake_rows(lake, query) == [("CC-MAIN-2024-18", doc_id) for _, doc_id in before]
    assert not list(lake.glob("*/crawl=CC-MAIN-2024-10/*"))
