"""`python -m ingest scores`: precomputed classifiers' scores from Parquet/CSV files into the lake.

The documents they score are committed to the lake first, either by the document ingest (real
Common Crawl pages, scored there by lid.176 as a registry classifier) or, for the edge cases,
written through the lake protocol directly.
"""

from __future__ import annotations

import csv
import shutil
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ingest import schemas
from ingest.__main__ import main
from ingest.documents import ingest_documents
from ingest.lake import (
    IngestReport,
    PartWriter,
    commit_manifest,
    file_key,
    manifest_rows,
    sha256_of,
)
from ingest.quality import LanguageIdentifier, load_registry
from ingest.scores import ScoresIngestError, ingest_scores
from tests.fixtures.crawls import REAL_DATA

CRAWL = "CC-MAIN-2024-10"
LATER = "CC-MAIN-2024-18"
REAL_CRAWL = "CC-MAIN-2020-34"

REGISTRY_ROWS = [
    # classifier, kind, model_path, labels, positive_label, score_transform, score_scale
    ("dclm_demo", "quality", "classifiers/dclm_demo.bin", "__label__cc;__label__hq",
     "__label__hq", "p_positive", ""),
    ("lid176_english", "topic", str(LanguageIdentifier.model_path()), "*", "__label__en",
     "p_positive", ""),
    ("fineweb_edu_bert", "quality", "", "", "", "precomputed_clipped", "5"),
    ("prob_model", "quality", "", "", "", "precomputed", "1"),
]  # fmt: skip


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("registry") / "classifier_registry.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(
            [
                *("classifier", "style", "kind", "model_path", "labels", "positive_label"),
                *("label_values", "score_transform", "score_scale", "hq_threshold"),
                "is_english_trained",
            ]
        )
        for name, kind, model, labels, positive, transform, scale in REGISTRY_ROWS:
            writer.writerow(
                [name, "test", kind, model, labels, positive, "", transform, scale, "0.5", "true"]
            )
    return path


@pytest.fixture(scope="module")
def entries(registry: Path):
    return load_registry(registry, registry.parent)


# ----------------------------------------------------------------------- lakes


def _document(doc_id: str, url: str) -> dict:
    return {
        "doc_id": doc_id,
        "url": url,
        "surt_host_name": "com,example",
        "url_host_registered_domain": "example.com",
        "url_host_tld": "com",
        "warc_file": "test.warc.gz",
        "warc_record_offset": 0,
        "language": "en",
        "language_score": 1.0,
        "language_source": "cld2",
        "text_length": 10,
        "payload_digest": None,
        "fetched_at": None,
        "text": None,
    }


def _commit_documents(
    lake: Path, name: str, crawl: str, docs: list[tuple[str, str]], commit: bool = True
) -> None:
    """Land documents (and a fastText score each) as the document ingest does."""
    source = lake.parent / f"{name}.warc.gz"
    source.write_text(name)
    sha = sha256_of(source)
    outputs = []
    with PartWriter(lake, "documents", file_key(sha), schemas.DOCUMENTS, "crawl") as writer:
        table = pa.Table.from_pylist([_document(*doc) for doc in docs], schema=schemas.DOCUMENTS)
        writer.write(crawl, table)
        outputs += writer.publish()
    with PartWriter(lake, "document_scores", file_key(sha), schemas.DOCUMENT_SCORES, "crawl") as w:
        rows = [{"doc_id": doc_id, "classifier": "dclm_demo", "score": 0.1} for doc_id, _ in docs]
        w.write(crawl, pa.Table.from_pylist(rows, schema=schemas.DOCUMENT_SCORES))
        outputs += w.publish()
    if commit:
        report = IngestReport(source, read=len(docs), written=len(docs))
        commit_manifest(lake, "documents", report, sha, outputs, datetime.now(UTC), crawl=crawl)


