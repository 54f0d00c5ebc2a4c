"""``python -m ingest scores``: document scores computed elsewhere → lake ``document_scores``.

Teams score pages with models that are not fastText (FineWeb-Edu's BERT regression, NeMo
Curator's classifiers), on GPUs, elsewhere. This ingest loads those scores beside the ones the
document ingest computes, for the registry's **precomputed** classifiers (``score_transform``
``precomputed`` or ``precomputed_clipped``, see ``ingest.quality``).

Inputs are Parquet or CSV (``.csv``, ``.csv.gz``) files, columns read by name (reading a file
is :mod:`ingest.score_files`; this module matches its rows with the lake and commits them):

* the document: ``doc_id`` (or FineWeb's ``id``), the WARC-Record-ID ``<urn:uuid:…>`` of the
  response record; or, in a file without an id column, ``url`` plus its crawl;
* the crawl: a ``crawl`` (or FineWeb's ``dump``) column, else the file's ``crawl=<id>`` folder,
  else ``--crawl``. Required for ``url`` rows; for id rows it restricts the match to that crawl.
  A folder and ``--crawl`` naming different crawls, nested ``crawl=`` folders naming different
  crawls, or a crawl column with a crawl other than the one the folder or ``--crawl`` names,
  refuse the file, naming both (``ingest.parquet_input.crawl_of_folder``): nothing silently
  wins;
* the classifier: a ``classifier`` column, or ``--classifier`` for a file without one (a file
  with both is refused). Every classifier must be a precomputed row of the registry, else the
  file is refused, naming file and classifier;
* ``score`` (or the column ``--score-column`` names, e.g. NeMo Curator's
  ``fineweb-mixtral-edu-score-float``, DCLM-baseline's
  ``fasttext_openhermes_reddit_eli5_vs_rw_v2_bigram_200k_train_prob``, FineWeb2-HQ's
  ``quality_score`` or datatrove's ``metadata.score``): the raw value (numeric; in CSV, text
  parsed as a number). The id, URL and crawl columns can be named too (``--id-column``,
  ``--url-column``, ``--crawl-column``), nested struct fields included: how a name is found,
  and what is refused, is in :mod:`ingest.score_files`.

A raw score v becomes ``v / score_scale``, after clipping to [0, score_scale] for
``precomputed_clipped``. Each row is written or rejected, by reason, in this order:
``missing_classifier``, ``missing_doc_id``/``missing_url``, ``missing_crawl`` (a ``url`` row
without one), ``bad_crawl`` (not ``CC-MAIN-YYYY-WW``), ``missing_score``, ``score_not_a_number``,
``score_not_finite`` (NaN, ±inf), ``score_out_of_range`` (``precomputed`` only),
``unknown_document`` (no committed document has that id, or that URL in that crawl),
``ambiguous_url`` (several committed documents of the crawl have the URL), ``duplicate_score``
(the document already has a committed score of the classifier, or an earlier row of the file
gave one). Committed documents and scores are the lake's parts a manifest row lists
(``ingest.lake.committed_parts``: the document ingest's rows list its ``documents`` and
``document_scores`` parts, this ingest's its ``document_scores`` parts).

Each file becomes ``document_scores/crawl=<crawl>/part-<key>.parquet`` (``schemas.
DOCUMENT_SCORES``; one part per crawl) and ``_manifest/document_scores/<key>.parquet``, the
commit record (``ingest.lake``). A file already committed (same checksum) is skipped;
``replace=True`` (``--replace``) uncommits it and ingests it again, for a file loaded before all
its documents were. The reject-rate limit counts every reason except ``unknown_document``: a
score file usually covers a whole crawl, the lake only its sample. A file none of whose rows
is written is refused (not committed), so that it can be ingested once its documents are.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest import schemas
from ingest.lake import (
    IngestReport,
    PartWriter,
    commit_parts,
    committed_parts,
    file_key,
    new_inputs,
    table_lock,
)
from ingest.parquet_input import is_crawl_id
from ingest.quality import ClassifierEntry
from ingest.score_files import (
    SUFFIXES,
    ScoreColumns,
    ScoresIngestError,
    check_classifiers,
    normalise,
    read_columns,
)

__all__ = [
    "SUFFIXES",
    "TABLE",
    "ScoreColumns",
    "ScoresIngestError",
    "ingest_scores",
    "is_score_file",
]

log = logging.getLogger(__name__)

TABLE = "document_scores"

# The reasons a row is rejected, in the order they are tested (see the module docstring).
REASONS = (
    "missing_classifier",
    "missing_doc_id",
    "missing_url",
    "missing_crawl",
    "bad_crawl",
    "missing_score",
    "score_not_a_number",
    "score_not_finite",
    "score_out_of_range",
    "unknown_document",
    "ambiguous_url",
    "duplicate_score",
)


def is_score_file(path: Path) -> bool:
    """Whether the file's name says Parquet or CSV (the formats this ingest reads)."""
    return path.name.endswith(SUFFIXES)


