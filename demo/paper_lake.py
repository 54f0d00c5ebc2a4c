"""The paper scale's classified sample, committed to the lake the way a document ingest does.

At ``paper`` scale the demo crawl writes no WARC text: its 3M classified sample pages go
straight to the lake's ``documents`` and ``document_scores`` tables. They are written through
``ingest.lake``'s protocol, as ``ingest documents`` writes the pages of one input file:

* the input file is ``paper-sample.txt`` in the crawl's folder, one line naming the generator
  (``synth://paper?seed=N``, no newline); its SHA-256 gives the part key (``file_key``), as for
  any input file, and the documents' ``warc_file`` is that line;
* under ``table_lock`` of both tables, ``prepare_tables`` removes an interrupted run's leftovers,
  a previous commit of the same file is removed (``uncommit``, an ingest's ``replace``), a
  ``PartWriter`` per table writes ``<table>/crawl=CC-MAIN-2024-10/part-<key>.parquet`` under a
  temporary name, and ``commit_parts`` renames both into place and writes the manifest row
  (table ``documents``, both parts in its ``output_files``) last: the commit record.

The scores are the true page scores (``Documents.true_score``), one row per page and classifier.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa

from demo import crawls
from demo.config import CLASSIFIERS, SAMPLE_CRAWL
from demo.model import Documents, Hosts
from ingest import schemas
from ingest.lake import (
    IngestReport,
    PartWriter,
    commit_parts,
    file_key,
    manifest_rows,
    prepare_tables,
    sha256_of,
    table_lock,
    uncommit,
)

__all__ = [
    "SOURCE_NAME",
    "TABLES",
    "commit_sample",
    "source_uri",
    "summary",
    "write_sample",
    "write_source",
]

# The stand-in input file of the sample, in the crawl's folder.
SOURCE_NAME = "paper-sample.txt"
# The table folders the sample is written to (one manifest row, of table "documents").
TABLES = ("documents", "document_scores")
_DICTIONARY = {
    "documents": ("url_host_tld", "url_host_registry_suffix", "warc_file", "language"),
    "document_scores": ("classifier",),
}


def source_uri(seed: int) -> str:
    """What the sample's input file says, and its documents' ``warc_file``."""
    return f"synth://paper?seed={seed}"


def write_source(folder: Path, seed: int) -> Path:
    """Write the sample's input file (``SOURCE_NAME``) into ``folder``; return its path."""
    path = folder / SOURCE_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source_uri(seed), encoding="ascii")
    return path


def summary(lake: Path, count: int) -> dict:
    """truth.json's account of the sample: where it went and how many rows each table gets."""
    return {"lake": str(lake), "documents": count, "document_scores": count * len(CLASSIFIERS)}


def _documents_table(
    source: str, hosts: Hosts, documents: Documents, pages: crawls.PageRows
) -> pa.Table:
    count = documents.count
    host = documents.host_id
    rng = np.random.default_rng(count)
    return pa.table(
        {
            "doc_id": pages.record_id,
            "url": pages.url,
            "surt_host_name": crawls.host_strings(hosts)[1].take(pa.array(host)),
            "url_host_registered_domain": pa.array(hosts.registered_domain[host], pa.string()),
            "url_host_tld": pa.array(crawls.last_labels(hosts)[host], pa.string()),
            "url_host_registry_suffix": pa.array(hosts.suffix[host], pa.string()),
            "warc_file": pa.repeat(pa.scalar(source), count),
            "warc_record_offset": pa.array(np.zeros(count, dtype=np.int64)),
            "language": pa.array(documents.language, pa.string()),
            "language_score": pa.array(np.round(rng.uniform(0.7, 1.0, count), 4)),
            "language_source": pa.repeat(pa.scalar("synthetic"), count),
            "text_length": pa.array(rng.integers(800, 20_000, count).astype(np.int32)),
            "payload_digest": pa.nulls(count, pa.string()),
            "fetched_at": pa.array(pages.fetch_time, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
            "text": pa.nulls(count, pa.string()),
        },
        schema=schemas.DOCUMENTS,
    )


def _scores_table(documents: Documents, pages: crawls.PageRows) -> pa.Table:
    count = documents.count
    return pa.table(
        {
            "doc_id": pages.record_id.take(pa.array(np.repeat(np.arange(count), len(CLASSIFIERS)))),
            "classifier": pa.array(
                np.tile(np.array([spec.name for spec in CLASSIFIERS], dtype=object), count),
                pa.string(),
            ),
            "score": pa.array(documents.true_score.reshape(-1)),
        },
        schema=schemas.DOCUMENT_SCORES,
    )


def write_sample(
    lake: Path, source: Path, hosts: Hosts, documents: Documents, pages: crawls.PageRows
) -> dict:
    """Commit the classified sample to ``lake`` as the ingest of input file ``source``.

    ``source`` is the file ``write_source`` wrote (its text is the documents' ``warc_file``).
    Returns the manifest row.
    """
    tables = {
        "documents": lambda: _documents_table(source.read_text("ascii"), hosts, documents, pages),
        "document_scores": lambda: _scores_table(documents, pages),
    }
    return commit_sample(lake, source, tables, documents.count)


def commit_sample(
    lake: Path,
    source: Path,
    tables: Mapping[str, Callable[[], pa.Table]],
    count: int,
    crawl: str = SAMPLE_CRAWL,
) -> dict:
    """Commit ``tables`` (``TABLES``' rows, built when called) as the ingest of ``source``.

    The documents of one input file: ``count`` pages of ``crawl``, a previous commit of
    the same file replaced. Returns the manifest row. bench/bench_update.py commits a share
    of the sample as a second input (a WARC batch) with it.
    """
    started = datetime.now(UTC)
    sha256 = sha256_of(source)
    key = file_key(sha256)
    report = IngestReport(source)
    with table_lock(lake, TABLES):
        prepare_tables(lake, TABLES)
        for row in manifest_rows(lake, "documents"):
            if row["part_key"] == key:
                uncommit(lake, "documents", row)
        parts = []
        for table in TABLES:
            schema, partition_column = schemas.TABLES[table]
            with PartWriter(
                lake, table, key, schema, partition_column, _DICTIONARY[table]
            ) as writer:
                writer.write(crawl, tables[table]())
                parts += writer.finish()
        report.read = report.written = count
        report.check(max_reject_rate=0.0)
        return commit_parts(lake, "documents", report, sha256, parts, started, crawl=crawl, key=key)
