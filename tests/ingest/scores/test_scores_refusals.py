"""`python -m ingest scores`: each rejected row counted by its reason, the reject rate, and the
files refused (unreadable, or not readable as declared).

The documents they score are written through the lake protocol directly (``conftest.py``).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ingest.lake import (
    manifest_rows,
)
from ingest.scores import ScoresIngestError, ingest_scores
from tests.ingest.scores.lakes import CRAWL, LATER, _committed_scores, _csv, _id, _reasons, _write


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