# ----------------------------------------------------------------------- the lake as it is


def _committed_files(lake: Path, parts: dict[str, dict], table: str) -> list[str]:
    """The committed parts of one table folder that are on disk (:func:`committed_parts`)."""
    files = (lake / relative for relative in sorted(parts) if relative.startswith(f"{table}/"))
    return [str(path) for path in files if path.is_file()]


def _register_lake(con: duckdb.DuckDBPyConnection, lake: Path, ingested_again: str) -> None:
    """Views of the committed documents and scores (``committed_documents``/``_scores``).

    The score parts of ``ingested_again`` (the file key of the input being read, committed
    already when it is ingested again, and kept so until its new copy replaces it) are left out:
    its rows are no duplicates of themselves.
    """
    parts = committed_parts(lake)
    documents = _committed_files(lake, parts, "documents")
    scores = [
        name
        for name in _committed_files(lake, parts, TABLE)
        if Path(name).stem != f"part-{ingested_again}"
    ]
    if documents:
        con.read_parquet(documents, hive_partitioning=True).select(
            "doc_id, url, crawl"
        ).create_view("committed_documents")
    else:
        con.sql(
            "create view committed_documents as select null::varchar as doc_id, "
            "null::varchar as url, null::varchar as crawl where false"
        )
    if scores:
        con.read_parquet(scores, hive_partitioning=True).select("doc_id, classifier").create_view(
            "committed_scores"
        )
    else:
        con.sql(
            "create view committed_scores as select null::varchar as doc_id, "
            "null::varchar as classifier where false"
        )


_MATCH = {
    "doc_id": """
        committed_documents.doc_id = input_rows.doc_id
        and (input_rows.crawl is null or committed_documents.crawl = input_rows.crawl)""",
    "url": """
        committed_documents.url = input_rows.url
        and committed_documents.crawl = input_rows.crawl""",
}

