"""Explicit Arrow schemas of every table the ingest lands in the lake (DESIGN.md, "data contract").

Each lake table lives at ``$HOSTAWARE_HOME/lake/<table>/crawl=<id>/part-*.parquet``. The crawl is a
Hive partition: it is in the folder name, not in the files, so readers use
``hive_partitioning = true``. Nothing is ever written with an inferred schema.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "DOCUMENTS",
    "DOCUMENT_SCORES",
    "MANIFEST",
    "PARTITION_COLUMN",
    "TABLES",
]

PARTITION_COLUMN = "crawl"

# One row per HTML page kept from a WARC file (the classified-sample regime).
DOCUMENTS = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),  # WARC-Record-ID of the response record
        pa.field("url", pa.string(), nullable=False),  # WARC-Target-URI
        pa.field("surt_host_name", pa.string(), nullable=False),  # ingest.hosts.surt_host_name
        pa.field("url_host_registered_domain", pa.string()),  # example.co.uk
        pa.field("url_host_tld", pa.string()),  # public suffix: co.uk, com, de
        pa.field("warc_file", pa.string(), nullable=False),  # file name the record came from
        pa.field("warc_record_offset", pa.int64(), nullable=False),  # byte offset of the record
        pa.field("language", pa.string()),  # ISO 639-1 code of the main language
        pa.field("language_score", pa.float64()),  # confidence in [0, 1]
        pa.field("language_source", pa.string()),  # 'cld2' (CC metadata) or 'fasttext_lid176'
        pa.field("text_length", pa.int32(), nullable=False),  # characters of main text
        pa.field("payload_digest", pa.string()),  # WARC-Payload-Digest, sha1:BASE32
        pa.field("fetched_at", pa.timestamp("us", tz="UTC")),  # WARC-Date
        pa.field("text", pa.string()),  # main text, only with --keep-text
    ]
)

# One row per document per classifier: the long score table (never one column per classifier).
DOCUMENT_SCORES = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("classifier", pa.string(), nullable=False),  # classifier_registry.classifier
        pa.field("score", pa.float64(), nullable=False),  # in [0, 1]
    ]
)

# One row per input file per lake table: read = written + rejected, per DESIGN.md.
MANIFEST = pa.schema(
    [
        pa.field("source_file", pa.string(), nullable=False),
        pa.field("source_size_bytes", pa.int64(), nullable=False),
        pa.field("source_sha256", pa.string(), nullable=False),
        pa.field("lake_table", pa.string(), nullable=False),
        pa.field("crawl", pa.string()),
        pa.field("records_read", pa.int64(), nullable=False),
        pa.field("records_written", pa.int64(), nullable=False),
        pa.field("records_rejected", pa.int64(), nullable=False),
        pa.field("rejected_by_reason", pa.map_(pa.string(), pa.int64())),
        pa.field("output_files", pa.list_(pa.string())),
        pa.field("started_at", pa.timestamp("us", tz="UTC")),
        pa.field("finished_at", pa.timestamp("us", tz="UTC")),
    ]
)

TABLES: dict[str, pa.Schema] = {
    "documents": DOCUMENTS,
    "document_scores": DOCUMENT_SCORES,
}
