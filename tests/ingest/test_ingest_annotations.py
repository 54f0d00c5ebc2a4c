"""`ingest.annotations`: quality annotations read under explicit profiles, into the lake.

The real-format fixtures are in ``tests/fixtures/real/annotations`` (SOURCES.md there): Common
Crawl's URL- and host-level GneissWeb annotations, data-prep-kit's GneissWeb transform output
(its test data, byte for byte), FineWeb-Edu rows.
"""

from __future__ import annotations

import csv
import math
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from ingest import schemas
from ingest.__main__ import main
from ingest.annotation_profiles import PROFILES, detect_profile
from ingest.annotations import ingest_annotations
from ingest.hosts import surt_host_name
from ingest.lake import LakeError, manifest_rows

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real" / "annotations"
CC_URLS = REAL / "cc_gneissweb_urls" / "crawl=CC-MAIN-2024-22" / "part-00000.parquet"
CC_HOSTS = REAL / "cc_gneissweb_hosts" / "crawl=CC-MAIN-2024-18" / "part-00000.parquet"
DPK = REAL / "dpk_gneissweb_classification_test_01.parquet"
FINEWEB_EDU = REAL / "fineweb_edu" / "part-00000.parquet"
CRAWL = "CC-MAIN-2024-10"


def _landed(lake: Path, row: dict) -> list[dict]:
    return [
        landed for part in row["output_files"] for landed in pq.read_table(lake / part).to_pylist()
    ]