def _id(n: int) -> str:
    return f"<urn:uuid:00000000-0000-0000-0000-{n:012d}>"


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    """d1-d4 in CRAWL; d5 in LATER at d1's URL; d6 in CRAWL at d4's URL (two captures);
    d9 written but not committed (its file has no manifest row)."""
    lake = tmp_path / "lake"
    _commit_documents(
        lake,
        "first",
        CRAWL,
        [(_id(n), f"https://a.example/{n}") for n in (1, 2, 3, 4)],
    )
    _commit_documents(lake, "later", LATER, [(_id(5), "https://a.example/1")])
    _commit_documents(lake, "again", CRAWL, [(_id(6), "https://a.example/4")])
    _commit_documents(lake, "crashed", CRAWL, [(_id(9), "https://a.example/9")], commit=False)
    return lake


def _committed_scores(lake: Path, classifier: str | None = None) -> list[tuple]:
    """(doc_id, classifier, crawl, score) of parts committed by either manifest, as staging."""
    sql = f"""
        with manifests as (
            select coalesce(part_key, left(source_sha256, 20)) as part_key
            from read_parquet('{lake}/_manifest/*/*.parquet')
        )
        select scores.doc_id, scores.classifier, scores.crawl, scores.score
        from read_parquet('{lake}/document_scores/*/part-*.parquet', hive_partitioning = true,
            filename = true) as scores
        inner join manifests
            on regexp_extract(scores.filename, 'part-([0-9a-f]+)[.]parquet$', 1)
            = manifests.part_key
        {"where scores.classifier = '" + classifier + "'" if classifier else ""}
        order by all
    """
    return [(*row[:3], round(row[3], 12)) for row in duckdb.sql(sql).fetchall()]


def _csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    return path


def _reasons(row: dict) -> dict[str, int]:
    return dict(row["rejected_by_reason"])


# ----------------------------------------------------------------------- real documents


