"""The rows the analyses start from: a lake's committed parts, or a warehouse's staging views.

A part of the lake counts when a manifest row commits it (``ingest.lake.committed_parts``, the
lake protocol's one definition of "committed", which the staging models apply too); its crawl
or release is the value of its partition folder. ``read_lake`` reads those parts into
``Inputs``, named as the staging views name their columns; ``read_staging`` reads the same
rows back from a built warehouse (whose lake may be gone).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ingest.lake import committed_parts

__all__ = [
    "ANNOTATION_COLUMNS",
    "DOCUMENT_COLUMNS",
    "HOST_ANNOTATION_COLUMNS",
    "HOST_CRAWL_COLUMNS",
    "Inputs",
    "committed_files",
    "read_lake",
    "read_staging",
]

DOCUMENT_COLUMNS = [
    "doc_id",
    "surt_host_name",
    "url_host_tld",
    "url_host_registry_suffix",
    "language",
]
SCORE_COLUMNS = ["doc_id", "classifier", "score"]
RANK_COLUMNS = ["release", "surt_host_name", "hc_val", "pr_val"]
HOST_CRAWL_COLUMNS = [
    "crawl",
    "surt_host_name",
    "url_host_tld",
    "url_host_registry_suffix",
    "url_host_registered_domain",
    "hc_val",
    "known_url_count",
    "fetched_url_count",
]
ANNOTATION_COLUMNS = [
    "crawl",
    "page_key",
    "surt_host_name",
    "annotation_profile",
    "quality_score",
    "quality_int_score",
    "in_gneissweb",
]
HOST_ANNOTATION_COLUMNS = ["crawl", "surt_host_name", "annotation_profile", "in_gneissweb"]


def _empty(columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame({column: pd.Series(dtype=object) for column in columns})


@dataclass(frozen=True)
class Inputs:
    """The committed rows the marts are computed from, one frame per staging view.

    ``host_crawls`` holds every host-index row (RQ4); the RQ1/RQ2 host profiles read the
    sample crawl's. A frame not given is empty.
    """

    documents: pd.DataFrame = field(default_factory=partial(_empty, DOCUMENT_COLUMNS))
    scores: pd.DataFrame = field(default_factory=partial(_empty, SCORE_COLUMNS))
    host_ranks: pd.DataFrame = field(default_factory=partial(_empty, RANK_COLUMNS))
    host_crawls: pd.DataFrame = field(default_factory=partial(_empty, HOST_CRAWL_COLUMNS))
    annotations: pd.DataFrame = field(default_factory=partial(_empty, ANNOTATION_COLUMNS))
    host_annotations: pd.DataFrame = field(default_factory=partial(_empty, HOST_ANNOTATION_COLUMNS))


def committed_files(lake: Path, table: str) -> list[tuple[Path, str]]:
    """The committed part files of a lake table and their partition values, in path order."""
    files = []
    for relative in committed_parts(lake):
        parts = relative.split("/")
        if len(parts) == 3 and parts[0] == table and "=" in parts[1]:
            path = lake / relative
            if path.is_file():
                files.append((path, parts[1].split("=", 1)[1]))
    return sorted(files)


# lake column -> staging name, per lake table
_RENAMES = {
    "host_index": {
        "hcrank": "hc_val",
        "nutch_num_records": "known_url_count",
        "nutch_fetched": "fetched_url_count",
        "fetch_200": "fetch_200_count",
    },
}


def _read_table(
    lake: Path, table: str, columns: list[str], partition: str | None, values: Iterable[str] | None
) -> pd.DataFrame:
    """The committed parts of a lake table, columns named as staging names them."""
    renames = _RENAMES.get(table, {})
    back = {staged: name for name, staged in renames.items()}
    # lake column -> staging name (the partition column comes from the folder)
    wanted = {back.get(c, c): c for c in columns if c != partition}
    chosen = set(values) if values is not None else None
    tables = []
    for path, value in committed_files(lake, table):
        if chosen is not None and value not in chosen:
            continue
        available = set(pq.read_schema(path).names)
        read = pq.read_table(path, columns=[c for c in wanted if c in available])
        for column in wanted:
            if column not in available:  # a part without the column (schema drift): nulls
                read = read.append_column(column, pa.nulls(read.num_rows))
        read = read.select(list(wanted)).rename_columns(list(wanted.values()))
        if partition:
            partition_value = pa.scalar(value, pa.string())
            read = read.append_column(partition, pa.repeat(partition_value, read.num_rows))
        tables.append(read)
    if not tables:
        return _empty(columns)
    frame = pa.concat_tables(tables, promote_options="permissive").to_pandas()
    return frame[columns]


def read_lake(
    lake: Path,
    *,
    crawls: Iterable[str] | None = None,
    releases: Iterable[str] | None = None,
    tables: Iterable[str] | None = None,
) -> Inputs:
    """The committed rows of ``lake`` as ``Inputs`` (only these crawls and releases if given).

    ``tables`` names the frames to read (``Inputs``' fields); the others stay empty.
    """
    crawls = list(crawls) if crawls is not None else None
    sources = {
        "documents": ("documents", DOCUMENT_COLUMNS, None, None),
        "scores": ("document_scores", SCORE_COLUMNS, None, None),
        "host_ranks": ("host_ranks", RANK_COLUMNS, "release", releases),
        "host_crawls": ("host_index", [*HOST_CRAWL_COLUMNS, "fetch_200_count"], "crawl", crawls),
        "annotations": ("page_annotations", ANNOTATION_COLUMNS, "crawl", crawls),
        "host_annotations": ("host_annotations", HOST_ANNOTATION_COLUMNS, "crawl", crawls),
    }
    chosen = set(tables) if tables is not None else set(sources)
    frames = {
        name: _read_table(lake, table, columns, partition, values)
        for name, (table, columns, partition, values) in sources.items()
        if name in chosen
    }
    return Inputs(**frames)


_STAGING = {
    "documents": f"select {', '.join(DOCUMENT_COLUMNS)} from stg_crawl__documents",
    "scores": "select doc_id, classifier, score from stg_crawl__document_scores",
    "host_ranks": f"select {', '.join(RANK_COLUMNS)} from stg_webgraph__host_ranks",
    "host_crawls": f"select {', '.join(HOST_CRAWL_COLUMNS)} from stg_host_index__host_crawls",
    "annotations": f"select {', '.join(ANNOTATION_COLUMNS[:-1])}, is_in_gneissweb as in_gneissweb "
    "from stg_annotations__pages",
    "host_annotations": f"select {', '.join(HOST_ANNOTATION_COLUMNS[:-1])}, "
    "is_in_gneissweb as in_gneissweb from stg_annotations__hosts",
}


def read_staging(warehouse: Path, tables: Iterable[str] | None = None) -> Inputs:
    """The rows of a built warehouse's staging views as ``Inputs`` (those named in ``tables``)."""
    import duckdb

    chosen = set(tables) if tables is not None else set(_STAGING)
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        frames = {
            name: connection.sql(query).df() for name, query in _STAGING.items() if name in chosen
        }
    return Inputs(**frames)