def _file(path: Path, rows: list[dict] | pa.Table, schema: pa.Schema | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    table = rows if isinstance(rows, pa.Table) else pa.Table.from_pylist(rows, schema=schema)
    pq.write_table(table, path)
    return path


def _edu(number: int, **changes) -> dict:
    row = {
        "id": f"<urn:uuid:00000000-0000-4000-8000-{number:012d}>",
        "dump": CRAWL,
        "url": f"https://www.Example{number}.com/page/{number}.html",
        "language": "en",
        "language_score": 0.9,
        "score": 2.75,
        "int_score": 3,
    }
    row.update(changes)
    return row


def _cc_url(number: int, **changes) -> dict:
    row = {
        "url_surtkey": f"com,example{number})/page/{number}",
        "fetch_time": datetime(2024, 3, 1, 12, 0, number % 60, tzinfo=UTC),
        "in_gneissweb": number % 2 == 0,
        "gneissweb_technology": 0.1,
        "gneissweb_science": 0.2,
        "gneissweb_education": 0.3,
        "gneissweb_medical": 0.4,
    }
    row.update(changes)
    return row


def test_every_profile_has_a_row_in_the_seed_and_no_other():
    with (ROOT / "seeds" / "annotation_profiles.csv").open(newline="") as handle:
        seed = {row["annotation_profile"]: row for row in csv.DictReader(handle)}
    assert set(seed) == set(PROFILES)
    for name, profile in PROFILES.items():
        assert seed[name]["annotation_level"] == profile.level
        assert seed[name]["source"] == profile.source
        assert seed[name]["title"] == profile.title


def test_common_crawls_url_level_annotations_land_keyed_by_surt_key_and_fetch_time(
    tmp_path: Path,
):
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([CC_URLS], lake)
    assert row["lake_table"] == "page_annotations"
    assert row["crawl"] == "CC-MAIN-2024-22"  # from the crawl= folder: the file has no column
    assert (row["records_read"], row["records_written"]) == (5, 5)
    assert pq.read_schema(lake / row["output_files"][0]) == schemas.PAGE_ANNOTATIONS
    landed = {page["page_key"]: page for page in _landed(lake, row)}
    escopete = landed["org,wikipedia,an)/wiki/escopete 2024-05-18T01:58:10.000000Z"]
    assert escopete["surt_host_name"] == surt_host_name("https://an.wikipedia.org/wiki/Escopete")
    assert escopete["fetch_time"] == datetime(2024, 5, 18, 1, 58, 10, tzinfo=UTC)
    assert escopete["annotation_profile"] == "cc_gneissweb_urls"
    assert escopete["in_gneissweb"] is False
    assert (escopete["technology_score"], escopete["medical_score"]) == (0.01, 0.05)
    assert escopete["doc_id"] is None and escopete["url"] is None
    assert escopete["quality_score"] is None  # Common Crawl's signal is in_gneissweb alone
    # Two captures of one URL are two pages; a port is not part of the host key.
    blog = [key for key in landed if key.startswith("org,commoncrawl)/blog ")]
    assert len(blog) == 2
    assert landed["com,example:8080)/a?b=c 2024-05-22T00:00:01.000000Z"]["surt_host_name"] == (
        "com,example"
    )


def test_common_crawls_host_level_annotations_land_in_their_own_table(tmp_path: Path):
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([CC_HOSTS], lake)
    assert (row["lake_table"], row["crawl"]) == ("host_annotations", "CC-MAIN-2024-18")
    landed = {host["surt_host_name"]: host for host in _landed(lake, row)}
    assert set(landed) == {"abb,careers", "abb,global", "abb,new"}
    careers = landed["abb,careers"]
    assert careers == {
        "surt_host_name": "abb,careers",
        "annotation_profile": "cc_gneissweb_hosts",
        "in_gneissweb": True,
        "medical_score": 0.06258945873317619,
        "education_score": 0.5419631389280161,
        "technology_score": 0.3591726745168368,
        "science_score": 0.033660448951801904,
    }
    assert manifest_rows(lake, "page_annotations") == []


def test_data_prep_kits_real_output_without_a_quality_column_is_refused():
    """Its test output has the medical classifier only (`label_med`, `score`): no quality."""
    with pytest.raises(LakeError) as refused:
        ingest_annotations([DPK], Path("/nonexistent/lake"))
    message = str(refused.value)
    assert message.startswith(f"{DPK}: matches no annotation profile")
    assert "label_med" in message  # what it has
    assert "cosmo_fastText_label or label_quality" in message  # what dpk_gneissweb needs


def test_data_prep_kit_scores_are_the_predicted_labels_probability(tmp_path: Path):
    """A `cc` page at 0.994 has P(hq) = 0.006; an `hq` page at 0.9 has 0.9 (not the reverse).

    The real rows' medical label and score (data-prep-kit's convention: the label without
    `__label__`, the predicted label's probability floored to 3 decimals) are read as the
    quality annotator's, under the transform's default column names.
    """
    real = pq.read_table(DPK).drop_columns(["text"])
    assert set(real.column("label_med").to_pylist()) == {"cc"}
    table = real.rename_columns(
        [
            "label_quality" if n == "label_med" else "score_quality" if n == "score" else n
            for n in real.column_names
        ]
    )
    extra = table.slice(0, 4)
    extra = extra.set_column(
        extra.schema.get_field_index("label_quality"),
        "label_quality",
        pa.array(["hq", "__label__hq", "cc", "spam"]),
    ).set_column(
        extra.schema.get_field_index("score_quality"),
        "score_quality",
        pa.array([0.9, 0.75, 0.4, 0.9]),
    )
    extra = extra.set_column(
        extra.schema.get_field_index("id"), "id", pc.binary_join_element_wise(extra["id"], "x", "")
    )
    path = _file(
        tmp_path / "crawl=CC-MAIN-2023-14" / "dpk.parquet", pa.concat_tables([table, extra])
    )
    lake = tmp_path / "lake"
    with pytest.raises(LakeError, match="2 of 19 records rejected"):
        ingest_annotations([path], lake)
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.2)
    assert row["crawl"] == "CC-MAIN-2023-14"  # the rows' dump
    assert dict(row["rejected_by_reason"]) == {
        "score_not_predicted_label_probability": 1,  # a binary model's top label has >= 0.5
        "unknown_label": 1,
    }
    landed = _landed(lake, row)
    real_scores = dict(zip(real["score"].to_pylist(), real["label_med"].to_pylist(), strict=True))
    assert real_scores  # 0.994, 0.997, 0.844, 0.876, 0.974: all `cc`
    for page in landed[:15]:
        assert page["annotation_profile"] == "dpk_gneissweb"
        assert page["doc_id"] == page["page_key"]
    probabilities = sorted({round(page["quality_score"], 9) for page in landed[:15]})
    assert probabilities == sorted({round(1 - score, 9) for score in real_scores})
    assert [page["quality_score"] for page in landed[15:]] == [0.9, 0.75]
    assert landed[0]["surt_host_name"] == "cn,pdnews,peoplesdaily"
    assert landed[0]["medical_score"] is None  # the label_med column became the quality one


def test_fineweb_edu_rows_carry_score_over_five_and_int_score(tmp_path: Path):
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([FINEWEB_EDU], lake)
    assert row["crawl"] == "CC-MAIN-2023-14"
    source = pq.read_table(FINEWEB_EDU).to_pylist()
    for page, out in zip(source, _landed(lake, row), strict=True):
        assert out["doc_id"] == out["page_key"] == page["id"]
        assert out["url"] == page["url"]
        assert out["surt_host_name"] == surt_host_name(page["url"])
        assert out["quality_score"] == pytest.approx(page["score"] / 5, abs=1e-15)
        assert out["quality_int_score"] == page["int_score"]
        assert out["language_score"] == page["language_score"]
        assert out["annotation_profile"] == "fineweb_edu"