_JUDGE = """
with

matched as (
    select
        input_rows.position,
        count(committed_documents.doc_id) as match_count,
        min(committed_documents.doc_id) as matched_doc_id,
        min(committed_documents.crawl) as matched_crawl
    from input_rows
    left join committed_documents on {match}
    group by input_rows.position
),

judged as (
    select
        input_rows.position,
        matched.matched_doc_id,
        matched.matched_crawl,
        input_rows.classifier,
        try_cast(input_rows.score as double) as raw_score,
        scales.score_scale,
        scales.is_clipped,
        case
            when input_rows.classifier is null then 'missing_classifier'
            when '{key}' = 'doc_id' and input_rows.doc_id is null then 'missing_doc_id'
            when '{key}' = 'url' and input_rows.url is null then 'missing_url'
            when '{key}' = 'url' and input_rows.crawl is null then 'missing_crawl'
            when
                input_rows.crawl is not null
                and not regexp_full_match(input_rows.crawl, 'CC-MAIN-[0-9]{{4}}-[0-9]{{2}}')
                then 'bad_crawl'
            when input_rows.score is null then 'missing_score'
            when try_cast(input_rows.score as double) is null then 'score_not_a_number'
            when not isfinite(try_cast(input_rows.score as double)) then 'score_not_finite'
            when
                not scales.is_clipped
                and (
                    try_cast(input_rows.score as double) < 0
                    or try_cast(input_rows.score as double) > scales.score_scale
                )
                then 'score_out_of_range'
            when matched.match_count = 0 then 'unknown_document'
            when matched.match_count > 1 then 'ambiguous_url'
            when exists (
                select 1 from committed_scores
                where
                    committed_scores.doc_id = matched.matched_doc_id
                    and committed_scores.classifier = input_rows.classifier
            ) then 'duplicate_score'
        end as reason
    from input_rows
    inner join matched on input_rows.position = matched.position
    left join scales on input_rows.classifier = scales.classifier
)

select
    judged.position,
    case
        when judged.reason is not null then judged.reason
        when row_number() over (
            partition by judged.matched_doc_id, judged.classifier, judged.reason is null
            order by judged.position
        ) > 1 then 'duplicate_score'
    end as reason,
    judged.matched_doc_id as doc_id,
    judged.matched_crawl as crawl,
    judged.classifier,
    case
        when judged.is_clipped
            then least(greatest(judged.raw_score, 0), judged.score_scale) / judged.score_scale
        else judged.raw_score / judged.score_scale
    end as score
from judged
order by judged.position
"""


def _judge(
    lake: Path, rows: pa.Table, key: str, entries: list[ClassifierEntry], file: str
) -> pa.Table:
    """Each row's reason (null: written), resolved document, crawl and score in [0, 1].

    ``file`` is the input's file key (its own committed rows, if any, are not duplicates).
    """
    scales = pa.table(
        {
            "classifier": [entry.classifier for entry in entries],
            "score_scale": [float(entry.score_scale or 0.0) for entry in entries],
            "is_clipped": [entry.score_transform == "precomputed_clipped" for entry in entries],
        },
        schema=pa.schema(
            [("classifier", pa.string()), ("score_scale", pa.float64()), ("is_clipped", pa.bool_())]
        ),
    )
    con = duckdb.connect()
    try:
        con.register("input_rows", rows)
        con.register("scales", scales)
        _register_lake(con, lake, file)
        return con.sql(_JUDGE.format(match=_MATCH[key], key=key)).to_arrow_table()
    finally:
        con.close()


# ----------------------------------------------------------------------- one file


def _describe(rows: pa.Table) -> Callable[[int], str]:
    columns = {name: rows.column(name) for name in ("doc_id", "url", "crawl", "classifier")}
    score = rows.column("score")

    def describe(row: int) -> str:
        fields = [
            f"{name}={column[row].as_py()!r}"
            for name, column in columns.items()
            if column[row].is_valid
        ]
        return " ".join([*fields, f"score={score[row].as_py()!r}"])

    return describe


