"""Reading one score file of ``python -m ingest scores``: its columns, crawl and classifiers.

The file half of :mod:`ingest.scores` (which describes the columns read and the rejection
reasons, and matches the rows with the lake's committed documents): :func:`read_columns` reads
the columns this ingest uses (CSV as text), :func:`normalise` gives the rows one shape
(``position, doc_id, url, crawl, classifier, score``) and the key they are matched by, and
:func:`check_classifiers` refuses a file naming a classifier that is not a precomputed row of
the registry.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ingest.lake import LakeError
from ingest.parquet_input import crawl_of_folder, open_parquet
from ingest.quality import ClassifierEntry

__all__ = ["SUFFIXES", "ScoresIngestError", "check_classifiers", "normalise", "read_columns"]

SUFFIXES = (".parquet", ".csv", ".csv.gz")
_ID_COLUMNS = ("doc_id", "id")  # FineWeb calls the WARC-Record-ID `id`
_CRAWL_COLUMNS = ("crawl", "dump")  # FineWeb calls the crawl `dump`


class ScoresIngestError(LakeError):
    """A score file that cannot be ingested as given (refused, naming the file)."""


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


def read_columns(path: Path, score_column: str) -> pa.Table:
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


def normalise(
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


def check_classifiers(
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
