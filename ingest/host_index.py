"""``python -m ingest host-index``: Common Crawl's host index → lake ``host_index`` (FORMATS.md §2).

One row per host per crawl, including hosts the crawl did not fetch. Input files are the index's
Parquet parts, laid out ``crawl=<CC-MAIN-YYYY-WW>/part-*.parquet`` (or give ``--crawl``). Only the
columns the analyses use are kept (``schemas.HOST_INDEX``), read by name, so the index's schema
drift between partitions is absorbed and reported (``ingest.parquet_input``).

A row is **rejected**, with its reason, when its ``surt_host_name`` is missing or empty
(``missing_surt_host_name``), breaks the host-key rule of ``ingest.hosts``
(``bad_surt_host_name``: ``com,exa mple``, ``com,b,,a``, ``%41``, upper case, a trailing comma,
a label over 63 characters), or one of its counts is negative (``negative_count``): the host
is the row's key, and a negative count says the row is garbage.

An impossible **value** in a row that is otherwise sound is **nulled** and counted in the
manifest's ``nulled_by_reason`` (the host stays, with what it says that can be trusted):

* ``non_finite_<column>``: a rank (``hcrank``, ``prank``, ``hcrank10``, ``prank10``) that is
  NaN or ±Infinity;
* ``out_of_range_<column>``: a negative rank, ``prank`` above 1 (PageRank is a probability),
  ``hcrank10``/``prank10`` outside [0, 10], ``fetch_200_lote_pct`` outside [0, 100];
* ``nutch_fetched_above_num_records``: ``nutch_fetched`` > ``nutch_numRecords`` — fetched URLs
  are a subset of the hostdb's records, so the pair contradicts itself and neither half can be
  trusted: both are nulled (counted once per row). The coverage mart used to clamp such a
  host's coverage to 1.0 without a word; now it has no coverage (not analysed), and the
  manifest says how many;
* ``fetch_200_lote_above_fetch_200``: more non-English captures than captures. The pages
  (``fetch_200``) are what the analyses count and are kept; the language split
  (``fetch_200_lote`` and its ``_pct``) is nulled.

Whether a host appears once per crawl is a property of the whole table, checked by the staging
model's tests rather than here, so that memory does not grow with the index.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest import schemas
from ingest.hosts import bad_host_keys, registry_suffixes
from ingest.lake import (
    IngestReport,
    LakeError,
    PartWriter,
    commit_parts,
    file_key,
    map_files,
    new_inputs,
    table_lock,
)
from ingest.parquet_input import crawl_of_path, open_parquet, plan_columns, read_planned

__all__ = ["REFERENCE_TYPES", "SOURCE_NAMES", "ingest_host_index"]

log = logging.getLogger(__name__)

TABLE = "host_index"

# Lake column → the index's column, where the spelling differs (athena_schema.v2.sql).
SOURCE_NAMES = {
    "nutch_num_records": "nutch_numRecords",
    "nutch_redir_temp": "nutch_redirTemp",
    "nutch_redir_perm": "nutch_redirPerm",
    "nutch_not_modified": "nutch_notModified",
    "robots_not_modified": "robots_notModified",
    "robots_redir_perm": "robots_redirPerm",
    "robots_redir_temp": "robots_redirTemp",
}

# The index's reference types (athena_schema.v2.sql: `int` is int32, ranks double).
REFERENCE_TYPES: dict[str, pa.DataType] = {
    SOURCE_NAMES.get(field.name, field.name): (
        pa.int32() if field.type == pa.int64() else field.type
    )
    for field in schemas.HOST_INDEX
    if field.name != "url_host_registry_suffix"
}

_COUNTS = [field.name for field in schemas.HOST_INDEX if field.type == pa.int64()]

# The columns read from the index: all but the public suffix, derived from the registered
# domain (ingest.hosts: the same derivation as the documents').
_DERIVED = "url_host_registry_suffix"
_READ = pa.schema([field for field in schemas.HOST_INDEX if field.name != _DERIVED])


# Rank columns' possible ranges (module docstring): (low, high), None for no bound.
_RANGES: dict[str, tuple[float, float | None]] = {
    "hcrank": (0.0, None),
    "prank": (0.0, 1.0),
    "hcrank10": (0.0, 10.0),
    "prank10": (0.0, 10.0),
    "fetch_200_lote_pct": (0, 100),
}
_FLOATS = [field.name for field in schemas.HOST_INDEX if pa.types.is_floating(field.type)]


def _mask(values: pa.Array | pa.ChunkedArray, null_is: bool) -> np.ndarray:
    return np.asarray(pc.fill_null(values, null_is).to_numpy(zero_copy_only=False), dtype=bool)


def _null_rows(
    batch: pa.RecordBatch,
    report: IngestReport,
    first_row: int,
    reason: str,
    mask: np.ndarray,
    columns: list[str],
) -> pa.RecordBatch:
    """The batch with ``columns`` nulled where ``mask`` is set, counted once per row."""
    rows = np.flatnonzero(mask)
    if not rows.size:
        return batch
    for row in rows[:3].tolist():
        values = ", ".join(f"{name}={batch.column(name)[row].as_py()!r}" for name in columns)
        report.null(reason, f"row {first_row + row}", values)
    if rows.size > 3:
        report.nulled[reason] += int(rows.size - 3)
    nulled = pa.array(mask)
    arrays = [
        pc.if_else(nulled, pa.scalar(None, column.type), column) if name in columns else column
        for name, column in zip(batch.schema.names, batch.columns, strict=True)
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=batch.schema)


def _null_impossible(
    batch: pa.RecordBatch, report: IngestReport, first_row: int, rejected: np.ndarray
) -> pa.RecordBatch:
    """The batch with its impossible values nulled, each counted by reason.

    Rows in ``rejected`` are left alone (they are counted as rejected, not as nulled).
    """
    for name in _FLOATS:
        non_finite = ~_mask(pc.is_finite(batch.column(name)), True) & ~rejected
        batch = _null_rows(batch, report, first_row, f"non_finite_{name}", non_finite, [name])
    for name, (low, high) in _RANGES.items():
        column = batch.column(name)
        outside = pc.less(column, low)
        if high is not None:
            outside = pc.or_(outside, pc.greater(column, high))
        outside = _mask(outside, False) & ~rejected
        batch = _null_rows(batch, report, first_row, f"out_of_range_{name}", outside, [name])
    above = pc.greater(batch.column("nutch_fetched"), batch.column("nutch_num_records"))
    batch = _null_rows(
        batch,
        report,
        first_row,
        "nutch_fetched_above_num_records",
        _mask(above, False) & ~rejected,
        ["nutch_fetched", "nutch_num_records"],
    )
    lote_above = pc.greater(batch.column("fetch_200_lote"), batch.column("fetch_200"))
    return _null_rows(
        batch,
        report,
        first_row,
        "fetch_200_lote_above_fetch_200",
        _mask(lote_above, False) & ~rejected,
        ["fetch_200_lote", "fetch_200_lote_pct"],
    )


def _checked(batch: pa.RecordBatch, report: IngestReport, first_row: int) -> pa.RecordBatch:
    """The batch without its invalid rows (counted as rejected), impossible values nulled."""
    host = batch.column("surt_host_name")
    missing = np.asarray(
        pc.fill_null(pc.equal(pc.utf8_length(host), 0), True).to_numpy(zero_copy_only=False)
    )
    malformed = bad_host_keys(host) & ~missing
    negative = np.zeros(batch.num_rows, dtype=bool)
    for name in _COUNTS:
        column = batch.column(name)
        if column.null_count < len(column) and pc.min(column).as_py() < 0:
            negative |= np.asarray(
                pc.fill_null(pc.less(column, 0), False).to_numpy(zero_copy_only=False)
            )
    bad = missing | malformed | negative
    if bad.any():
        report.reject_rows(
            (
                ("missing_surt_host_name", missing),
                ("bad_surt_host_name", malformed),
                ("negative_count", negative & ~missing & ~malformed),
            ),
            first_row,
            lambda row: str(batch.slice(row, 1).to_pylist()),
        )
    batch = _null_impossible(batch, report, first_row, bad)  # rows as numbered in the file
    return batch.filter(pa.array(~bad)) if bad.any() else batch


def _with_registry_suffix(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch in the lake schema: the public suffix added from the registered domain."""
    suffix = registry_suffixes(batch.column("url_host_registered_domain"))
    arrays = [
        suffix if field.name == _DERIVED else batch.column(field.name)
        for field in schemas.HOST_INDEX
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schemas.HOST_INDEX)


