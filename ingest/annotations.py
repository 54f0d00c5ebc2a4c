"""``python -m ingest annotations``: GneissWeb page annotations → lake ``page_annotations``.

Inputs are Parquet files of FineWeb/GneissWeb rows (FORMATS.md §3.2-3.3): ``id`` (the
WARC-Record-ID), ``dump`` (the crawl), ``url``, optionally ``url_surtkey``, and the GneissWeb
classifier columns (``cosmo_fastText_score``, ``dclm_fastText_score``, the category
labels and scores, readability, tokens per character, ``in_gneissweb``). Columns are read by
name; a missing optional column is null and reported as drift (``ingest.parquet_input``).

Each row's crawl is its ``dump``; a file without ``dump`` takes its ``crawl=<id>`` folder or
``--crawl``. The host key ``surt_host_name`` is derived from the URL by ``ingest.hosts``, the one
place host keys are made, so annotations join to the host index and the graph by it.

A row is rejected, with its reason, when its id is missing (``missing_id``), its URL has no valid
host (``bad_url``), its crawl is not a crawl id (``bad_crawl``), or a score lies outside [0, 1]
(``score_out_of_range``). Uniqueness of ``(crawl, doc_id)`` is checked by the staging model's
tests.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest import schemas
from ingest.hosts import surt_host_names_of_urls
from ingest.lake import (
    IngestReport,
    LakeError,
    PartWriter,
    commit_manifest,
    file_key,
    map_files,
    new_inputs,
)
from ingest.parquet_input import (
    crawl_of_path,
    is_crawl_id,
    open_parquet,
    plan_columns,
    read_planned,
)

__all__ = ["SOURCE_NAMES", "ingest_annotations"]

log = logging.getLogger(__name__)

TABLE = "page_annotations"

# Lake column → the source's column, where the spelling differs.
SOURCE_NAMES = {
    "doc_id": "id",
    "cosmo_fasttext_label": "cosmo_fastText_label",
    "cosmo_fasttext_score": "cosmo_fastText_score",
    "dclm_fasttext_label": "dclm_fastText_label",
    "dclm_fasttext_score": "dclm_fastText_score",
}
_SCORES = [name for name in schemas.PAGE_ANNOTATIONS.names if name.endswith("_score")]
_SCORES.remove("language_score")  # a language-ID confidence, also in [0, 1]
_SCORES.append("language_score")

# The rows as read: the lake's columns except the derived host key, plus the crawl.
_READ = pa.schema(
    [field for field in schemas.PAGE_ANNOTATIONS if field.name != "surt_host_name"]
    + [pa.field("dump", pa.string())]
)


def _convert(
    batch: pa.RecordBatch, report: IngestReport, first_row: int, crawl: str | None
) -> dict[str, pa.RecordBatch]:
    """The batch's valid rows in the lake schema, by crawl; the others counted as rejected."""
    rows = batch.num_rows
    ids = batch.column("doc_id")
    missing_id = np.asarray(
        pc.fill_null(pc.equal(pc.utf8_length(ids), 0), True).to_numpy(zero_copy_only=False)
    )
    hosts, bad_url = surt_host_names_of_urls(batch.column("url"))
    dump = batch.column("dump") if crawl is None else pa.repeat(pa.scalar(crawl), rows)
    valid = [value for value in pc.unique(dump).to_pylist() if value and is_crawl_id(value)]
    bad_crawl = ~np.asarray(
        pc.is_in(dump, value_set=pa.array(valid, pa.string())).to_numpy(zero_copy_only=False),
        dtype=bool,
    )
    out_of_range = np.zeros(rows, dtype=bool)
    for name in _SCORES:
        column = batch.column(name)
        if column.null_count == rows:
            continue
        inside = pc.and_(pc.greater_equal(column, 0.0), pc.less_equal(column, 1.0))
        out_of_range |= ~np.asarray(
            pc.fill_null(inside, True).to_numpy(zero_copy_only=False), dtype=bool
        )
    reasons = (
        ("missing_id", missing_id),
        ("bad_url", bad_url & ~missing_id),
        ("bad_crawl", bad_crawl & ~missing_id & ~bad_url),
        ("score_out_of_range", out_of_range & ~missing_id & ~bad_url & ~bad_crawl),
    )
    bad = missing_id | bad_url | bad_crawl | out_of_range
    report.reject_rows(
        reasons,
        first_row,
        lambda row: f"id={ids[row].as_py()!r} url={batch.column('url')[row].as_py()!r}",
    )
    arrays = [
        hosts if field.name == "surt_host_name" else batch.column(field.name)
        for field in schemas.PAGE_ANNOTATIONS
    ]
    table = pa.RecordBatch.from_arrays(arrays, schema=schemas.PAGE_ANNOTATIONS)
    keep = ~bad
    report.written += int(keep.sum())
    if not keep.any():
        return {}
    if keep.all() and len(valid) == 1:
        return {valid[0]: table}
    kept_crawls = dump.filter(pa.array(keep))
    table = table.filter(pa.array(keep))
    return {value: table.filter(pc.equal(kept_crawls, value)) for value in sorted(valid)}


