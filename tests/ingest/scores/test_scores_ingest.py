"""`python -m ingest scores`: precomputed classifiers' scores from Parquet/CSV files into the lake.

The documents they score are committed to the lake first, either by the document ingest (real
Common Crawl pages, scored there by lid.176 as a registry classifier) or, for the edge cases,
written through the lake protocol directly (``conftest.py``). What lands, from where the crawl
comes, reruns and replacing; the rejections and refusals are in ``test_scores_refusals.py``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ingest import schemas
from ingest.__main__ import main
from ingest.lake import (
    LakeError,
    file_key,
    manifest_rows,
    sha256_of,
)
from ingest.scores import ScoresIngestError, ingest_scores
from tests.ingest.scores.lakes import (
    CRAWL,
    LATER,
    REAL_CRAWL,
    _commit_documents,
    _committed_scores,
    _csv,
    _id,
    _reasons,
)


def test_the_document_ingest_skips_precomputed_classifiers(real_lake: Path):
    documents = duckdb.sql(
        f"select count(*) from read_parquet('{real_lake}/documents/*/*.parquet')"
    ).fetchall()[0][0]
    scores = _committed_scores(real_lake)
    assert documents == 16
    assert {classifier for _, classifier, _, _ in scores} == {"lid176_english"}
    assert len(scores) == 16
    english = [score for _, _, _, score in scores]
    assert all(0 <= score <= 1 for score in english) and max(english) > 0.5


def test_real_pages_are_scored_by_url(real_lake: Path, entries, tmp_path: Path):
    lake = Path(shutil.copytree(real_lake, tmp_path / "lake"))
    pages = duckdb.sql(
        f"select doc_id, url from read_parquet('{lake}/documents/*/*.parquet') order by url"
    ).fetchall()
    rows = [["url", "score"]] + [[url, f"{index / 4:.2f}"] for index, (_, url) in enumerate(pages)]
    path = _csv(tmp_path / "bert.csv", rows)
    (manifest,) = ingest_scores(
        [path], lake, entries, classifier="fineweb_edu_bert", crawl=REAL_CRAWL
    )
    assert (manifest["records_read"], manifest["records_written"]) == (16, 16)
    assert manifest["crawl"] == REAL_CRAWL and manifest["lake_table"] == "document_scores"
    expected = [
        (doc_id, "fineweb_edu_bert", REAL_CRAWL, round(min(index / 4, 5.0) / 5, 12))
        for index, (doc_id, _) in enumerate(pages)
    ]
    assert _committed_scores(lake, "fineweb_edu_bert") == sorted(expected)
    assert len(_committed_scores(lake)) == 32  # beside lid.176's, nothing replaced


def test_parquet_rows_by_id_land_with_their_scores_mapped(lake: Path, entries, tmp_path: Path):
    path = tmp_path / "fineweb_edu.parquet"
    pq.write_table(
        pa.table(
            {  # FineWeb-Edu's own columns: id, dump, url, score (raw regression), int_score
                "text": ["…"] * 5,
                "id": [_id(1), _id(2), _id(3), _id(4), _id(8)],
                "dump": [CRAWL] * 5,
                "url": ["ignored"] * 5,
                "score": [3.5, 6.25, -0.25, 2.5, 4.0],
                "int_score": [4, 5, 0, 2, 4],
            }
        ),
        path,
    )
    (manifest,) = ingest_scores([path], lake, entries, classifier="fineweb_edu_bert")
    assert manifest["records_read"] == 5
    assert manifest["records_written"] == 4
    assert _reasons(manifest) == {"unknown_document": 1}
    assert manifest["crawl"] == CRAWL
    key = file_key(sha256_of(path))
    assert manifest["output_files"] == [f"document_scores/crawl={CRAWL}/part-{key}.parquet"]
    assert manifest["schema_drift"] == [
        "column id read as doc_id (the WARC-Record-ID)",
        "column dump read as crawl",
    ]
    assert _committed_scores(lake, "fineweb_edu_bert") == [
        (_id(1), "fineweb_edu_bert", CRAWL, 0.7),
        (_id(2), "fineweb_edu_bert", CRAWL, 1.0),  # clipped to 5
        (_id(3), "fineweb_edu_bert", CRAWL, 0.0),  # clipped to 0
        (_id(4), "fineweb_edu_bert", CRAWL, 0.5),  # int_score 2: not above 0.5
    ]
    part = pq.read_table(lake / manifest["output_files"][0])
    assert part.schema == schemas.DOCUMENT_SCORES


def test_csv_rows_by_url_resolve_to_the_crawls_documents(lake: Path, entries, tmp_path: Path):
    path = _csv(
        tmp_path / "team.csv",
        [
            ["url", "crawl", "classifier", "score"],
            ["https://a.example/1", CRAWL, "prob_model", "0.25"],
            ["https://a.example/1", LATER, "prob_model", "0.75"],  # the other capture: d5
            ["https://a.example/2", CRAWL, "fineweb_edu_bert", "1.5"],
            ["https://a.example/2", CRAWL, "prob_model", "1"],
        ],
    )
    (manifest,) = ingest_scores([path], lake, entries)
    assert (manifest["records_read"], manifest["records_written"]) == (4, 4)
    assert manifest["crawl"] == f"{CRAWL},{LATER}"
    assert len(manifest["output_files"]) == 2
    assert _committed_scores(lake, "prob_model") == [
        (_id(1), "prob_model", CRAWL, 0.25),
        (_id(2), "prob_model", CRAWL, 1.0),
        (_id(5), "prob_model", LATER, 0.75),
    ]
    assert _committed_scores(lake, "fineweb_edu_bert") == [(_id(2), "fineweb_edu_bert", CRAWL, 0.3)]


def test_the_crawl_comes_from_the_folder_or_the_flag(lake: Path, entries, tmp_path: Path):
    folder = tmp_path / f"crawl={LATER}"
    folder.mkdir()
    by_folder = _csv(folder / "a.csv", [["url", "score"], ["https://a.example/1", "0.5"]])
    by_flag = _csv(tmp_path / "b.csv", [["url", "score"], ["https://a.example/2", "0.5"]])
    with pytest.raises(  # neither the folder nor the flag silently wins
        ScoresIngestError, match=rf"a\.csv: --crawl {CRAWL} contradicts its folder crawl={LATER}"
    ):
        ingest_scores([by_folder], lake, entries, classifier="prob_model", crawl=CRAWL)
    rows = ingest_scores([by_folder], lake, entries, classifier="prob_model")
    rows += ingest_scores([by_flag], lake, entries, classifier="prob_model", crawl=CRAWL)
    assert [row["crawl"] for row in rows] == [LATER, CRAWL]
    assert _committed_scores(lake, "prob_model") == [
        (_id(2), "prob_model", CRAWL, 0.5),
        (_id(5), "prob_model", LATER, 0.5),
    ]


def test_nested_crawl_folders_or_a_crawl_column_against_the_flag_are_refused(
    lake: Path, entries, tmp_path: Path
):
    nested = tmp_path / f"crawl={CRAWL}" / f"crawl={LATER}"
    nested.mkdir(parents=True)
    inner = _csv(nested / "n.csv", [["url", "score"], ["https://a.example/1", "0.5"]])
    with pytest.raises(ScoresIngestError, match=r"n\.csv: nested crawl= folders name different"):
        ingest_scores([inner], lake, entries, classifier="prob_model")
    column = _csv(
        tmp_path / "c.csv", [["url", "crawl", "score"], ["https://a.example/1", LATER, "0.5"]]
    )
    with pytest.raises(
        ScoresIngestError, match=rf"c\.csv: its crawl column names {LATER}, but its folder or "
    ):
        ingest_scores([column], lake, entries, classifier="prob_model", crawl=CRAWL)
    assert manifest_rows(lake, "document_scores") == []


def test_a_rerun_writes_nothing_twice(lake: Path, entries, tmp_path: Path):
    rows = [["url", "score"], ["https://a.example/1", "0.5"], ["https://a.example/2", "0.5"]]
    path = _csv(tmp_path / "scores.csv", rows)
    assert len(ingest_scores([path], lake, entries, classifier="prob_model", crawl=CRAWL)) == 1
    assert ingest_scores([path], lake, entries, classifier="prob_model", crawl=CRAWL) == []
    # The same scores in another file (another checksum) are duplicates: nothing to write.
    copy = _csv(tmp_path / "copy.csv", [*rows, []])
    with pytest.raises(ScoresIngestError, match=r"copy\.csv: 2 of 2 rows rejected .*duplicate"):
        ingest_scores([copy], lake, entries, classifier="prob_model", crawl=CRAWL)
    with pytest.raises(ScoresIngestError, match=r"copy\.csv: none of its 2 rows was written"):
        ingest_scores(
            [copy], lake, entries, classifier="prob_model", crawl=CRAWL, max_reject_rate=1.0
        )
    more = _csv(tmp_path / "more.csv", [*rows, ["https://a.example/3", "0.5"]])
    (manifest,) = ingest_scores(
        [more], lake, entries, classifier="prob_model", crawl=CRAWL, max_reject_rate=1.0
    )
    assert _reasons(manifest) == {"duplicate_score": 2}
    assert _committed_scores(lake, "prob_model") == [
        (_id(n), "prob_model", CRAWL, 0.5) for n in (1, 2, 3)
    ]
    assert len(manifest_rows(lake, "document_scores")) == 2


def test_replace_ingests_a_file_again_once_its_documents_are_in(
    lake: Path, entries, tmp_path: Path
):
    path = _csv(
        tmp_path / "early.csv",
        [["url", "score"], ["https://a.example/1", "0.5"], ["https://a.example/7", "0.5"]],
    )
    (early,) = ingest_scores([path], lake, entries, classifier="prob_model", crawl=CRAWL)
    assert _reasons(early) == {"unknown_document": 1}
    _commit_documents(lake, "late", CRAWL, [(_id(7), "https://a.example/7")])
    assert ingest_scores([path], lake, entries, classifier="prob_model", crawl=CRAWL) == []
    (again,) = ingest_scores(
        [path], lake, entries, classifier="prob_model", crawl=CRAWL, replace=True
    )
    assert (again["records_written"], _reasons(again)) == (2, {})
    assert _committed_scores(lake, "prob_model") == [
        (_id(1), "prob_model", CRAWL, 0.5),
        (_id(7), "prob_model", CRAWL, 0.5),
    ]
    assert len(manifest_rows(lake, "document_scores")) == 1


def test_a_file_of_unknown_documents_is_not_committed(lake: Path, entries, tmp_path: Path):
    path = _csv(tmp_path / "too_early.csv", [["url", "score"], ["https://a.example/8", "0.5"]])
    with pytest.raises(ScoresIngestError, match=r"too_early\.csv: none of its 1 rows .*first"):
        ingest_scores([path], lake, entries, classifier="prob_model", crawl=CRAWL)
    assert manifest_rows(lake, "document_scores") == []
    assert not list((lake / "document_scores").glob("*/.part-*"))


def test_the_command_prints_a_summary_and_refuses_in_one_line(
    lake: Path, registry: Path, tmp_path: Path, capsys
):
    path = tmp_path / "fineweb_edu.parquet"
    pq.write_table(pa.table({"id": [_id(1), _id(8)], "dump": [CRAWL] * 2, "edu": [3.0, 3.0]}), path)
    argv = ["scores", "--path", str(path), "--classifier", "fineweb_edu_bert"]
    argv += ["--score-column", "edu", "--lake", str(lake), "--registry", str(registry)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"scores: schema drift in {path.resolve()}: column id read as doc_id" in out
    assert out.splitlines()[-1] == (
        "scores: 1 files ingested into document_scores, 2 records read, 1 written, "
        "1 rejected (unknown_document 1)"
    )
    assert _committed_scores(lake, "fineweb_edu_bert") == [(_id(1), "fineweb_edu_bert", CRAWL, 0.6)]
    bad = _csv(tmp_path / "bad.csv", [["doc_id", "score"], [_id(2), "0.5"]])
    argv = ["scores", "--path", str(bad), "--classifier", "dclm_demo"]
    assert main([*argv, "--lake", str(lake), "--registry", str(registry)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"python -m ingest scores: error: {bad}: classifier 'dclm_demo'")


def test_a_replace_that_cannot_commit_keeps_the_old_copy(
    lake: Path, entries, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = _csv(
        tmp_path / "early.csv",
        [["url", "score"], ["https://a.example/1", "0.5"], ["https://a.example/7", "0.5"]],
    )
    ingest_scores([path], lake, entries, classifier="prob_model", crawl=CRAWL)
    before = _committed_scores(lake, "prob_model")
    _commit_documents(lake, "late", CRAWL, [(_id(7), "https://a.example/7")])
    real_replace = os.replace

    def full_at_the_manifest(source, target, *args, **kwargs):
        if Path(target).parent.parent.name == "_manifest":
            raise OSError(28, "No space left on device", str(source))
        return real_replace(source, target, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", full_at_the_manifest)
        with pytest.raises(LakeError, match=r"early\.csv: cannot commit .* stays committed"):
            ingest_scores([path], lake, entries, classifier="prob_model", crawl=CRAWL, replace=True)
    assert _committed_scores(lake, "prob_model") == before == [(_id(1), "prob_model", CRAWL, 0.5)]
    (again,) = ingest_scores(
        [path], lake, entries, classifier="prob_model", crawl=CRAWL, replace=True
    )
    assert (again["records_written"], _reasons(again)) == (2, {})
