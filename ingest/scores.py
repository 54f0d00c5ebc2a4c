"""``python -m ingest scores``: document scores computed elsewhere → lake ``document_scores``.

Teams score pages with models that are not fastText (FineWeb-Edu's BERT regression, NeMo
Curator's classifiers), on GPUs, elsewhere. This ingest loads those scores beside the ones the
document ingest computes, for the registry's **precomputed** classifiers (``score_transform``
``precomputed`` or ``precomputed_clipped``, see ``ingest.quality``).

Inputs are Parquet or CSV (``.csv``, ``.csv.gz``) files, columns read by name:

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
  ``fineweb-mixtral-edu-score-float``): the raw value (numeric; in CSV, text parsed as a number).

A raw score v becomes ``v / score_scale``, after clipping to [0, score_scale] for
``precomputed_clipped``. Each row is written or rejected, by reason, in this order:
``missing_classifier``, ``missing_doc_id``/``missing_url``, ``missing_crawl`` (a ``url`` row
without one), ``bad_crawl`` (not ``CC-MAIN-YYYY-WW``), ``missing_score``, ``score_not_a_number``,
``score_not_finite`` (NaN, ±inf), ``score_out_of_range`` (``precomputed`` only),
``unknown_document`` (no committed document has that id, or that URL in that crawl),
``ambiguous_url`` (several committed documents of the crawl have the URL), ``duplicate_score``
(the document already has a committed score of the classifier, or an earlier row of the file
gave one). Committed documents and scores are the lake's parts whose key has a manifest row
(``documents`` for the document ingest's, ``document_scores`` for this ingest's).

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
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ingest import schemas
from ingest.lake import (
    IngestReport,
    LakeError,
    PartWriter,
    commit_manifest,
    file_key,
    manifest_rows,
    new_inputs,
    table_lock,
)
from ingest.parquet_input import crawl_of_folder, is_crawl_id, open_parquet
from ingest.quality import ClassifierEntry

__all__ = ["SUFFIXES", "TABLE", "ScoresIngestError", "ingest_scores", "is_score_file"]

log = logging.getLogger(__name__)

TABLE = "document_scores"
SUFFIXES = (".parquet", ".csv", ".csv.gz")
_ID_COLUMNS = ("doc_id", "id")  # FineWeb calls the WARC-Record-ID `id`
_CRAWL_COLUMNS = ("crawl", "dump")  # FineWeb calls the crawl `dump`
_PART_KEY = re.compile(r"part-([0-9a-f]+)\.parquet$")

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


class ScoresIngestError(LakeError):
    """A score file that cannot be ingested as given (refused, naming the file)."""


def is_score_file(path: Path) -> bool:
    """Whether the file's name says Parquet or CSV (the formats this ingest reads)."""
    return path.name.endswith(SUFFIXES)


# ----------------------------------------------------------------------- reading a file


def _is_text(kind: pa.DataType) -> bool:
    types = pa.types
    return types.is_string(kind) or types.is_large_string(kind) or types.is_string_view(kind)


def _string_column(path: Path, table: pa.Table, name: str) -> pa.ChunkedArray:
    """A text column as ``string``, an empty value as null (a missing id, URL, crawl, …)."""
    column = table.column(name)
    kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if not _is_text(kind):
        raise ScoresIngestError(f"{path}: column {name!r} is {column.type}, not text")
    column = column.cast(pa.string())
    return pc.if_else(pc.equal(column, ""), pa.scalar(None, pa.string()), column)


