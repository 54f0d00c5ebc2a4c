r"""``python -m ingest graph``: Common Crawl's host-level web graph → lake (``docs/formats.md``).

Three text formats, all gzip, TAB-separated, one record per line:

* ranks, ``<release>-host-ranks.txt.gz``: one ``#``-prefixed header line, then
  ``harmonicc_pos, harmonicc_val, pr_pos, pr_val, host_rev``. Values are Java
  ``Float``/``Double.toString`` text (``3.4626736E7``, ``3.79E-4``), read as DOUBLE; the older
  join path writes ``---`` for a missing value (null). → ``host_ranks``.
* vertices, ``<id>\t<rev_host>``, no header → ``host_vertices``.
* edges, ``<from_id>\t<to_id>``, no header → ``host_edges``.

Host names become the warehouse's host keys (``com.example.sub`` → ``com,example,sub``), one key
per host in every release: releases from ``cc-main-2025-26-nov-dec-jan`` on keep a leading
``www`` in vertex names (``com.facebook.www`` beside ``com.facebook``, two vertices), while
documents and the host index key ``www.facebook.com`` as ``com,facebook``. So a name ending in
``www`` (more than two labels) loses that label (:func:`ingest.hosts.graph_host_key`), in every
release alike (older ones dropped it before naming vertices, so nothing changes there):

* **ranks**: a ``www`` vertex whose bare host is a vertex too is merged with it into one row.
  Each measure keeps the position and value of the vertex *it* ranks higher (harmonic
  centrality from one vertex, PageRank perhaps from the other): the crawler fetches both names
  under one host key, and the name the graph finds more central is the site's main entry point
  (``com.facebook.www`` is rank 1, ``com.facebook`` rank 27 in cc-main-2026-apr-may-jun), so
  no measure is lowered by the merge and neither depends on which measure picks a "better"
  vertex. Positions are kept as published, not recomputed: a position is still the graph's
  rank of the value beside it and unique in its release, but a merged twin's position is left
  out, so positions are no longer a permutation (models rank values themselves where they
  need dense ranks). The less central twin's line counts as rejected for
  ``merged_www_twin`` (not towards ``max_reject_rate``), and the file's ``schema_drift``
  says how many ``www`` vertices were merged and how many only renamed (no bare vertex);
* **vertices**: one row per vertex still, keyed the same way, so a host with both names has
  two vertex ids and the edges of either join its one key (``schema_drift`` counts the
  ``www`` vertices); **edges** are vertex ids and unchanged.

The merge needs every vertex of the release at once: when a ranks file has ``www`` vertices,
its rows, written as read, are grouped by key by DuckDB (spilling to disk within
``_MERGE_MEMORY``) into the part that is committed; a file without any is written in one pass,
as before.

Every line is either written or rejected with its line number and a reason; a file with more
than ``max_reject_rate`` rejected lines fails and publishes nothing. A ranks file with its
header and no lines is refused (a release's ranks list every host of its graph: no lines means
a cut download), naming the file; nothing is committed.

What is rejected and what is nulled:

* a line is **rejected** (``malformed_<column>``, or ``wrong_column_count``) when a host name
  breaks the host-key rule of ``ingest.hosts`` (``com.exa mple``, ``com..a``, upper case, a
  label over 63 characters), a position is not an integer >= 1 (``0``, ``-3``, ``1.5``,
  ``NaN``, beyond int64), an id is not an integer >= 0, or a field is not a number at all:
  without its key the line cannot be placed;
* a ranks **value** that is impossible is **nulled** in a line still written, and counted in
  the manifest's ``nulled_by_reason``: ``non_finite_hc_val`` / ``non_finite_pr_val`` (NaN,
  ±Infinity, or a number such as ``1e400`` that overflows a double), ``out_of_range_hc_val``
  (negative: harmonic centrality is a sum of reciprocal distances) and ``out_of_range_pr_val``
  (outside [0, 1]: PageRank is a probability). The host and its positions stay usable.

A file that is not what its name says is refused whole, naming it (``LakeError``, nothing
published): a ``*.gz`` file that does not start with the gzip magic, a gzip stream that is
truncated or corrupt anywhere (its lost lines cannot be counted, so no part of it is committed).
A file whose name does not end in ``.gz`` is read as uncompressed text.

A release must be a row of ``seeds/graph_releases.csv`` (the crawls it spans, which the warehouse
orders releases by): an unknown name is refused before anything is read, so add its row there
first. A ``*.paths.gz`` listing (the relative paths of a host graph's vertices or edges parts,
``projects/hyperlinkgraph/<release>/host/vertices/part-….txt.gz``) is refused by its name or its
first line: it says which files to download, it is not the data.

Reading is streamed in blocks of ``block_size`` bytes, by a fast path and a careful one that
accept the same lines (:mod:`ingest.graph_text`, whose names this module re-exports: the tests
and the benches read files through ``ingest.webgraph``); this module puts what it reads into the
lake, one part per file, committed with its manifest row (``ingest.lake.commit_parts``).
"""

