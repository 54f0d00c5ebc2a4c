"""Explicit Arrow schemas of every table the ingest lands in the lake (``docs/formats.md``).

Each lake table lives at ``<lake>/<table>/<partition>=<value>/part-*.parquet`` (the lake is
``hostaware.paths.lake()``, ``$HOSTAWARE_HOME/lake``, unless ``--lake`` names another),
partitioned by ``crawl`` or, for the web graph, by ``release``. The partition is in the folder
name, not in the files, so readers use ``hive_partitioning = true``. Nothing is ever written with
an inferred schema. Column names are lower snake case; where a source spells a column otherwise
(``nutch_numRecords``), the reader maps it (``ingest.host_index``, ``ingest.annotations``).
"""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "DOCUMENTS",
    "DOCUMENT_SCORES",
    "HOST_ANNOTATIONS",
    "HOST_EDGES",
    "HOST_INDEX",
    "HOST_RANKS",
    "HOST_VERTICES",
    "MANIFEST",
    "PAGE_ANNOTATIONS",
    "TABLES",
]

# One row per HTML page kept from a WARC file (the classified-sample regime).
DOCUMENTS = pa.schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),  # WARC-Record-ID of the response record
        pa.field("url", pa.string(), nullable=False),  # WARC-Target-URI
        pa.field("surt_host_name", pa.string(), nullable=False),  # ingest.hosts.surt_host_name
        pa.field("url_host_registered_domain", pa.string()),  # example.co.uk
        pa.field("url_host_tld", pa.string()),  # last label of the host name: uk, com, de
        pa.field("url_host_registry_suffix", pa.string()),  # public suffix: co.uk, com, de
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
        pa.field("part_key", pa.string()),  # the <key> of its part-<key>.parquet files
        pa.field("crawl", pa.string()),  # the crawl partition written, for crawl tables
        pa.field("release", pa.string()),  # the graph release, for web-graph tables
        pa.field("records_read", pa.int64(), nullable=False),
        pa.field("records_written", pa.int64(), nullable=False),
        pa.field("records_rejected", pa.int64(), nullable=False),
        pa.field("rejected_by_reason", pa.map_(pa.string(), pa.int64())),
        pa.field("rejected_examples", pa.list_(pa.string())),  # "file:line: reason: text"
        # values set to null in records that were still written (a NaN rank, a bad cld2 field)
        pa.field("nulled_by_reason", pa.map_(pa.string(), pa.int64())),
        pa.field("schema_drift", pa.list_(pa.string())),  # how the input's schema differed
        pa.field("output_files", pa.list_(pa.string())),
        pa.field("output_sizes", pa.list_(pa.int64())),  # bytes of each output file, same order
        pa.field("started_at", pa.timestamp("us", tz="UTC")),
        pa.field("finished_at", pa.timestamp("us", tz="UTC")),
    ]
)

# ----------------------------------------------------------------------- web graph (release=)

# One row per host of a host-graph release: its ranks (FORMATS.md §1.4), 1-based positions.
HOST_RANKS = pa.schema(
    [
        pa.field("surt_host_name", pa.string(), nullable=False),  # com.example -> com,example
        pa.field("hc_pos", pa.int64()),  # harmonic-centrality position, 1 = most central
        pa.field("hc_val", pa.float64()),  # harmonic centrality (HyperBall, a Java float)
        pa.field("pr_pos", pa.int64()),  # PageRank position
        pa.field("pr_val", pa.float64()),  # PageRank (a Java double)
    ]
)

# One row per vertex of a host-graph release (FORMATS.md §1.2); ids are 0-based.
HOST_VERTICES = pa.schema(
    [
        pa.field("vertex_id", pa.int64(), nullable=False),
        pa.field("surt_host_name", pa.string(), nullable=False),
    ]
)

# One row per edge of a host-graph release (FORMATS.md §1.3), by vertex id.
HOST_EDGES = pa.schema(
    [
        pa.field("from_vertex_id", pa.int64(), nullable=False),
        pa.field("to_vertex_id", pa.int64(), nullable=False),
    ]
)

# ----------------------------------------------------------------------- crawls (crawl=)

