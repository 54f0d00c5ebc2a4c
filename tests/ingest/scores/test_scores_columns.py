"""`python -m ingest scores` on score files as they are published: columns named by the user
(nested struct fields included), scores read exactly, and the files refused where a column is
ambiguous or a value cannot be read without loss.

The published shapes (DCLM-baseline, FineWeb2-HQ, datatrove's FineWeb-Edu) are the schemas of
``tests/fixtures/real/annotations/published.py``; the ids are the lake fixture's documents.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ingest.__main__ import main
from ingest.lake import manifest_rows
from ingest.scores import ScoresIngestError, ingest_scores
from tests.fixtures.real.annotations.published import (
    DATATROVE_SCHEMA,
    DCLM_SCHEMA,
    DCLM_SCORE,
    FINEWEB2_HQ_SCHEMA,
)
from tests.ingest.scores.lakes import CRAWL, _committed_scores, _csv, _id


def _run(lake: Path, registry: Path, path: Path, *flags: str) -> list[str]:
    argv = ["scores", "--path", str(path), "--lake", str(lake), "--registry", str(registry)]
    return [*argv, "--classifier", "prob_model", *flags]


def test_a_float16_score_is_read_exactly(lake: Path, registry: Path, tmp_path: Path, capsys):
    path = tmp_path / "half.parquet"
    scores = np.array([0.25, 0.7998046875], dtype=np.float16)  # both exact in float16
    pq.write_table(pa.table({"doc_id": [_id(1), _id(2)], "score": pa.array(scores)}), path)
    assert main(_run(lake, registry, path, "--crawl", CRAWL)) == 0
    assert _committed_scores(lake, "prob_model") == [
        (_id(1), "prob_model", CRAWL, 0.25),
        (_id(2), "prob_model", CRAWL, 0.7998046875),
    ]


def test_an_integer_score_beyond_2_53_is_refused_naming_file_and_column(
    lake: Path, registry: Path, tmp_path: Path, capsys
):
    path = tmp_path / "ints.parquet"
    pq.write_table(
        pa.table({"doc_id": [_id(1), _id(2)], "score": pa.array([1, 2**53 + 1], pa.int64())}),
        path,
    )
    assert main(_run(lake, registry, path, "--crawl", CRAWL)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(
        f"python -m ingest scores: error: {path}: column 'score' holds the integer "
        f"{2**53 + 1}, beyond 2^53"
    )
    assert manifest_rows(lake, "document_scores") == []
    exact = tmp_path / "exact.parquet"  # 2^53 itself and small integers are float64 exactly
    pq.write_table(pa.table({"doc_id": [_id(1)], "score": pa.array([1], pa.uint64())}), exact)
    assert main(_run(lake, registry, exact, "--crawl", CRAWL)) == 0


def test_datatroves_metadata_struct_is_read_by_dotted_paths(
    lake: Path, registry: Path, tmp_path: Path, capsys
):
    metadata = DATATROVE_SCHEMA.field("metadata").type
    rows = [
        {"text": "…", "id": _id(number), "metadata": {"dump": CRAWL, "score": score}}
        for number, score in ((1, 0.125), (2, 0.875))
    ]  # ours; only the struct's shape is datatrove's
    path = tmp_path / "datatrove.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=DATATROVE_SCHEMA), path)
    assert metadata.field("score").type == pa.float64()
    flags = ["--score-column", "metadata.score", "--crawl-column", "metadata.dump"]
    assert main(_run(lake, registry, path, *flags)) == 0
    out = capsys.readouterr().out
    assert f"schema drift in {path.resolve()}: column metadata.score read as score" in out
    assert f"schema drift in {path.resolve()}: column metadata.dump read as crawl" in out
    assert _committed_scores(lake, "prob_model") == [
        (_id(1), "prob_model", CRAWL, 0.125),
        (_id(2), "prob_model", CRAWL, 0.875),
    ]


def test_dclm_baseline_rows_are_keyed_by_their_nested_warc_record_id(
    lake: Path, entries, tmp_path: Path
):
    headers = dict.fromkeys(DCLM_SCHEMA.field("metadata").type.names)
    rows = [
        {
            "metadata": headers
            | {"WARC-Record-ID": _id(number), "WARC-Date": datetime(2024, 3, 1)},
            "url": f"https://a.example/{number}",
            DCLM_SCORE: probability,
        }
        for number, probability in ((1, 0.018112), (3, 0.5))
    ]  # ours: DCLM-baseline's card prints no rows
    path = tmp_path / "dclm.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=DCLM_SCHEMA), path)
    (row,) = ingest_scores(
        [path],
        lake,
        entries,
        classifier="prob_model",
        crawl=CRAWL,
        id_column="metadata.WARC-Record-ID",
        score_column=DCLM_SCORE,
    )
    assert row["schema_drift"] == [
        f"column {DCLM_SCORE} read as score",
        "column metadata.WARC-Record-ID read as doc_id (the WARC-Record-ID)",
    ]
    assert _committed_scores(lake, "prob_model") == [
        (_id(1), "prob_model", CRAWL, 0.018112),
        (_id(3), "prob_model", CRAWL, 0.5),
    ]


def test_fineweb2_hq_quality_score_loads_with_the_score_column_named(
    lake: Path, entries, tmp_path: Path
):
    rows = [
        {"id": _id(number), "dump": CRAWL, "url": "x", "quality_score": score}
        for number, score in ((2, 0.97), (4, 0.9912))
    ]  # ours
    path = tmp_path / "fineweb2_hq.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=FINEWEB2_HQ_SCHEMA), path)
    with pytest.raises(ScoresIngestError, match=r"required column 'score' is missing"):
        ingest_scores([path], lake, entries, classifier="prob_model")
    (row,) = ingest_scores(
        [path], lake, entries, classifier="prob_model", score_column="quality_score"
    )
    assert row["records_written"] == 2
    assert _committed_scores(lake, "prob_model") == [
        (_id(2), "prob_model", CRAWL, 0.97),
        (_id(4), "prob_model", CRAWL, 0.9912),
    ]


def test_an_exact_top_level_name_wins_over_a_path_and_two_paths_are_refused(
    lake: Path, entries, tmp_path: Path
):
    dotted = tmp_path / "dotted.parquet"
    pq.write_table(
        pa.table(
            {
                "doc_id": [_id(1)],
                "m.score": [0.25],  # a top-level column whose name holds a dot
                "m": pa.array([{"score": 0.75}]),
            }
        ),
        dotted,
    )
    ingest_scores([dotted], lake, entries, classifier="prob_model", score_column="m.score")
    assert _committed_scores(lake, "prob_model") == [(_id(1), "prob_model", CRAWL, 0.25)]
    two = tmp_path / "two.parquet"
    pq.write_table(
        pa.table(
            {
                "doc_id": [_id(2)],
                "a": pa.array([{"b.c": 0.1}]),
                "a.b": pa.array([{"c": 0.2}]),
            }
        ),
        two,
    )
    with pytest.raises(
        ScoresIngestError,
        match=r"two\.parquet: column name 'a\.b\.c' reads as two different fields "
        r"\('a' -> 'b\.c' and 'a\.b' -> 'c'\)",
    ):
        ingest_scores([two], lake, entries, classifier="prob_model", score_column="a.b.c")


def test_two_spellings_of_one_column_are_refused_unless_one_is_named(
    lake: Path, entries, tmp_path: Path
):
    both_ids = tmp_path / "both_ids.parquet"
    table = pa.table({"doc_id": [_id(1)], "id": [_id(2)], "crawl": [CRAWL], "score": [0.5]})
    pq.write_table(table, both_ids)
    with pytest.raises(
        ScoresIngestError,
        match=r"both_ids\.parquet: has both 'doc_id' and 'id' columns, which could disagree: "
        r"name the one to read with --id-column",
    ):
        ingest_scores([both_ids], lake, entries, classifier="prob_model")
    ingest_scores([both_ids], lake, entries, classifier="prob_model", id_column="id")
    assert _committed_scores(lake, "prob_model") == [(_id(2), "prob_model", CRAWL, 0.5)]
    both_crawls = _csv(
        tmp_path / "both_crawls.csv",
        [["doc_id", "crawl", "dump", "score"], [_id(3), CRAWL, "CC-MAIN-2013-20", "0.5"]],
    )
    with pytest.raises(ScoresIngestError, match=r"has both 'crawl' and 'dump' columns"):
        ingest_scores([both_crawls], lake, entries, classifier="prob_model")
    ingest_scores([both_crawls], lake, entries, classifier="prob_model", crawl_column="crawl")
    assert (_id(3), "prob_model", CRAWL, 0.5) in _committed_scores(lake, "prob_model")


def test_a_column_named_twice_or_a_named_column_missing_is_refused(
    lake: Path, entries, tmp_path: Path
):
    twice = tmp_path / "twice.parquet"
    table = pa.Table.from_arrays(
        [pa.array([_id(1)]), pa.array([0.5]), pa.array([0.7])], names=["doc_id", "score", "score"]
    )
    pq.write_table(table, twice)
    with pytest.raises(
        ScoresIngestError, match=r"twice\.parquet: column name 'score' appears twice"
    ):
        ingest_scores([twice], lake, entries, classifier="prob_model")
    twice_csv = _csv(tmp_path / "twice.csv", [["doc_id", "score", "score"], [_id(1), "1", "0"]])
    with pytest.raises(ScoresIngestError, match=r"twice\.csv: column name 'score' appears twice"):
        ingest_scores([twice_csv], lake, entries, classifier="prob_model")
    plain = _csv(tmp_path / "plain.csv", [["doc_id", "score"], [_id(1), "0.5"]])
    with pytest.raises(
        ScoresIngestError, match=r"plain\.csv: column 'record' \(--id-column\) is not in the file"
    ):
        ingest_scores([plain], lake, entries, classifier="prob_model", id_column="record")
    with pytest.raises(ScoresIngestError, match="--id-column and --url-column both given"):
        ingest_scores(
            [plain], lake, entries, classifier="prob_model", id_column="doc_id", url_column="u"
        )
    assert manifest_rows(lake, "document_scores") == []