def test_fineweb_edu_scores_outside_the_scale_are_clipped_or_rejected(tmp_path: Path):
    rows = [
        _edu(1, score=5.4, int_score=5),  # the regression overshoots: clipped to 5
        _edu(2, score=-0.2, int_score=0),
        _edu(3, int_score=6),
        _edu(4, score=math.nan),
        _edu(5, int_score=None),
        _edu(6),
    ]
    path = _file(tmp_path / "x.parquet", rows)
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.6)
    assert dict(row["rejected_by_reason"]) == {"missing_quality": 1, "score_out_of_range": 2}
    assert [page["quality_score"] for page in _landed(lake, row)] == [1.0, 0.0, 0.55]


def test_invalid_rows_are_rejected_once_under_their_first_reason(tmp_path: Path):
    rows = [_edu(number) for number in range(20)]
    rows[1] = _edu(1, id=None)
    rows[2] = _edu(2, id="")
    rows[3] = _edu(3, url="not a url")
    rows[4] = _edu(4, url="https://a..b/")
    rows[5] = _edu(5, dump="CC-MAIN-24")
    rows[6] = _edu(6, dump=None)
    rows[7] = _edu(7, language_score=1.5)
    rows[8] = _edu(8, id=None, url="bad")  # counted once, as its first reason
    path = _file(tmp_path / "x.parquet", rows)
    lake = tmp_path / "lake"
    with pytest.raises(LakeError, match="8 of 20 records rejected"):
        ingest_annotations([path], lake)
    assert manifest_rows(lake, "page_annotations") == []
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.5, batch_rows=3)
    assert dict(row["rejected_by_reason"]) == {
        "missing_key": 3,
        "bad_host": 2,
        "bad_crawl": 2,
        "score_out_of_range": 1,
    }
    assert (row["records_read"], row["records_written"], row["records_rejected"]) == (20, 12, 8)
    kept = sorted(int(page["doc_id"][-13:-1]) for page in _landed(lake, row))
    assert kept == [0, *range(9, 20)]


def test_an_int_score_beyond_float64s_exact_integers_is_out_of_range(tmp_path: Path):
    """2^62 and int64's extremes cannot be cast to float64 exactly: rejected, never a crash."""
    rows = [_edu(number) for number in range(10)]
    for number, value in ((1, 2**62), (2, 2**63 - 1), (3, -(2**63)), (4, 10**12)):
        rows[number] = _edu(number, int_score=value)
    path = _file(tmp_path / "x.parquet", rows)
    (row,) = ingest_annotations([path], tmp_path / "lake", max_reject_rate=0.5)
    assert dict(row["rejected_by_reason"]) == {"score_out_of_range": 4}
    assert (row["records_read"], row["records_written"]) == (10, 6)


def test_bad_surt_keys_and_missing_flags_are_rejected(tmp_path: Path):
    rows = [_cc_url(number) for number in range(10)]
    rows[1] = _cc_url(1, url_surtkey="no-closing-paren")
    rows[2] = _cc_url(2, url_surtkey="com,exa mple)/")
    rows[3] = _cc_url(3, url_surtkey="com,,a)/")
    rows[4] = _cc_url(4, fetch_time=None)
    rows[5] = _cc_url(5, in_gneissweb=None)
    rows[6] = _cc_url(6, gneissweb_medical=1.5)
    path = _file(tmp_path / "crawl=CC-MAIN-2024-10" / "x.parquet", rows, pq.read_schema(CC_URLS))
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.9)
    assert dict(row["rejected_by_reason"]) == {
        "bad_host": 3,
        "missing_key": 1,
        "missing_quality": 1,
        "score_out_of_range": 1,
    }
    assert [page["surt_host_name"] for page in _landed(lake, row)] == [
        "com,example0",
        "com,example7",
        "com,example8",
        "com,example9",
    ]


def test_a_file_whose_quality_column_is_all_null_is_refused(tmp_path: Path):
    rows = [_cc_url(number, in_gneissweb=None) for number in range(5)]
    path = _file(tmp_path / "crawl=CC-MAIN-2024-10" / "x.parquet", rows, pq.read_schema(CC_URLS))
    with pytest.raises(
        LakeError,
        match=r"x\.parquet: profile cc_gneissweb_urls: quality column "
        r"in_gneissweb is null in all 5 rows",
    ):
        ingest_annotations([path], tmp_path / "lake")