from __future__ import annotations

import csv as csv_text
import hashlib
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa

from hostaware import paths
from ingest import schemas
from ingest.graph_text import (
    BLOCK_SIZE,
    EDGES,
    HOST_HEADER,
    RANKS,
    VERTICES,
    TextFormat,
    read_text_table,
)
from ingest.hosts import graph_host_keys
from ingest.lake import (
    FinishedPart,
    IngestReport,
    LakeError,
    PartWriter,
    commit_parts,
    file_key,
    manifest_rows,
    missing_parts,
    prepare_tables,
    sha256_of,
    table_lock,
    uncommit,
    warn_missing_parts,
)

__all__ = [
    "EDGES",
    "GRAPH_RELEASES_CSV",
    "HOST_HEADER",
    "RANKS",
    "VERTICES",
    "TextFormat",
    "ingest_graph",
    "known_releases",
    "read_text_table",
]

log = logging.getLogger(__name__)


# The releases ingest accepts and the warehouse orders in time (the dbt seed of that name).
GRAPH_RELEASES_CSV = paths.GRAPH_RELEASES
_SEED_COLUMNS = ("release", "first_crawl", "last_crawl", "crawls")
_CRAWL_ID = re.compile(r"CC-MAIN-(\d{4})-(\d{2})")
_LISTING_SUFFIXES = (".paths.gz", ".paths")


# ----------------------------------------------------------------------- into the lake


def _to_lake(text_format: TextFormat, batch: pa.RecordBatch) -> tuple[pa.RecordBatch, int]:
    """A read batch as lake rows, host names keyed; and how many names lost a ``www``."""
    if text_format is EDGES:
        return pa.RecordBatch.from_arrays(batch.columns, schema=schemas.HOST_EDGES), 0
    keys, dropped = graph_host_keys(batch.column("host_rev"))
    if text_format is RANKS:
        rows = pa.RecordBatch.from_arrays([keys, *batch.columns[:4]], schema=schemas.HOST_RANKS)
    else:
        rows = pa.RecordBatch.from_arrays(
            [batch.column("vertex_id"), keys], schema=schemas.HOST_VERTICES
        )
    return rows, int(np.count_nonzero(dropped))


_TABLE_OF = {"ranks": "host_ranks", "vertices": "host_vertices", "edges": "host_edges"}
# Positions and ids are sorted or nearly so: delta encoding shrinks them to almost nothing.
_ENCODINGS = {
    "host_ranks": {
        "hc_pos": "DELTA_BINARY_PACKED",
        "pr_pos": "DELTA_BINARY_PACKED",
        "hc_val": "BYTE_STREAM_SPLIT",
        "pr_val": "BYTE_STREAM_SPLIT",
    },
    "host_vertices": {"vertex_id": "DELTA_BINARY_PACKED"},
    "host_edges": {"from_vertex_id": "DELTA_BINARY_PACKED", "to_vertex_id": "DELTA_BINARY_PACKED"},
}