def _ingest_file(
    path: Path, sha: str, crawl: str, lake: Path, max_reject_rate: float, batch_rows: int
) -> dict:
    started = datetime.now(UTC)
    parquet = open_parquet(path)
    plan, drift = plan_columns(
        path,
        parquet.schema_arrow,
        _READ,
        SOURCE_NAMES,
        REFERENCE_TYPES,
        required=["surt_host_name"],
    )
    report = IngestReport(path, drift=drift)
    for note in drift:
        log.info("%s: schema drift: %s", path, note)
    with PartWriter(
        lake,
        TABLE,
        file_key(sha),
        schemas.HOST_INDEX,
        "crawl",
        dictionary_columns=["url_host_tld", _DERIVED],
    ) as writer:
        for batch in read_planned(parquet, plan, batch_rows):
            first_row = report.read
            report.read += batch.num_rows
            kept = _with_registry_suffix(_checked(batch, report, first_row))
            report.written += kept.num_rows
            writer.write(crawl, kept)
        report.check(max_reject_rate)
        return commit_parts(lake, TABLE, report, sha, writer.finish(), started, crawl=crawl)


def ingest_host_index(
    inputs: list[Path],
    lake: Path,
    crawl: str | None = None,
    max_reject_rate: float = 0.001,
    batch_rows: int = 1 << 18,
    workers: int | None = None,
    replace: bool = False,
) -> list[dict]:
    """Ingest host-index Parquet files; return the manifest rows of the files ingested now.

    Each file's crawl is its ``crawl=<id>`` folder, else ``crawl``. Files already in the lake
    (same SHA-256, same crawl) are skipped; one in the lake under another crawl is refused
    unless ``replace`` (then it moves: see :func:`ingest.lake.new_inputs`); the others are
    ingested by ``workers`` processes (default: one per core), each file on its own.

    Raises:
        LakeError: for a file without a crawl, unreadable or incompatible, or with too many
            rejected rows (files already done stay committed).
    """
    if not inputs:
        raise LakeError("no input files")
    crawls = {path: crawl_of_path(path, crawl) for path in inputs}  # fail before any work
    with table_lock(lake, [TABLE]):
        jobs = [
            (path, sha, crawls[path], lake, max_reject_rate, batch_rows)
            for path, sha in new_inputs(lake, TABLE, inputs, crawls, replace)
        ]
        return map_files(_ingest_file, jobs, workers)
