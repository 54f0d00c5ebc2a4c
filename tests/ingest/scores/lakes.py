"""Helpers of the `ingest.scores` tests: the registry's rows, documents committed through the lake
protocol, score files written, the committed scores read back.
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from ingest import schemas
from ingest.lake import (
    IngestReport,
    PartWriter,
    commit_manifest,
    file_key,
    sha256_of,
)
from ingest.quality import LanguageIdentifier

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


def _write(path: Path, table: pa.Table) -> Path:
    if path.suffix == ".parquet":
        pq.write_table(table, path)
    else:
        table.to_pandas().to_csv(path, index=False)
    return path