# One row per host per crawl from Common Crawl's host index (FORMATS.md §2.2): the columns the
# analyses use. Counts are int64 whatever the partition stored (int32 or int64).
HOST_INDEX = pa.schema(
    [
        pa.field("surt_host_name", pa.string(), nullable=False),
        pa.field("url_host_registered_domain", pa.string()),  # example.co.uk
        pa.field("url_host_tld", pa.string()),  # last label of the host name: uk, com, va
        pa.field("url_host_registry_suffix", pa.string()),  # co.uk: from the registered domain
        pa.field("hcrank", pa.float64()),  # raw harmonic centrality of the graph
        pa.field("prank", pa.float64()),  # raw PageRank
        pa.field("hcrank10", pa.float64()),  # harmonic centrality on a 0-10 scale
        pa.field("prank10", pa.float64()),  # PageRank on a 0-10 scale
        pa.field("fetch_200", pa.int64()),  # 2xx captures archived
        pa.field("fetch_200_lote", pa.int64()),  # ... whose language is not English
        pa.field("fetch_200_lote_pct", pa.int64()),  # 0-100, as the index stores it
        pa.field("nutch_num_records", pa.int64()),  # known URLs (nutch_numRecords)
        pa.field("nutch_fetched", pa.int64()),  # URLs fetched
        pa.field("nutch_unfetched", pa.int64()),
        pa.field("nutch_gone", pa.int64()),
        pa.field("nutch_redir_temp", pa.int64()),
        pa.field("nutch_redir_perm", pa.int64()),
        pa.field("nutch_not_modified", pa.int64()),
        # the crawl's robots.txt requests by outcome (the same status buckets as fetch_*)
        pa.field("robots_200", pa.int64()),
        pa.field("robots_3xx", pa.int64()),  # 3xx other than 301/302/304/307/308
        pa.field("robots_4xx", pa.int64()),  # 4xx other than 404/410: 401, 403, 429, ...
        pa.field("robots_5xx", pa.int64()),
        pa.field("robots_gone", pa.int64()),  # 404 and 410: no robots.txt
        pa.field("robots_not_modified", pa.int64()),  # robots_notModified: 304
        pa.field("robots_other", pa.int64()),
        pa.field("robots_redir_perm", pa.int64()),  # robots_redirPerm: 301, 308
        pa.field("robots_redir_temp", pa.int64()),  # robots_redirTemp: 302, 307
    ]
)

# One row per annotated page per crawl, whatever the source (ingest/annotation_profiles.py says
# how each source's columns are read). What makes a page high quality is the warehouse's
# `annotation_profiles` seed, per profile, so the lake keeps the signals, not a verdict.
PAGE_ANNOTATIONS = pa.schema(
    [
        # the page within its crawl: doc_id where the source has one, else url_surtkey and
        # fetch_time (Common Crawl's URL-level annotations)
        pa.field("page_key", pa.string(), nullable=False),
        pa.field("doc_id", pa.string()),  # FineWeb `id`: the response's WARC-Record-ID
        pa.field("url", pa.string()),
        pa.field("url_surtkey", pa.string()),  # com,example)/path, when the source has it
        pa.field("fetch_time", pa.timestamp("us", tz="UTC")),  # the capture, when given
        pa.field("surt_host_name", pa.string(), nullable=False),  # ingest.hosts
        pa.field("annotation_profile", pa.string(), nullable=False),
        pa.field("language", pa.string()),
        pa.field("language_score", pa.float64()),
        pa.field("quality_score", pa.float64()),  # the profile's P(hq)-like score in [0, 1]
        pa.field("quality_int_score", pa.int64()),  # FineWeb-Edu's int_score (0-5)
        pa.field("in_gneissweb", pa.bool_()),  # the page is in GneissWeb
        pa.field("medical_score", pa.float64()),  # GneissWeb category probabilities
        pa.field("education_score", pa.float64()),
        pa.field("technology_score", pa.float64()),
        pa.field("science_score", pa.float64()),
    ]
)

# One row per annotated host per crawl (Common Crawl's host-level GneissWeb annotations).
HOST_ANNOTATIONS = pa.schema(
    [
        pa.field("surt_host_name", pa.string(), nullable=False),
        pa.field("annotation_profile", pa.string(), nullable=False),
        pa.field("in_gneissweb", pa.bool_()),  # the host has pages in GneissWeb
        pa.field("medical_score", pa.float64()),  # the host's category scores
        pa.field("education_score", pa.float64()),
        pa.field("technology_score", pa.float64()),
        pa.field("science_score", pa.float64()),
    ]
)

# Every lake table: its schema and its partition column.
TABLES: dict[str, tuple[pa.Schema, str]] = {
    "documents": (DOCUMENTS, "crawl"),
    "document_scores": (DOCUMENT_SCORES, "crawl"),
    "host_ranks": (HOST_RANKS, "release"),
    "host_vertices": (HOST_VERTICES, "release"),
    "host_edges": (HOST_EDGES, "release"),
    "host_index": (HOST_INDEX, "crawl"),
    "page_annotations": (PAGE_ANNOTATIONS, "crawl"),
    "host_annotations": (HOST_ANNOTATIONS, "crawl"),
}