def _read(path: Path, score_column: str) -> pa.Table:
    """The file's columns this ingest reads (text as text; CSV entirely as text)."""
    wanted = {*_ID_COLUMNS, "url", *_CRAWL_COLUMNS, "classifier", score_column}
    if path.name.endswith(".parquet"):
        try:
            parquet = open_parquet(path)
        except LakeError as error:
            raise ScoresIngestError(str(error)) from error
        names = parquet.schema_arrow.names
        if any(name in names for name in _ID_COLUMNS):
            wanted.discard("url")  # rows are matched by id: no need to read the URLs
        columns = [name for name in names if name in wanted]
        try:
            return parquet.read(columns=columns)
        except (OSError, pa.ArrowInvalid) as error:
            first_line = str(error).splitlines()[0]
            raise ScoresIngestError(f"{path}: not a readable Parquet file: {first_line}") from error
    if not path.name.endswith((".csv", ".csv.gz")):
        raise ScoresIngestError(f"{path}: not a score file (expected {', '.join(SUFFIXES)})")
    options = pacsv.ConvertOptions(
        column_types=dict.fromkeys(wanted, pa.string()),
        null_values=[""],  # so that "nan" stays text, a score that is not finite
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
    )
    try:
        table = pacsv.read_csv(path, convert_options=options)
    except (OSError, pa.ArrowInvalid) as error:
        first_line = str(error).splitlines()[0]
        raise ScoresIngestError(f"{path}: not a readable CSV file: {first_line}") from error
    return table.select([name for name in table.column_names if name in wanted])


def _crawl_of_path(path: Path, crawl: str | None) -> str | None:
    """The crawl the file's ``crawl=<id>`` folder or ``crawl`` names (refusing contradictions)."""
    try:
        return crawl_of_folder(path, crawl)
    except LakeError as error:
        raise ScoresIngestError(str(error)) from error


def _normalise(
    path: Path, table: pa.Table, score_column: str, classifier: str | None, crawl: str | None
) -> tuple[pa.Table, str, list[str]]:
    """The rows as ``position, doc_id, url, crawl, classifier, score``; the key; the drift.

    The key is ``doc_id`` when the file has an id column, else ``url``.

    Raises:
        ScoresIngestError: a required column is missing or of the wrong type, or the flags
            conflict with the file's columns.
    """
    names = set(table.column_names)
    rows = table.num_rows
    drift: list[str] = []
    if score_column not in names:
        raise ScoresIngestError(f"{path}: required column {score_column!r} is missing")
    score = table.column(score_column)
    kind = score.type
    if pa.types.is_integer(kind) or pa.types.is_decimal(kind):
        score = score.cast(pa.float64())
    elif _is_text(kind):
        score = score.cast(pa.string())  # parsed by the query: text that is not a number
    elif not pa.types.is_floating(kind):
        raise ScoresIngestError(f"{path}: column {score_column!r} is {kind}, not a number")

    id_name = next((name for name in _ID_COLUMNS if name in names), None)
    if id_name is not None:
        key = "doc_id"
        doc_id = _string_column(path, table, id_name)
        url = pa.nulls(rows, pa.string())
        if id_name != "doc_id":
            drift.append(f"column {id_name} read as doc_id (the WARC-Record-ID)")
    elif "url" in names:
        key = "url"
        doc_id = pa.nulls(rows, pa.string())
        url = _string_column(path, table, "url")
    else:
        raise ScoresIngestError(
            f"{path}: no document column: give doc_id (or id), the WARC-Record-ID, or url"
        )

    crawl_name = next((name for name in _CRAWL_COLUMNS if name in names), None)
    file_crawl = _crawl_of_path(path, crawl)
    if crawl_name is not None:
        crawls = _string_column(path, table, crawl_name)
        if crawl_name != "crawl":
            drift.append(f"column {crawl_name} read as crawl")
        others = sorted(
            value for value in pc.unique(crawls).to_pylist() if value not in (None, file_crawl)
        )
        if file_crawl is not None and others:
            raise ScoresIngestError(
                f"{path}: its {crawl_name} column names {', '.join(others[:3])}, but its folder "
                f"or --crawl names {file_crawl}: drop --crawl, or split the file"
            )
    else:
        if file_crawl is None and key == "url":
            raise ScoresIngestError(
                f"{path}: url rows need their crawl: a crawl (or dump) column, a crawl=<id> "
                "folder, or --crawl"
            )
        crawls = pa.repeat(pa.scalar(file_crawl, pa.string()), rows)

    if "classifier" in names:
        if classifier is not None:
            raise ScoresIngestError(
                f"{path}: has a classifier column; --classifier is for files without one"
            )
        classifiers = _string_column(path, table, "classifier")
    elif classifier is None:
        raise ScoresIngestError(
            f"{path}: no classifier column; name the classifier with --classifier"
        )
    else:
        classifiers = pa.repeat(pa.scalar(classifier, pa.string()), rows)

    normal = pa.table(
        {
            "position": pa.array(np.arange(rows, dtype=np.int64)),
            "doc_id": doc_id,
            "url": url,
            "crawl": crawls,
            "classifier": classifiers,
            "score": score,
        }
    )
    return normal, key, drift