@pytest.fixture(scope="module")
def real_lake(entries, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real Common Crawl WARC excerpt through the document ingest, with a registry holding a
    fastText classifier with labels '*' (lid.176) and two precomputed ones."""
    folder = tmp_path_factory.mktemp("real")
    warc = Path(shutil.copy(REAL_DATA / "resiliparse-cc" / "warcfile.warc.gz", folder))
    lake = folder / "lake"
    usable = [entry for entry in entries if entry.classifier != "dclm_demo"]  # no model file
    ingest_documents([warc], REAL_CRAWL, lake, usable, workers=1)
    return lake


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


# ----------------------------------------------------------------------- values


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


# ----------------------------------------------------------------------- rejections


def test_each_rejection_reason_is_counted_with_an_example(lake: Path, entries, tmp_path: Path):
    path = _csv(
        tmp_path / "messy.csv",
        [
            ["url", "crawl", "classifier", "score"],
            ["https://a.example/1", CRAWL, "", "0.5"],  # 1 missing_classifier
            ["", CRAWL, "prob_model", "0.5"],  # 2 missing_url
            ["https://a.example/1", "", "prob_model", "0.5"],  # 3 missing_crawl
            ["https://a.example/1", "2024-10", "prob_model", "0.5"],  # 4 bad_crawl
            ["https://a.example/1", CRAWL, "prob_model", ""],  # 5 missing_score
            ["https://a.example/1", CRAWL, "prob_model", "high"],  # 6 score_not_a_number
            ["https://a.example/1", CRAWL, "prob_model", "nan"],  # 7 score_not_finite
            ["https://a.example/1", CRAWL, "fineweb_edu_bert", "-inf"],  # 8 score_not_finite
            ["https://a.example/1", CRAWL, "prob_model", "1.5"],  # 9 score_out_of_range
            ["https://a.example/1", CRAWL, "prob_model", "-0.01"],  # 10 score_out_of_range
            ["https://b.example/", CRAWL, "prob_model", "0.5"],  # 11 unknown_document
            ["https://a.example/9", CRAWL, "prob_model", "0.5"],  # 12 unknown (uncommitted)
            ["https://a.example/2", LATER, "prob_model", "0.5"],  # 13 unknown in that crawl
            ["https://a.example/4", CRAWL, "prob_model", "0.5"],  # 14 ambiguous_url
            ["https://a.example/1", CRAWL, "prob_model", "0.25"],  # 15 written
            ["https://a.example/1", CRAWL, "prob_model", "0.75"],  # 16 duplicate_score
            ["https://a.example/1", CRAWL, "fineweb_edu_bert", "9"],  # 17 written (clipped)
        ],
    )
    (manifest,) = ingest_scores([path], lake, entries, max_reject_rate=1.0)
    assert manifest["records_read"] == 17
    assert manifest["records_written"] == 2
    assert _reasons(manifest) == {
        "missing_classifier": 1,
        "missing_url": 1,
        "missing_crawl": 1,
        "bad_crawl": 1,
        "missing_score": 1,
        "score_not_a_number": 1,
        "score_not_finite": 2,
        "score_out_of_range": 2,
        "unknown_document": 3,
        "ambiguous_url": 1,
        "duplicate_score": 1,
    }
    examples = manifest["rejected_examples"]
    assert len(examples) == 10
    assert examples[0].startswith(f"{path}:row 1: missing_classifier: ")
    assert any(
        example.startswith(f"{path}:row 6: score_not_a_number: ") and "'high'" in example
        for example in examples
    )
    assert _committed_scores(lake, "prob_model") == [(_id(1), "prob_model", CRAWL, 0.25)]
    assert _committed_scores(lake, "fineweb_edu_bert") == [(_id(1), "fineweb_edu_bert", CRAWL, 1.0)]


def test_id_rows_missing_unknown_or_scored_already_are_rejected(
    lake: Path, entries, tmp_path: Path
):
    first = tmp_path / "first.parquet"
    pq.write_table(pa.table({"doc_id": [_id(1)], "score": [0.5]}), first)
    ingest_scores([first], lake, entries, classifier="prob_model")
    path = tmp_path / "second.parquet"
    pq.write_table(
        pa.table(
            {
                "doc_id": [None, "", _id(1), _id(7), _id(5), _id(2), _id(3)],
                "crawl": [CRAWL, CRAWL, CRAWL, CRAWL, CRAWL, None, CRAWL],
                "score": [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, None],
            }
        ),
        path,
    )
    (manifest,) = ingest_scores([path], lake, entries, classifier="prob_model", max_reject_rate=1)
    assert _reasons(manifest) == {
        "missing_doc_id": 2,  # null or empty
        "duplicate_score": 1,  # scored by first.parquet
        "unknown_document": 2,  # no such id; d5 is not in CRAWL
        "missing_score": 1,
    }
    assert manifest["records_written"] == 1  # d2: a null crawl matches any crawl
    assert _committed_scores(lake, "prob_model") == [
        (_id(1), "prob_model", CRAWL, 0.5),
        (_id(2), "prob_model", CRAWL, 0.5),
    ]
    named = tmp_path / "named.parquet"
    pq.write_table(
        pa.table(
            {
                "doc_id": [_id(3), _id(4)],
                "classifier": pa.array(["", "prob_model"]).dictionary_encode(),
                "score": pa.array([1, 0], pa.int32()),
            }
        ),
        named,
    )
    (manifest,) = ingest_scores([named], lake, entries, max_reject_rate=1)
    assert _reasons(manifest) == {"missing_classifier": 1}
    assert _committed_scores(lake, "prob_model")[-1] == (_id(4), "prob_model", CRAWL, 0.0)


def test_the_reject_rate_leaves_unknown_documents_out(lake: Path, entries, tmp_path: Path):
    coverage = _csv(
        tmp_path / "crawl_wide.csv",
        [["url", "score"], ["https://a.example/1", "0.5"]]
        + [[f"https://elsewhere.example/{n}", "0.5"] for n in range(5)],
    )
    (manifest,) = ingest_scores([coverage], lake, entries, classifier="prob_model", crawl=CRAWL)
    assert _reasons(manifest) == {"unknown_document": 5}
    broken = _csv(
        tmp_path / "broken.csv",
        [["url", "score"], ["https://a.example/2", "0.5"], ["https://a.example/3", "nan"]],
    )
    with pytest.raises(ScoresIngestError, match=r"broken\.csv: 1 of 2 rows rejected .*nan"):
        ingest_scores([broken], lake, entries, classifier="prob_model", crawl=CRAWL)
    assert [row["source_file"] for row in manifest_rows(lake, "document_scores")] == [
        str(coverage.resolve())
    ]
    assert _committed_scores(lake, "prob_model") == [(_id(1), "prob_model", CRAWL, 0.5)]


# ----------------------------------------------------------------------- reruns


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


# ----------------------------------------------------------------------- refusals


def _write(path: Path, table: pa.Table) -> Path:
    if path.suffix == ".parquet":
        pq.write_table(table, path)
    else:
        table.to_pandas().to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("name", "columns", "flags", "message"),
    [
        (
            "fasttext.csv",
            {"url": ["https://a.example/1"], "classifier": ["dclm_demo"], "score": [0.5]},
            {"crawl": CRAWL},
            r"fasttext\.csv: classifier 'dclm_demo' \(p_positive\) is not precomputed",
        ),
        (
            "flagged.parquet",
            {"doc_id": [_id(1)], "score": [0.5]},
            {"classifier": "lid176_english"},
            r"flagged\.parquet: classifier 'lid176_english' \(p_positive\) is not precomputed",
        ),
        (
            "unknown.csv",
            {"doc_id": [_id(1)], "classifier": ["nope"], "score": [0.5]},
            {},
            r"unknown\.csv: classifier 'nope' has no registry row",
        ),
        (
            "both.csv",
            {"doc_id": [_id(1)], "classifier": ["prob_model"], "score": [0.5]},
            {"classifier": "prob_model"},
            r"both\.csv: has a classifier column; --classifier is for files without one",
        ),
        (
            "noclass.csv",
            {"doc_id": [_id(1)], "score": [0.5]},
            {},
            r"noclass\.csv: no classifier column",
        ),
        (
            "noscore.parquet",
            {"doc_id": [_id(1)], "value": [0.5]},
            {"classifier": "prob_model"},
            r"noscore\.parquet: required column 'score' is missing",
        ),
        (
            "nodoc.csv",
            {"host": ["a.example"], "score": [0.5]},
            {"classifier": "prob_model"},
            r"nodoc\.csv: no document column",
        ),
        (
            "nocrawl.csv",
            {"url": ["https://a.example/1"], "score": [0.5]},
            {"classifier": "prob_model"},
            r"nocrawl\.csv: url rows need their crawl",
        ),
        (
            "boolean.parquet",
            {"doc_id": [_id(1)], "score": [True]},
            {"classifier": "prob_model"},
            r"boolean\.parquet: column 'score' is bool, not a number",
        ),
        (
            "numeric_id.parquet",
            {"doc_id": [1], "score": [0.5]},
            {"classifier": "prob_model"},
            r"numeric_id\.parquet: column 'doc_id' is int64, not text",
        ),
    ],
)
def test_a_file_that_cannot_be_read_as_declared_is_refused(
    lake: Path, entries, tmp_path: Path, name, columns, flags, message
):
    path = _write(tmp_path / name, pa.table(columns))
    with pytest.raises(ScoresIngestError, match=message):
        ingest_scores([path], lake, entries, **flags)
    assert manifest_rows(lake, "document_scores") == []


def test_unreadable_files_are_refused(lake: Path, entries, tmp_path: Path):
    damaged = tmp_path / "damaged.parquet"
    damaged.write_bytes(b"PAR1 not really")
    with pytest.raises(ScoresIngestError, match=r"damaged\.parquet: not a readable Parquet"):
        ingest_scores([damaged], lake, entries, classifier="prob_model")
    other = tmp_path / "scores.json"
    other.write_text("{}")
    with pytest.raises(ScoresIngestError, match=r"scores\.json: not a score file"):
        ingest_scores([other], lake, entries, classifier="prob_model")
    with pytest.raises(ScoresIngestError, match="not a crawl id"):
        ingest_scores([other], lake, entries, classifier="prob_model", crawl="2024-10")


# ----------------------------------------------------------------------- the command


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
