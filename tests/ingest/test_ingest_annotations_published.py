"""`ingest.annotations` on the published datasets' own shapes, and the choices it no longer
makes silently.

Profiles ``dclm_baseline``, ``fineweb2_hq`` and ``fineweb_edu_datatrove`` read tables written at
test time in the exact schema their cards show (``tests/fixtures/real/annotations/
published.py``, with where each value comes from). Then: two columns that could fill one field
are refused unless ``--column`` names one, a column named twice is refused, a FineWeb-Edu
``int_score`` contradicting its ``score`` rejects the row, and data-prep-kit category values
that cannot be read are nulled and counted.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ingest.__main__ import main
from ingest.annotations import ingest_annotations
from ingest.hosts import surt_host_name
from ingest.lake import LakeError, manifest_rows
from tests.fixtures.real.annotations.make_fixtures import EDU_SCORES, FINEWEB_ROWS
from tests.fixtures.real.annotations.published import (
    datatrove_edu_rows,
    dclm_rows,
    fineweb2_hq_rows,
)

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real" / "annotations"
FINEWEB_EDU = REAL / "fineweb_edu" / "part-00000.parquet"
CC_URLS = REAL / "cc_gneissweb_urls" / "crawl=CC-MAIN-2024-22" / "part-00000.parquet"


def _write(path: Path, table: pa.Table) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path


def _landed(lake: Path, row: dict) -> list[dict]:
    return [page for part in row["output_files"] for page in pq.read_table(lake / part).to_pylist()]


def _cli(path: Path, lake: Path, *flags: str) -> list[str]:
    return ["annotations", "--path", str(path), "--lake", str(lake), "--workers", "1", *flags]


def test_dclm_baseline_rows_land_with_their_probability_and_nested_keys(tmp_path: Path):
    probabilities = [0.9, 0.01, 0.018113, None, 1.25, 0.5]
    path = _write(tmp_path / "crawl=CC-MAIN-2023-14" / "dclm.parquet", dclm_rows(probabilities))
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.5)
    assert row["annotation_profile"] == "dclm_baseline"
    assert row["crawl"] == "CC-MAIN-2023-14"  # DCLM rows name no crawl: the folder's
    assert dict(row["rejected_by_reason"]) == {"missing_quality": 1, "score_out_of_range": 1}
    landed = _landed(lake, row)
    assert [page["quality_score"] for page in landed] == [0.9, 0.01, 0.018113, 0.5]
    first = landed[0]
    record_id, url, _, _ = FINEWEB_ROWS[0]
    assert first["doc_id"] == first["page_key"] == record_id  # metadata.WARC-Record-ID
    assert first["url"] == url
    assert first["surt_host_name"] == surt_host_name(url)
    assert first["fetch_time"] == datetime(2023, 3, 20, 12, 0, 0, tzinfo=UTC)  # WARC-Date
    assert first["language"] is None and first["quality_int_score"] is None
    loose = _write(tmp_path / "loose" / "dclm.parquet", dclm_rows([0.5]))
    with pytest.raises(LakeError, match=r"loose/dclm\.parquet: no crawl=<id> folder"):
        ingest_annotations([loose], lake)


def test_fineweb2_hq_rows_land_with_their_quality_score(tmp_path: Path):
    path = _write(tmp_path / "deu_Latn" / "000.parquet", fineweb2_hq_rows([0.97, 0.9991, None]))
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.5)
    assert row["annotation_profile"] == "fineweb2_hq"
    assert (row["crawl"], dict(row["rejected_by_reason"])) == (
        "CC-MAIN-2024-10",
        {"missing_quality": 1},
    )
    landed = _landed(lake, row)
    assert [page["quality_score"] for page in landed] == [0.97, 0.9991]
    assert landed[0]["language"] == "deu"  # as FineWeb-2 names it
    assert landed[0]["surt_host_name"] == "de,beispiel0"
    assert landed[1]["doc_id"] == "<urn:uuid:00000000-0000-4000-8000-000000000001>"


def test_fineweb_edu_as_datatrove_writes_it_lands_as_fineweb_edu_does(tmp_path: Path):
    path = _write(tmp_path / "datatrove" / "00000.parquet", datatrove_edu_rows())
    (row,) = ingest_annotations([path], tmp_path / "lake")
    assert row["annotation_profile"] == "fineweb_edu_datatrove"
    (flat,) = ingest_annotations([FINEWEB_EDU], tmp_path / "flat")
    nested = _landed(tmp_path / "lake", row)
    expected = _landed(tmp_path / "flat", flat)
    assert [page | {"annotation_profile": None} for page in nested] == [
        page | {"annotation_profile": None} for page in expected
    ]
    assert [page["quality_int_score"] for page in nested] == [i for _, i in EDU_SCORES]
    assert row["crawl"] == "CC-MAIN-2023-14"  # metadata.dump


def test_a_nested_quality_column_null_in_every_row_is_refused(tmp_path: Path):
    table = datatrove_edu_rows()
    metadata = table.column("metadata").combine_chunks()
    fields = [metadata.field(name) for name in metadata.type.names]
    index = metadata.type.get_field_index("int_score")
    fields[index] = pa.nulls(len(table), pa.int64())
    nulled = pa.StructArray.from_arrays(fields, fields=list(metadata.type))
    path = _write(tmp_path / "null.parquet", table.set_column(2, "metadata", nulled))
    with pytest.raises(
        LakeError, match=r"quality column metadata\.int_score is null in all 5 rows"
    ):
        ingest_annotations([path], tmp_path / "lake")


def test_an_int_score_contradicting_its_score_rejects_the_row(tmp_path: Path):
    """int_score is int(round(max(0, min(score, 5)))) on the classifier's card: ties to even."""
    scores = [(2.5, 3), (2.5, 2), (3.5, 4), (5.75, 5), (0.84375, 2)]
    path = _write(tmp_path / "edu.parquet", datatrove_edu_rows(scores))
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.5)
    assert dict(row["rejected_by_reason"]) == {"int_score_disagrees_with_score": 2}
    assert [page["quality_int_score"] for page in _landed(lake, row)] == [2, 4, 5]
    assert any("int_score_disagrees_with_score" in example for example in row["rejected_examples"])