def _ingest_file(
    path: Path,
    sha: str,
    text_format: TextFormat,
    release: str,
    lake: Path,
    max_reject_rate: float,
    block_size: int,
    replaces: Sequence[dict] = (),
) -> dict:
    table = _TABLE_OF[text_format.name]
    schema, partition = schemas.TABLES[table]
    started = datetime.now(UTC)
    key = release_key(release, sha)
    www_names = 0
    with PartWriter(
        lake, table, key, schema, partition, column_encoding=_ENCODINGS[table]
    ) as writer:

        def sink(batch: pa.RecordBatch) -> None:
            nonlocal www_names
            rows, dropped = _to_lake(text_format, batch)
            www_names += dropped
            writer.write(release, rows)

        def reset() -> None:  # the careful path starts again from the first line
            nonlocal www_names
            www_names = 0
            writer.discard()

        report = read_text_table(path, text_format, sink, reset, block_size)
        report.check(max_reject_rate)
        if report.written != writer.written:
            raise LakeError(f"{path}: {report.written} rows counted, {writer.written} written")
        parts = writer.finish()
    if www_names and text_format is RANKS:
        parts = _merge_www_twins(lake, parts, key, report, www_names)
    elif www_names:
        report.drift.append(
            f"host names keep a leading www: {www_names:,} www vertices keyed to their bare "
            "host (a host with both names has two vertex ids, and the edges of either join "
            "its one key)"
        )
    # The old rows go only now that the new file passed: a failed replace keeps the old.
    return commit_parts(
        lake, table, report, sha, parts, started, release=release, key=key, replaces=replaces
    )


# A ranks file's rows grouped by host key: each measure's (position, value) from the vertex it
# ranks higher (the smaller position; a missing position ranks last), rows in position order.
_MERGE_SQL = """
with

vertex_rows as (
    select * from read_parquet({source})
),

hosts_merged as (
    select
        surt_host_name,
        arg_min(
            struct_pack(pos := hc_pos, val := hc_val), coalesce(hc_pos, 9223372036854775807)
        ) as hc,
        arg_min(
            struct_pack(pos := pr_pos, val := pr_val), coalesce(pr_pos, 9223372036854775807)
        ) as pr,
        count(*) as vertex_count
    from vertex_rows
    group by surt_host_name
)

select
    surt_host_name,
    hc.pos as hc_pos,
    hc.val as hc_val,
    pr.pos as pr_pos,
    pr.val as pr_val,
    vertex_count
from hosts_merged
order by hc_pos nulls last, surt_host_name
"""
_MERGE_MEMORY = "1GB"  # DuckDB spills beyond it (300M hosts group in a few GB of disk)
_DISK_LEFT_FREE = 10 << 30  # the spill stops (an error) before the lake's disk has less free


def _spill_limit(folder: Path) -> str:
    """How much DuckDB may spill under ``folder``: its disk's free space less 10 GiB.

    At least 1 GiB: a merge that would need more stops with DuckDB's error, the disk not full.
    """
    free = shutil.disk_usage(folder).free
    return f"{max(free - _DISK_LEFT_FREE, 1 << 30)}B"


_MERGE_FOLDER_PREFIX = ".graph-merge-"  # under the lake; removed when done, or by the next run