def _ingest_file(
    path: Path,
    sha: str,
    crawl: str | None,
    lake: Path,
    max_reject_rate: float,
    batch_rows: int,
) -> dict:
    started = datetime.now(UTC)
    parquet = open_parquet(path)
    plan, drift = plan_columns(
        path, parquet.schema_arrow, _READ, SOURCE_NAMES, {}, required=["doc_id", "url"]
    )
    if plan.sources[-1] is None:  # no dump column: the crawl comes from the path or --crawl
        drift = [note for note in drift if not note.startswith("missing column dump")]
        crawl = crawl_of_path(path, crawl)
    else:  # each row names its crawl
        crawl = None
    report = IngestReport(path, drift=drift)
    for note in drift:
        log.info("%s: schema drift: %s", path, note)
    with PartWriter(
        lake,
        TABLE,
        file_key(sha),
        schemas.PAGE_ANNOTATIONS,
        "crawl",
        dictionary_columns=[
            name for name in schemas.PAGE_ANNOTATIONS.names if name.endswith("_label")
        ]
        + ["language", "in_gneissweb"],
    ) as writer:
        for batch in read_planned(parquet, plan, batch_rows):
            first_row = report.read
            report.read += batch.num_rows
            for value, part in _convert(batch, report, first_row, crawl).items():
                writer.write(value, part)
        report.check(max_reject_rate)
        outputs = writer.publish()
    crawls = sorted(writer.rows)
    return commit_manifest(
        lake, TABLE, report, sha, outputs, started, crawl=",".join(crawls) or crawl
    )


def ingest_annotations(
    inputs: list[Path],
    lake: Path,
    crawl: str | None = None,
    max_reject_rate: float = 0.001,
    batch_rows: int = 1 << 18,
    workers: int | None = None,
) -> list[dict]:
    """Ingest GneissWeb/FineWeb annotation Parquet files; return the new manifest rows.

    Files already in the lake (same SHA-256) are skipped; the others are ingested by
    ``workers`` processes (default: one per core), each file on its own.

    Raises:
        LakeError: for a file that is unreadable, lacks ``id``/``url``, has no crawl, or has
            too many rejected rows (files already done stay committed).
    """
    if not inputs:
        raise LakeError("no input files")
    if crawl is not None and not is_crawl_id(crawl):
        raise LakeError(f"not a crawl id: {crawl!r} (expected CC-MAIN-YYYY-WW)")
    jobs = [
        (path, sha, crawl, lake, max_reject_rate, batch_rows)
        for path, sha in new_inputs(lake, TABLE, inputs)
    ]
    return map_files(_ingest_file, jobs, workers)