def _ingest_file(
    path: Path,
    sha: str,
    lake: Path,
    registry: dict[str, ClassifierEntry],
    classifier: str | None,
    crawl: str | None,
    columns: ScoreColumns,
    max_reject_rate: float,
) -> dict:
    started = datetime.now(UTC)
    table, sources = read_columns(path, columns)
    rows, key, drift = normalise(path, table, sources, classifier, crawl, columns.score)
    entries = check_classifiers(path, rows, registry)
    report = IngestReport(path, read=rows.num_rows, drift=drift)
    for note in drift:
        log.info("%s: schema drift: %s", path, note)
    judged = _judge(lake, rows, key, entries, file_key(sha))
    reasons = np.asarray(judged.column("reason").to_numpy(zero_copy_only=False), dtype=object)
    report.reject_rows(
        [(reason, reasons == reason) for reason in REASONS], 1, _describe(rows)
    )  # rows are numbered from 1 (in CSV, after the header)
    keep = np.equal(reasons, None)
    report.written = int(keep.sum())
    report.check(max_reject_rate=1.0)  # the books balance
    malformed = report.rejected_count - report.rejected["unknown_document"]
    if report.read and malformed / report.read > max_reject_rate:
        raise ScoresIngestError(
            f"{path}: {malformed:,} of {report.read:,} rows rejected for reasons other than "
            f"unknown_document (more than --max-reject-rate {max_reject_rate:.2%}); first: "
            + "; ".join(example for example in report.examples if "unknown_document" not in example)
        )
    if report.read and not report.written:
        raise ScoresIngestError(
            f"{path}: none of its {report.read:,} rows was written "
            f"({', '.join(f'{reason} {count:,}' for reason, count in report.rejected.items())}): "
            "ingest the documents first, or check the ids/URLs and the crawl; first: "
            + "; ".join(report.examples[:3])
        )
    kept = judged.filter(pa.array(keep))
    with PartWriter(
        lake, TABLE, file_key(sha), schemas.DOCUMENT_SCORES, "crawl", ["classifier"]
    ) as writer:
        crawls = kept.column("crawl")
        for value in sorted(pc.unique(crawls).to_pylist()):
            part = kept.filter(pc.equal(crawls, value)).select(["doc_id", "classifier", "score"])
            writer.write(value, part.cast(schemas.DOCUMENT_SCORES))
        parts = writer.finish()
    return commit_parts(
        lake, TABLE, report, sha, parts, started, crawl=",".join(sorted(writer.rows)) or None
    )


def ingest_scores(
    inputs: Iterable[Path],
    lake: Path,
    entries: Sequence[ClassifierEntry],
    classifier: str | None = None,
    crawl: str | None = None,
    score_column: str = "score",
    max_reject_rate: float = 0.001,
    replace: bool = False,
    id_column: str | None = None,
    url_column: str | None = None,
    crawl_column: str | None = None,
) -> list[dict]:
    """Ingest score files (Parquet/CSV) of precomputed classifiers; return new manifest rows.

    Files are ingested one at a time, in order, so a later file's duplicates of an earlier
    one's scores are caught. Files already in the lake (same SHA-256) are skipped unless
    ``replace``.

    Args:
        inputs: the files.
        lake: the lake folder.
        entries: the classifier registry (all its rows).
        classifier: the classifier of files without a ``classifier`` column.
        crawl: the crawl of files without a crawl column or ``crawl=<id>`` folder.
        score_column: the column holding the raw score (a dotted path reaches a struct's field).
        max_reject_rate: the largest share of rows a file may have rejected for reasons
            other than ``unknown_document``.
        replace: uncommit files already in the lake and ingest them again.
        id_column: the column holding the WARC-Record-ID (default ``doc_id`` or ``id``).
        url_column: the column holding the URL, for files matched by URL (default ``url``).
        crawl_column: the column holding the crawl (default ``crawl`` or ``dump``).

    Raises:
        ScoresIngestError: a file refused (unreadable, missing columns, a classifier that is
            not a precomputed registry row, too many rejected rows, nothing written); files
            done before it stay committed.
    """
    files = list(inputs)
    if not files:
        raise ScoresIngestError("no input files")
    if crawl is not None and not is_crawl_id(crawl):
        raise ScoresIngestError(f"not a crawl id: {crawl!r} (expected CC-MAIN-YYYY-WW)")
    registry = {entry.classifier: entry for entry in entries}
    columns = ScoreColumns(id_column, url_column, crawl_column, score_column)
    with table_lock(lake, [TABLE]):
        return [
            _ingest_file(path, sha, lake, registry, classifier, crawl, columns, max_reject_rate)
            for path, sha in new_inputs(lake, TABLE, files, replace=replace)
        ]