def _merge_www_twins(
    lake: Path, parts: list[FinishedPart], key: str, report: IngestReport, www_names: int
) -> list[FinishedPart]:
    """Rewrite a ranks file's finished part with one row per host key (module docstring).

    Returns:
        The merged part, under its temporary name (the unmerged one is gone).
    """
    import duckdb  # only for releases whose names keep www

    (part,) = parts  # a ranks file writes one partition: its release
    table = "host_ranks"
    schema, partition = schemas.TABLES[table]
    release = part.final.split("/")[1].removeprefix(f"{partition}=")
    with tempfile.TemporaryDirectory(prefix=_MERGE_FOLDER_PREFIX, dir=lake) as scratch:
        unmerged = Path(scratch) / "unmerged.parquet"
        os.replace(part.temporary, unmerged)
        connection = duckdb.connect(
            config={
                "memory_limit": _MERGE_MEMORY,
                "temp_directory": str(Path(scratch) / "spill"),
                "max_temp_directory_size": _spill_limit(Path(scratch)),
            }
        )
        merged, example = 0, None
        try:
            with PartWriter(
                lake, table, key, schema, partition, column_encoding=_ENCODINGS[table]
            ) as writer:
                source = "'" + str(unmerged).replace("'", "''") + "'"
                result = connection.sql(_MERGE_SQL.format(source=source))
                for batch in result.to_arrow_reader(1 << 20):
                    twins = np.asarray(batch.column("vertex_count").to_numpy()) - 1
                    if example is None and twins.any():
                        first = int(np.flatnonzero(twins)[0])
                        example = (batch.column("hc_pos")[first], batch.column(0)[first])
                    merged += int(twins.sum())
                    columns = [
                        batch.column(name).cast(schema.field(name).type) for name in schema.names
                    ]
                    writer.write(release, pa.RecordBatch.from_arrays(columns, schema=schema))
                parts = writer.finish()
        finally:
            connection.close()
    if merged:
        position, host = example
        report.written -= merged
        report.reject(
            "merged_www_twin",
            f"hc_pos {position}",
            f"{host}: its www and bare vertices, one row",
            count=merged,
        )
    if report.read != report.written + report.rejected_count or parts[0].rows != report.written:
        raise LakeError(f"{report.path}: the www merge lost count of rows (a bug)")
    report.drift.append(
        f"host names keep a leading www: {www_names:,} www vertices keyed to their bare host, "
        f"{merged:,} merged with the bare host's vertex (each measure's position and value "
        f"from the vertex it ranks higher), {www_names - merged:,} renamed (no bare vertex)"
    )
    return parts


def _remove_merge_folders(lake: Path) -> None:
    """Delete what a killed merge left (call under the graph tables' lock)."""
    for folder in lake.glob(f"{_MERGE_FOLDER_PREFIX}*"):
        log.info("removing %s, left by an interrupted graph ingest", folder)
        shutil.rmtree(folder, ignore_errors=True)


def release_key(release: str, sha: str) -> str:
    """The part key of a file in a release: the same file may serve two releases (vertices)."""
    return file_key(hashlib.sha256(f"{release}:{sha}".encode()).hexdigest())


def _check_release(release: str) -> None:
    if not release or any(character in release for character in "/=\\ \t") or release == "_":
        raise LakeError(f"not a graph release name: {release!r} (e.g. cc-main-2024-nov-feb-apr)")


def known_releases(seed: Path = GRAPH_RELEASES_CSV) -> dict[str, tuple[str, ...]]:
    """The graph releases the seed lists, each with the crawls it spans (oldest first).

    Raises:
        LakeError: when the seed is missing or a row is malformed (named by its line).
    """
    try:
        with seed.open(newline="", encoding="utf-8") as handle:
            reader = csv_text.DictReader(handle)
            missing = [name for name in _SEED_COLUMNS if name not in (reader.fieldnames or [])]
            if missing:
                raise LakeError(f"{seed}:1: graph releases seed lacks column(s) {missing}")
            releases: dict[str, tuple[str, ...]] = {}
            for line, row in enumerate(reader, start=2):
                release, crawls = _seed_release(seed, line, row, releases)
                releases[release] = crawls
    except OSError as error:
        raise LakeError(f"cannot read the graph releases seed {seed}: {error}") from error
    return releases


def _seed_release(seed: Path, line: int, row: dict, known: dict) -> tuple[str, tuple[str, ...]]:
    """A seed row's release name and crawls, once checked."""
    release = (row["release"] or "").strip()
    crawls = (row["crawls"] or "").split(";")

    def bad(why: str) -> LakeError:
        return LakeError(f"{seed}:{line}: release {release!r}: {why}")

    if not release or release in known:
        raise bad("empty or listed twice")
    for crawl in crawls:
        match = _CRAWL_ID.fullmatch(crawl)
        if not match or not 1 <= int(match.group(2)) <= 53:
            raise bad(f"not a crawl id: {crawl!r} (e.g. CC-MAIN-2024-10)")
    if crawls != sorted(set(crawls)):
        raise bad(f"crawls not in time order or repeated: {row['crawls']!r}")
    if (row["first_crawl"], row["last_crawl"]) != (crawls[0], crawls[-1]):
        raise bad("first_crawl and last_crawl must be the first and last of its crawls")
    return release, tuple(crawls)