def _dpk(number: int, **changes) -> dict:
    row = {
        "id": f"<urn:uuid:00000000-0000-4000-8000-{number:012d}>",
        "dump": "CC-MAIN-2024-10",
        "url": f"https://example{number}.com/",
        "language": "en",
        "language_score": 0.9,
        "cosmo_fastText_label": "hq",
        "cosmo_fastText_score": 0.8,
        "medical_label": "medical",
        "medical_score": 0.9,
    }
    return row | changes


def test_dpk_category_values_that_cannot_be_read_are_nulled_and_counted(tmp_path: Path):
    rows = [
        _dpk(0),
        _dpk(1, medical_label="spam"),  # unknown label
        _dpk(2, medical_label=None, medical_score=0.7),  # a score without its label
        _dpk(3, medical_label="cc", medical_score=1.5),  # out of [0, 1]
        _dpk(4, medical_label="medical", medical_score=0.3),  # not a top label's probability
        _dpk(5, medical_label=None, medical_score=None),  # not annotated: not counted
        _dpk(6, medical_label="cc", medical_score=0.75),
        _dpk(7, cosmo_fastText_label="spam", medical_label="spam"),  # row rejected: not nulled
    ]
    path = _write(tmp_path / "dpk.parquet", pa.Table.from_pylist(rows))
    lake = tmp_path / "lake"
    (row,) = ingest_annotations([path], lake, max_reject_rate=0.5)
    assert dict(row["rejected_by_reason"]) == {"unknown_label": 1}
    assert dict(row["nulled_by_reason"]) == {
        "unknown_category_label": 2,
        "category_score_out_of_range": 1,
        "category_score_not_predicted_label_probability": 1,
    }
    medical = [page["medical_score"] for page in _landed(lake, row)]
    assert medical == [0.9, None, None, None, None, None, 0.25]


