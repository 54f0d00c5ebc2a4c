"""`ingest.annotations`: GneissWeb/FineWeb annotation Parquet -> lake `page_annotations`."""

from __future__ import annotations

import math
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ingest import schemas
from ingest.annotations import SOURCE_NAMES, ingest_annotations
from ingest.hosts import surt_host_name
from ingest.lake import LakeError, manifest_rows
from ingest.synth.config import CRAWLS
from tests.conftest import Crawl

CRAWL = "CC-MAIN-2024-10"


def _inputs(crawl: Crawl) -> list[Path]:
    return sorted((crawl.root / "gneissweb-annotations").glob("crawl=*/*.parquet"))


def _landed(lake: Path, row: dict) -> list[dict]:
    return [
        landed for part in row["output_files"] for landed in pq.read_table(lake / part).to_pylist()
    ]


def _page(number: int, **changes) -> dict:
    page = {
        "id": f"<urn:uuid:00000000-0000-4000-8000-{number:012d}>",
        "dump": CRAWL,
        "url": f"https://www.Example{number}.com/page/{number}.html",
        "url_surtkey": f"com,example{number})/page/{number}.html",
        "language": "en",
        "language_score": 0.9,
        "cosmo_fastText_label": "hq",
        "cosmo_fastText_score": 0.5,
        "dclm_fastText_label": "cc",
        "dclm_fastText_score": 0.01,
        "medical_label": "cc",
        "medical_score": 0.1,
        "education_label": "education",
        "education_score": 0.7,
        "technology_computing_label": "cc",
        "technology_computing_score": 0.2,
        "science_label": "cc",
        "science_score": 0.3,
        "mcalpine_eflaw_textstat": 25.0,
        "tokens_per_doc_num_chars": 0.25,
        "in_gneissweb": True,
    }
    page.update(changes)
    return page


def _file(path: Path, pages: list[dict], drop: tuple[str, ...] = ()) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(pages)
    pq.write_table(table.drop_columns(list(drop)), path)
    return path


def test_tiny_crawl_annotations_land_per_crawl(tiny_crawl: Crawl, tmp_path: Path):
    lake = tmp_path / "lake"
    inputs = _inputs(tiny_crawl)
    rows = ingest_annotations(inputs, lake, batch_rows=500)
    assert {row["crawl"] for row in rows} == set(CRAWLS)
    assert len(rows) == len(inputs) == 7  # CC-MAIN-2024-10 has two files
    for path, row in zip(inputs, rows, strict=True):
        source = pq.read_table(path).to_pylist()
        crawl = path.parent.name.removeprefix("crawl=")
        assert {page["dump"] for page in source} == {row["crawl"]} == {crawl}
        assert row["records_read"] == row["records_written"] == len(source) > 0
        assert row["rejected_by_reason"] == []
        assert row["schema_drift"] == ["missing column in_gneissweb: read as null"]
        assert row["output_files"] == [
            f"page_annotations/crawl={crawl}/part-{row['part_key']}.parquet"
        ]
        assert pq.read_schema(lake / row["output_files"][0]) == schemas.PAGE_ANNOTATIONS
        landed = _landed(lake, row)
        assert len(landed) == len(source)
        for page, out in zip(source, landed, strict=True):
            assert out["doc_id"] == page["id"] and out["url"] == page["url"]
            assert out["surt_host_name"] == surt_host_name(page["url"])  # the scalar reference
            assert out["url_surtkey"] == page["url_surtkey"]
            for column in schemas.PAGE_ANNOTATIONS.names:
                source_column = SOURCE_NAMES.get(column, column)
                if source_column in page and column != "doc_id":
                    assert out[column] == page[source_column], column
            assert out["in_gneissweb"] is None
    assert sum(row["records_written"] for row in rows) == sum(
        item["annotated_page_count"] for item in tiny_crawl.truth["coverage"]
    )


def test_the_crawl_comes_from_dump_else_folder_else_the_crawl_argument(tmp_path: Path):
    lake = tmp_path / "lake"
    folder = tmp_path / "crawl=CC-MAIN-2023-06"
    with_dump = _file(folder / "a.parquet", [_page(1, dump="CC-MAIN-2021-04")])
    without_dump = _file(folder / "b.parquet", [_page(2)], drop=("dump",))
    loose = _file(tmp_path / "loose" / "c.parquet", [_page(3)], drop=("dump",))
    with pytest.raises(LakeError, match=r"c\.parquet: no crawl=<id> folder in the path"):
        ingest_annotations([loose], lake)
    rows = ingest_annotations([with_dump, without_dump, loose], lake, crawl="CC-MAIN-2022-33")
    assert [row["crawl"] for row in rows] == [
        "CC-MAIN-2021-04",
        "CC-MAIN-2023-06",
        "CC-MAIN-2022-33",
    ]
    assert [row["output_files"][0].split("/")[1] for row in rows] == [
        "crawl=CC-MAIN-2021-04",
        "crawl=CC-MAIN-2023-06",
        "crawl=CC-MAIN-2022-33",
    ]
    assert rows[0]["schema_drift"] == []
    assert rows[1]["schema_drift"] == []  # a missing dump is no drift: the folder names it
    with pytest.raises(LakeError, match=r"not a crawl id: 'CC-MAIN-2024'"):
        ingest_annotations([loose], lake, crawl="CC-MAIN-2024")