def _check_known(release: str, seed: Path) -> None:
    if release not in known_releases(seed):
        raise LakeError(
            f"unknown graph release {release!r}: add its row to {seed} "
            "(release,first_crawl,last_crawl,crawls,crawls_source; crawls: the ids of the "
            "crawls it spans, oldest first, separated by ';'), then run again"
        )


def _check_not_a_listing(path: Path) -> None:
    if path.name.endswith(_LISTING_SUFFIXES):
        raise LakeError(
            f"{path}: a *.paths.gz listing of files to download, not graph data: fetch each "
            "listed path from https://data.commoncrawl.org/ and pass the downloaded files"
        )


def ingest_graph(
    release: str,
    lake: Path,
    ranks: Path | None = None,
    vertices: list[Path] | None = None,
    edges: list[Path] | None = None,
    max_reject_rate: float = 0.001,
    replace: bool = False,
    block_size: int = BLOCK_SIZE,
    releases_csv: Path = GRAPH_RELEASES_CSV,
) -> list[dict]:
    """Ingest one release's ranks file and, optionally, its vertices and edges files.

    The release must be a row of ``releases_csv`` (the seed ``seeds/graph_releases.csv``). A
    file already in the lake (same SHA-256) is skipped. A release has one ranks file: a
    different one for a release that has one already is refused unless ``replace``.

    Returns:
        The manifest rows of the files ingested now.

    Raises:
        LakeError: for bad arguments (a release the seed lacks, a missing file, a ``*.paths.gz``
            listing), a bad header, or too many rejected lines.
    """
    _check_release(release)
    jobs = [(path, RANKS) for path in ([ranks] if ranks else [])]
    jobs += [(path, VERTICES) for path in vertices or []]
    jobs += [(path, EDGES) for path in edges or []]
    if not jobs:
        raise LakeError("nothing to ingest: give --ranks, --vertices or --edges")
    for path, _ in jobs:  # every argument checked before the lake is touched
        if not path.is_file():
            raise LakeError(f"no such file: {path}")
        _check_not_a_listing(path)
    _check_known(release, releases_csv)
    with table_lock(lake, _TABLE_OF.values()):
        prepare_tables(lake, _TABLE_OF.values())
        _remove_merge_folders(lake)
        given = {sha256_of(path) for path, _ in jobs}
        for table in _TABLE_OF.values():
            warn_missing_parts(lake, table, given)
        return [
            row
            for path, text_format in jobs
            if (
                row := _ingest_unless_committed(
                    path, text_format, release, lake, max_reject_rate, replace, block_size
                )
            )
            is not None
        ]


def _ingest_unless_committed(
    path: Path,
    text_format: TextFormat,
    release: str,
    lake: Path,
    max_reject_rate: float,
    replace: bool,
    block_size: int,
) -> dict | None:
    """Ingest one file of a release, unless it is committed in that release, whole, already."""
    table = _TABLE_OF[text_format.name]
    sha = sha256_of(path)
    committed = manifest_rows(lake, table)
    for row in committed:
        if row["source_sha256"] == sha and row["release"] == release:
            missing = missing_parts(lake, row)
            if not missing:
                log.info("%s: already in release %s (same checksum), skipped", path, release)
                return None
            log.warning(
                "%s: committed parts missing or changed (%s), ingesting it again",
                path,
                ", ".join(missing),
            )
            uncommit(lake, table, row)
            committed.remove(row)
            break
    earlier = []
    if text_format is RANKS:
        earlier = [row for row in committed if row["release"] == release]
        if earlier and not replace:
            raise LakeError(
                f"release {release!r} has ranks from {earlier[0]['source_file']} already; "
                "pass --replace to replace them"
            )
    return _ingest_file(path, sha, text_format, release, lake, max_reject_rate, block_size, earlier)