def test_two_spellings_of_a_column_are_refused_unless_one_is_named(tmp_path: Path, capsys):
    rows = [_dpk(0, label_quality="cc", score_quality=0.9)]  # and cosmo_fastText_label/_score
    path = _write(tmp_path / "two.parquet", pa.Table.from_pylist(rows))
    lake = tmp_path / "lake"
    assert main(_cli(path, lake)) == 2
    err = capsys.readouterr().err
    assert err == (
        f"python -m ingest annotations: error: {path}: profile dpk_gneissweb: columns "
        "'cosmo_fastText_label' and 'label_quality' both give its quality_label, and could "
        "disagree: name the one to read with --column quality_label=COLUMN (or drop the other)\n"
    )
    flags = ["--profile", "dpk_gneissweb", "--column", "quality_label=label_quality"]
    flags += ["--column", "quality_score=score_quality"]
    assert main(_cli(path, lake, *flags)) == 0
    (row,) = manifest_rows(lake, "page_annotations")
    landed = pq.read_table(lake / row["output_files"][0]).to_pylist()
    assert round(landed[0]["quality_score"], 9) == 0.1  # `cc` at 0.9: P(hq) = 0.1


def test_a_column_spelt_in_two_cases_is_refused(tmp_path: Path, capsys):
    table = pq.read_table(CC_URLS)
    table = table.append_column("IN_GNEISSWEB", pa.array([True] * len(table)))
    path = _write(tmp_path / "crawl=CC-MAIN-2024-22" / "cases.parquet", table)
    lake = tmp_path / "lake"
    assert main(_cli(path, lake)) == 2
    assert "columns 'in_gneissweb' and 'IN_GNEISSWEB' both give its in_gneissweb" in (
        capsys.readouterr().err
    )
    flags = ["--profile", "cc_gneissweb_urls", "--column", "in_gneissweb=IN_GNEISSWEB"]
    assert main(_cli(path, lake, *flags)) == 0
    (row,) = manifest_rows(lake, "page_annotations")
    flags = pq.read_table(lake / row["output_files"][0]).column("in_gneissweb").to_pylist()
    assert flags == [True] * len(table)


def test_the_column_option_is_checked(tmp_path: Path, capsys):
    lake = tmp_path / "lake"
    assert main(_cli(FINEWEB_EDU, lake, "--column", "score=x")) == 2
    assert capsys.readouterr().err == (
        "python -m ingest annotations: error: --column needs --profile: name the profile whose "
        "column you choose\n"
    )
    assert main(_cli(FINEWEB_EDU, lake, "--profile", "fineweb_edu", "--column", "score")) == 2
    assert "expected NAME=COLUMN" in capsys.readouterr().err
    flags = ["--profile", "fineweb_edu", "--column", "edu=score"]
    assert main(_cli(FINEWEB_EDU, lake, *flags)) == 2
    assert "profile fineweb_edu reads no column edu" in capsys.readouterr().err
    renamed = pq.read_table(FINEWEB_EDU).rename_columns(
        ["edu" if name == "score" else name for name in pq.read_schema(FINEWEB_EDU).names]
    )
    path = _write(tmp_path / "renamed.parquet", renamed)
    assert main(_cli(path, lake, "--profile", "fineweb_edu", "--column", "score=edu")) == 0
    (row,) = manifest_rows(lake, "page_annotations")
    assert row["records_written"] == 5


def test_a_column_named_twice_is_refused_through_the_cli(tmp_path: Path, capsys):
    table = pq.read_table(CC_URLS)
    doubled = pa.Table.from_arrays(
        [*table.columns, table.column("in_gneissweb")], names=[*table.column_names, "in_gneissweb"]
    )
    path = _write(tmp_path / "crawl=CC-MAIN-2024-22" / "twice.parquet", doubled)
    assert main(_cli(path, tmp_path / "lake")) == 2
    assert capsys.readouterr().err == (
        f"python -m ingest annotations: error: {path}: column name 'in_gneissweb' appears "
        "twice: which one is meant cannot be told; rewrite the file with one of them\n"
    )