def test_invalid_rows_are_rejected_by_reason(tmp_path: Path):
    pages = [_page(number) for number in range(30)]
    pages[1] = _page(1, id=None)
    pages[2] = _page(2, id="")
    pages[3] = _page(3, url="not a url")
    pages[4] = _page(4, url="http:///no-host")
    pages[5] = _page(5, url="https://a..b/")
    pages[6] = _page(6, url=None)
    pages[7] = _page(7, dump="CC-MAIN-24")
    pages[8] = _page(8, dump=None)
    pages[9] = _page(9, cosmo_fastText_score=1.5)
    pages[10] = _page(10, dclm_fastText_score=math.nan)
    pages[11] = _page(11, medical_score=-0.1)
    pages[12] = _page(12, language_score=1.01)
    pages[13] = _page(13, id=None, url="bad")  # counted once, as its first reason
    pages[14] = _page(14, url="bad", cosmo_fastText_score=2.0)
    pages[15] = _page(15, cosmo_fastText_score=None)  # null scores are fine
    pages[16] = _page(16, cosmo_fastText_score=0.0, dclm_fastText_score=1.0)  # so are 0 and 1
    path = _file(tmp_path / "x.parquet", pages)
    lake = tmp_path / "lake"
    with pytest.raises(LakeError, match="14 of 30 records rejected"):
        ingest_annotations([path], lake)
    assert manifest_rows(lake, "page_annotations") == []
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.5, batch_rows=4)
    assert dict(row["rejected_by_reason"]) == {
        "missing_id": 3,
        "bad_url": 5,
        "bad_crawl": 2,
        "score_out_of_range": 4,
    }
    assert (row["records_read"], row["records_written"], row["records_rejected"]) == (30, 16, 14)
    kept = sorted(int(page["doc_id"][-13:-1]) for page in _landed(lake, row))
    assert kept == [0, *range(15, 30)]


def test_missing_optional_columns_are_null_and_reported(tmp_path: Path):
    path = _file(
        tmp_path / "x.parquet",
        [_page(1), _page(2)],
        drop=("in_gneissweb", "url_surtkey", "language_score"),
    )
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([path], lake)
    assert sorted(row["schema_drift"]) == [
        "missing column in_gneissweb: read as null",
        "missing column language_score: read as null",
        "missing column url_surtkey: read as null",
    ]
    landed = _landed(lake, row)
    assert [page["surt_host_name"] for page in landed] == ["com,example1", "com,example2"]
    assert all(page["in_gneissweb"] is None and page["url_surtkey"] is None for page in landed)
    assert [page["cosmo_fasttext_score"] for page in landed] == [0.5, 0.5]


def test_in_gneissweb_is_kept_when_present(tmp_path: Path):
    path = _file(
        tmp_path / "x.parquet", [_page(1, in_gneissweb=True), _page(2, in_gneissweb=False)]
    )
    (row,) = ingest_annotations([path], tmp_path / "lake")
    assert row["schema_drift"] == []
    assert [page["in_gneissweb"] for page in _landed(tmp_path / "lake", row)] == [True, False]


@pytest.mark.parametrize("column", ["url", "id"])
def test_a_missing_required_column_is_refused(tmp_path: Path, column: str):
    path = _file(tmp_path / "x.parquet", [_page(1)], drop=(column,))
    with pytest.raises(LakeError, match=rf"x\.parquet: required column '{column}' is missing"):
        ingest_annotations([path], tmp_path / "lake")


def test_a_score_stored_as_text_is_refused(tmp_path: Path):
    path = _file(tmp_path / "x.parquet", [_page(1, cosmo_fastText_score="0.5")])
    with pytest.raises(LakeError, match=r"column 'cosmo_fastText_score' is string"):
        ingest_annotations([path], tmp_path / "lake")


def test_a_file_with_two_dumps_lands_in_two_partitions_with_one_manifest_row(tmp_path: Path):
    pages = [_page(number, dump=CRAWLS[number % 2]) for number in range(10)]
    pages.append(_page(10, dump="bad"))
    path = _file(tmp_path / "x.parquet", pages)
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.1, batch_rows=3)
    assert row["crawl"] == f"{CRAWLS[0]},{CRAWLS[1]}"
    assert row["output_files"] == [
        f"page_annotations/crawl={crawl}/part-{row['part_key']}.parquet" for crawl in CRAWLS[:2]
    ]
    assert len(manifest_rows(lake, "page_annotations")) == 1
    assert dict(row["rejected_by_reason"]) == {"bad_crawl": 1}
    for index, part in enumerate(row["output_files"]):
        ids = [page["doc_id"] for page in pq.read_table(lake / part).to_pylist()]
        assert ids == [pages[number]["id"] for number in range(index, 10, 2)]


def test_rerun_is_a_no_op(tiny_crawl: Crawl, tmp_path: Path):
    lake = tmp_path / "lake"
    inputs = _inputs(tiny_crawl)[:2]
    assert len(ingest_annotations(inputs, lake)) == 2
    before = {path: path.read_bytes() for path in lake.rglob("*") if path.is_file()}
    assert ingest_annotations(inputs, lake) == []
    assert {path: path.read_bytes() for path in lake.rglob("*") if path.is_file()} == before


def test_crash_before_the_manifest_then_rerun(tmp_path: Path, monkeypatch):
    path = _file(tmp_path / "x.parquet", [_page(number) for number in range(5)])
    lake = tmp_path / "lake"

    def crash(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("ingest.annotations.commit_manifest", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest_annotations([path], lake)
    assert manifest_rows(lake, "page_annotations") == []
    monkeypatch.undo()
    (row,) = ingest_annotations([path], lake)
    assert len(list((lake / "page_annotations").rglob("*.parquet"))) == 1
    assert len(_landed(lake, row)) == 5