def test_a_file_matching_two_profiles_needs_the_profile_named(tmp_path: Path):
    rows = [_edu(1) | {"cosmo_fastText_label": "hq", "cosmo_fastText_score": 0.8}]
    path = _file(tmp_path / "x.parquet", rows)
    with pytest.raises(
        LakeError,
        match=r"matches several annotation profiles "
        r"\(dpk_gneissweb, fineweb_edu\); pass --profile",
    ):
        ingest_annotations([path], tmp_path / "lake")
    (row,) = ingest_annotations([path], tmp_path / "lake", profile="fineweb_edu")
    assert _landed(tmp_path / "lake", row)[0]["quality_int_score"] == 3
    with pytest.raises(LakeError, match="needs the column"):
        detect_profile(path, ["id", "url"], "dpk_gneissweb")
    with pytest.raises(LakeError, match="no annotation profile 'nope'"):
        ingest_annotations([path], tmp_path / "lake", profile="nope")


def test_the_crawl_comes_from_the_rows_else_the_folder_else_the_argument(tmp_path: Path):
    lake = tmp_path / "lake"
    with_dump = _file(tmp_path / "plain" / "a.parquet", [_edu(1, dump="CC-MAIN-2021-04")])
    crawl_column = _file(tmp_path / "b.parquet", [_cc_url(2) | {"crawl": "CC-MAIN-2022-33"}])
    in_folder = _file(
        tmp_path / "crawl=CC-MAIN-2023-06" / "d.parquet", [_cc_url(4)], pq.read_schema(CC_URLS)
    )
    loose = _file(tmp_path / "loose" / "c.parquet", [_cc_url(3)], pq.read_schema(CC_URLS))
    with pytest.raises(LakeError, match=r"c\.parquet: no crawl=<id> folder in the path"):
        ingest_annotations([loose], lake)
    rows = ingest_annotations([with_dump, crawl_column, in_folder], lake)
    assert [row["crawl"] for row in rows] == [
        "CC-MAIN-2021-04",
        "CC-MAIN-2022-33",
        "CC-MAIN-2023-06",
    ]
    (row,) = ingest_annotations([loose], lake, crawl="CC-MAIN-2024-10")
    assert row["crawl"] == "CC-MAIN-2024-10"


def test_a_folder_contradicting_crawl_or_nested_crawl_folders_are_refused(tmp_path: Path):
    """Neither the folder nor --crawl silently wins; nested crawl= folders are ambiguous."""
    lake = tmp_path / "lake"
    in_folder = _file(
        tmp_path / "crawl=CC-MAIN-2023-06" / "d.parquet", [_cc_url(4)], pq.read_schema(CC_URLS)
    )
    with pytest.raises(
        LakeError,
        match=r"d\.parquet: --crawl CC-MAIN-2024-10 contradicts its folder crawl=CC-MAIN-2023-06",
    ):
        ingest_annotations([in_folder], lake, crawl="CC-MAIN-2024-10")
    nested = _file(
        tmp_path / "crawl=CC-MAIN-2023-06" / "crawl=CC-MAIN-2023-14" / "e.parquet",
        [_cc_url(5)],
        pq.read_schema(CC_URLS),
    )
    with pytest.raises(
        LakeError,
        match=r"e\.parquet: nested crawl= folders name different crawls "
        r"\('CC-MAIN-2023-06', 'CC-MAIN-2023-14'\)",
    ):
        ingest_annotations([nested], lake)
    assert manifest_rows(lake, "page_annotations") == []
    (row,) = ingest_annotations([in_folder], lake, crawl="CC-MAIN-2023-06")  # agreeing: fine
    assert row["crawl"] == "CC-MAIN-2023-06"


def test_rows_naming_another_crawl_than_their_folder_are_rejected(tmp_path: Path):
    lake = tmp_path / "lake"
    rows = [_edu(1, dump="CC-MAIN-2021-04"), _edu(2, dump="CC-MAIN-2023-06")]
    path = _file(tmp_path / "crawl=CC-MAIN-2023-06" / "a.parquet", rows)
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.5)
    assert dict(row["rejected_by_reason"]) == {"crawl_mismatch": 1}
    written = pq.read_table(lake / row["output_files"][0]).to_pylist()
    assert [page["doc_id"] for page in written] == [rows[1]["id"]]