def _check_classifiers(
    path: Path, table: pa.Table, registry: dict[str, ClassifierEntry]
) -> list[ClassifierEntry]:
    """The file's classifiers' registry rows; refuses a file naming others."""
    names = sorted(name for name in pc.unique(table.column("classifier")).to_pylist() if name)
    unknown = [name for name in names if name not in registry]
    if unknown:
        raise ScoresIngestError(
            f"{path}: classifier {', '.join(map(repr, unknown))} has no registry row"
        )
    computed = [name for name in names if not registry[name].is_precomputed]
    if computed:
        detail = ", ".join(f"{name!r} ({registry[name].score_transform})" for name in computed)
        raise ScoresIngestError(
            f"{path}: classifier {detail} is not precomputed: the document ingest scores it "
            "with its model; only precomputed/precomputed_clipped rows take scores from files"
        )
    return [registry[name] for name in names]


# ----------------------------------------------------------------------- the lake as it is


def _keys(lake: Path, table: str) -> set[str]:
    return {row["part_key"] or file_key(row["source_sha256"]) for row in manifest_rows(lake, table)}


def _committed_parts(lake: Path, table: str, keys: set[str]) -> list[str]:
    parts = []
    for part in sorted(lake.glob(f"{table}/*/part-*.parquet")):
        match = _PART_KEY.search(part.name)
        if match and match.group(1) in keys:
            parts.append(str(part))
    return parts


def _register_lake(con: duckdb.DuckDBPyConnection, lake: Path) -> None:
    """Views of the committed documents and scores (``committed_documents``/``_scores``)."""
    document_keys = _keys(lake, "documents")
    score_keys = document_keys | _keys(lake, TABLE)
    documents = _committed_parts(lake, "documents", document_keys)
    scores = _committed_parts(lake, TABLE, score_keys)
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


def _judge(lake: Path, rows: pa.Table, key: str, entries: list[ClassifierEntry]) -> pa.Table:
    """Each row's reason (null: written), resolved document, crawl and score in [0, 1]."""
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
        _register_lake(con, lake)
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
    score_column: str,
    max_reject_rate: float,
) -> dict:
    started = datetime.now(UTC)
    rows, key, drift = _normalise(path, _read(path, score_column), score_column, classifier, crawl)
    entries = _check_classifiers(path, rows, registry)
    report = IngestReport(path, read=rows.num_rows, drift=drift)
    for note in drift:
        log.info("%s: schema drift: %s", path, note)
    judged = _judge(lake, rows, key, entries)
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
        outputs = writer.publish()
    return commit_manifest(
        lake, TABLE, report, sha, outputs, started, crawl=",".join(sorted(writer.rows)) or None
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
        score_column: the column holding the raw score.
        max_reject_rate: the largest share of rows a file may have rejected for reasons
            other than ``unknown_document``.
        replace: uncommit files already in the lake and ingest them again.

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
    with table_lock(lake, [TABLE]):
        return [
            _ingest_file(
                path, sha, lake, registry, classifier, crawl, score_column, max_reject_rate
            )
            for path, sha in new_inputs(lake, TABLE, files, replace=replace)
        ]