def test_a_file_with_two_crawls_lands_in_two_partitions_with_one_manifest_row(tmp_path: Path):
    crawls = ["CC-MAIN-2021-04", "CC-MAIN-2021-49"]
    rows = [_edu(number, dump=crawls[number % 2]) for number in range(10)]
    path = _file(tmp_path / "x.parquet", rows)
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([path], lake, batch_rows=3)
    assert row["crawl"] == ",".join(crawls)
    assert row["output_files"] == [
        f"page_annotations/crawl={crawl}/part-{row['part_key']}.parquet" for crawl in crawls
    ]
    for index, part in enumerate(row["output_files"]):
        ids = [page["doc_id"] for page in pq.read_table(lake / part).to_pylist()]
        assert ids == [rows[number]["id"] for number in range(index, 10, 2)]


def test_rerun_is_a_no_op_and_a_crash_before_the_commit_is_redone(tmp_path: Path, monkeypatch):
    lake = tmp_path / "lake"
    inputs = [CC_URLS, CC_HOSTS, FINEWEB_EDU]
    assert len(ingest_annotations(inputs, lake)) == 3
    before = {path: path.read_bytes() for path in lake.rglob("*") if path.is_file()}
    assert ingest_annotations(inputs, lake) == []
    assert {path: path.read_bytes() for path in lake.rglob("*") if path.is_file()} == before

    other = tmp_path / "other"

    def crash(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("ingest.lake_manifest.commit_manifest", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest_annotations([FINEWEB_EDU], other)
    assert manifest_rows(other, "page_annotations") == []
    monkeypatch.undo()
    (row,) = ingest_annotations([FINEWEB_EDU], other)
    assert len(list((other / "page_annotations").rglob("*.parquet"))) == 1
    assert len(_landed(other, row)) == 5


def test_the_cli_refuses_an_unknown_profile_in_one_line(tmp_path: Path, capsys):
    code = main(
        ["annotations", "--path", str(FINEWEB_EDU), "--lake", str(tmp_path), "--profile", "x"]
    )
    assert code == 2
    assert capsys.readouterr().err.strip() == (
        "python -m ingest annotations: error: no annotation profile 'x'; the profiles are "
        "cc_gneissweb_urls, cc_gneissweb_hosts, dpk_gneissweb, fineweb_edu, dclm_baseline, "
        "fineweb2_hq, fineweb_edu_datatrove"
    )


def test_host_keys_follow_the_one_host_key_rule_at_host_level(tmp_path: Path):
    """Taken as written (not lower-cased): the same rule the document ingest applies."""
    source = pq.read_table(CC_HOSTS)
    keys = ["Abb,Careers", "abb,exa mple", "abb,b,,a", "%41", "abb,", "abb," + "a" * 64]
    keys += ["abb,careers", "abb,-x_y"]
    table = pa.Table.from_pylist(
        [source.slice(0, 1).to_pylist()[0] | {"surt_host_name": key} for key in keys],
        schema=source.schema,
    )
    path = _file(tmp_path / "crawl=CC-MAIN-2024-18" / "h.parquet", table)
    (row,) = ingest_annotations([path], tmp_path / "lake", max_reject_rate=1.0)
    assert dict(row["rejected_by_reason"]) == {"bad_host": 6}
    assert sorted(host["surt_host_name"] for host in _landed(tmp_path / "lake", row)) == [
        "abb,-x_y",
        "abb,careers",
    ]


def test_a_file_in_the_lake_under_another_crawl_folder_is_refused_unless_replaced(tmp_path: Path):
    """Finding 4: a file copied under a second crawl= folder used to be skipped by checksum."""
    lake = tmp_path / "lake"
    schema = pq.read_schema(CC_URLS)
    first = _file(tmp_path / "crawl=CC-MAIN-2023-06" / "d.parquet", [_cc_url(4)], schema)
    (row,) = ingest_annotations([first], lake)
    assert row["crawl"] == "CC-MAIN-2023-06"
    moved = tmp_path / "crawl=CC-MAIN-2023-14" / "d.parquet"
    moved.parent.mkdir()
    shutil.copy(first, moved)
    with pytest.raises(LakeError, match=r"already in the lake as crawl CC-MAIN-2023-06"):
        ingest_annotations([moved], lake)
    assert ingest_annotations([first], lake) == []
    (row,) = ingest_annotations([moved], lake, replace=True)
    assert row["crawl"] == "CC-MAIN-2023-14"
    crawls = pq.read_table(lake / "page_annotations").column("crawl").to_pylist()
    assert crawls == ["CC-MAIN-2023-14"]
