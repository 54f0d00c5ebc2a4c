"""Reading one score file of ``python -m ingest scores``: its columns, crawl and classifiers.

The file half of :mod:`ingest.scores` (which describes the columns read and the rejection
reasons, and matches the rows with the lake's committed documents): :func:`read_columns` finds
and reads the columns this ingest uses (CSV as text), :func:`normalise` gives the rows one shape
(``position, doc_id, url, crawl, classifier, score``) and the key they are matched by, and
:func:`check_classifiers` refuses a file naming a classifier that is not a precomputed row of
the registry.

**Which column is which.** By default the document is ``doc_id`` or FineWeb's ``id`` (else
``url``), the crawl ``crawl`` or FineWeb's ``dump``, the score ``score``. Each can be named
instead (:class:`ScoreColumns`: ``--id-column``, ``--url-column``, ``--crawl-column``,
``--score-column``), as a top-level name or, in Parquet, a dotted path into struct columns
(``metadata.score``, as datatrove writes a document's fields; an exact top-level name wins over
a path, so a name that holds a dot stays reachable: ``ingest.parquet_input.find_column``). A
file holding both default spellings of one role (``doc_id`` and ``id``, ``crawl`` and ``dump``)
is refused, naming both, unless that role's column is named: the two could disagree, and
nothing silently wins. A file naming one column twice is refused.

**Exact scores.** A float16 or float32 score is read as the float64 it is exactly. An integer
score is read as float64 when every value is within 2^53 (each such integer is a float64
exactly); a file holding a larger one is refused, naming the file, the column and the value: it
cannot be a score read without loss, and is more likely an id than a score.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ingest.lake import LakeError
from ingest.parquet_input import (
    column_paths,
    column_type,
    crawl_of_folder,
    extract,
    find_column,
    open_parquet,
    refuse_duplicate_names,
)
from ingest.quality import ClassifierEntry

__all__ = [
    "SUFFIXES",
    "ScoreColumns",
    "ScoresIngestError",
    "check_classifiers",
    "normalise",
    "read_columns",
]

SUFFIXES = (".parquet", ".csv", ".csv.gz")
_ID_COLUMNS = ("doc_id", "id")  # FineWeb calls the WARC-Record-ID `id`
_CRAWL_COLUMNS = ("crawl", "dump")  # FineWeb calls the crawl `dump`
_EXACT_INTEGER = 2**53  # every integer of this size or less is a float64 exactly


class ScoresIngestError(LakeError):
    """A score file that cannot be ingested as given (refused, naming the file)."""


@dataclass(frozen=True)
class ScoreColumns:
    """The columns the user named (``--id-column`` …); None: the defaults.

    Attributes:
        id: the document's WARC-Record-ID (default ``doc_id`` or ``id``).
        url: the document's URL, for a file matched by URL (default ``url``).
        crawl: the crawl (default ``crawl`` or ``dump``).
        score: the raw score (default ``score``).
    """

    id: str | None = None
    url: str | None = None
    crawl: str | None = None
    score: str = "score"


def _is_text(kind: pa.DataType) -> bool:
    types = pa.types
    return types.is_string(kind) or types.is_large_string(kind) or types.is_string_view(kind)


def _string_column(path: Path, table: pa.Table, role: str, name: str) -> pa.ChunkedArray:
    """A text column as ``string``, an empty value as null (a missing id, URL, crawl, …)."""
    column = table.column(role)
    kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
    if not _is_text(kind):
        raise ScoresIngestError(f"{path}: column {name!r} is {column.type}, not text")
    column = column.cast(pa.string())
    return pc.if_else(pc.equal(column, ""), pa.scalar(None, pa.string()), column)


def _one_of(path: Path, names: list[str], defaults: tuple[str, ...], flag: str) -> str | None:
    """The one default spelling of a role the file has; refuses a file with two."""
    found = [name for name in defaults if name in names]
    if len(found) > 1:
        raise ScoresIngestError(
            f"{path}: has both {found[0]!r} and {found[1]!r} columns, which could disagree: "
            f"name the one to read with {flag}"
        )
    return found[0] if found else None


def _roles(path: Path, names: list[str], chosen: ScoreColumns) -> dict[str, str]:
    """Role (``doc_id``, ``url``, ``crawl``, ``classifier``, ``score``) -> the name to read."""
    if chosen.id is not None and chosen.url is not None:
        raise ScoresIngestError(
            f"{path}: --id-column and --url-column both given: rows are matched by one of them"
        )
    roles = {"score": chosen.score}
    if chosen.id is not None:
        roles["doc_id"] = chosen.id
    elif chosen.url is not None:
        roles["url"] = chosen.url
    else:
        found = _one_of(path, names, _ID_COLUMNS, "--id-column")
        if found is not None:
            roles["doc_id"] = found
        elif "url" in names:
            roles["url"] = "url"
    crawl = chosen.crawl or _one_of(path, names, _CRAWL_COLUMNS, "--crawl-column")
    if crawl is not None:
        roles["crawl"] = crawl
    if "classifier" in names:
        roles["classifier"] = "classifier"
    named = {"id": chosen.id, "url": chosen.url, "crawl": chosen.crawl}
    for flag, name in named.items():
        if name is not None and name not in names:
            raise ScoresIngestError(f"{path}: column {name!r} (--{flag}-column) is not in the file")
    return roles


def read_columns(path: Path, chosen: ScoreColumns) -> tuple[pa.Table, dict[str, str]]:
    """The file's columns this ingest reads, renamed to their roles; and role -> source name.

    Text stays text (CSV is read entirely as text); the score is read as it is stored, and
    :func:`normalise` checks it. A role the file lacks is absent from both.
    """
    if path.name.endswith(".parquet"):
        try:
            parquet = open_parquet(path)
        except LakeError as error:
            raise ScoresIngestError(str(error)) from error
        schema = parquet.schema_arrow
        try:
            refuse_duplicate_names(path, schema)
            roles = _roles(path, column_paths(schema), chosen)
            refs = {role: find_column(path, schema, name) for role, name in roles.items()}
        except LakeError as error:
            raise ScoresIngestError(str(error)) from error
        refs = {role: ref for role, ref in refs.items() if ref is not None}
        tops = list(dict.fromkeys(ref.top for ref in refs.values()))
        try:
            table = parquet.read(columns=tops)
        except (OSError, pa.ArrowInvalid) as error:
            first_line = str(error).splitlines()[0]
            raise ScoresIngestError(f"{path}: not a readable Parquet file: {first_line}") from error
        for ref in refs.values():
            kind = column_type(schema, ref)
            if pa.types.is_struct(kind) or pa.types.is_list(kind):
                raise ScoresIngestError(f"{path}: column {ref.name!r} is {kind}, not a value")
        columns = {role: extract(table.column(ref.top), ref) for role, ref in refs.items()}
        return pa.table(columns), {role: ref.name for role, ref in refs.items()}
    if not path.name.endswith((".csv", ".csv.gz")):
        raise ScoresIngestError(f"{path}: not a score file (expected {', '.join(SUFFIXES)})")
    try:
        header = pacsv.open_csv(path).schema.names
    except (OSError, pa.ArrowInvalid) as error:
        first_line = str(error).splitlines()[0]
        raise ScoresIngestError(f"{path}: not a readable CSV file: {first_line}") from error
    if len(set(header)) < len(header):
        twice = next(name for name in header if header.count(name) > 1)
        raise ScoresIngestError(
            f"{path}: column name {twice!r} appears twice: which one is meant cannot be told; "
            "rewrite the file with one of them"
        )
    roles = {role: name for role, name in _roles(path, header, chosen).items() if name in header}
    options = pacsv.ConvertOptions(
        column_types=dict.fromkeys(roles.values(), pa.string()),
        include_columns=list(dict.fromkeys(roles.values())),
        null_values=[""],  # so that "nan" stays text, a score that is not finite
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
    )
    try:
        table = pacsv.read_csv(path, convert_options=options)
    except (OSError, pa.ArrowInvalid) as error:
        first_line = str(error).splitlines()[0]
        raise ScoresIngestError(f"{path}: not a readable CSV file: {first_line}") from error
    return pa.table({role: table.column(name) for role, name in roles.items()}), roles


def _crawl_of_path(path: Path, crawl: str | None) -> str | None:
    """The crawl the file's ``crawl=<id>`` folder or ``crawl`` names (refusing contradictions)."""
    try:
        return crawl_of_folder(path, crawl)
    except LakeError as error:
        raise ScoresIngestError(str(error)) from error


def _exact_score(path: Path, name: str, score: pa.ChunkedArray) -> pa.ChunkedArray:
    """The score column as float64 without loss, or text to be parsed; refuses what cannot be."""
    kind = score.type
    if pa.types.is_dictionary(kind):
        score, kind = score.cast(kind.value_type), kind.value_type
    if pa.types.is_integer(kind):
        ends = (pc.min(score).as_py(), pc.max(score).as_py())
        values = [value for value in ends if value is not None]
        too_big = [value for value in values if abs(value) > _EXACT_INTEGER]
        if too_big:
            raise ScoresIngestError(
                f"{path}: column {name!r} holds the integer {too_big[-1]}, beyond 2^53: it is no "
                "float64 exactly, so it cannot be read as a score without loss (an id column? "
                "name the score column with --score-column)"
            )
        return score.cast(pa.float64())
    if pa.types.is_decimal(kind) or pa.types.is_floating(kind):
        return score.cast(pa.float64())  # float16/float32 -> float64 is exact
    if _is_text(kind):
        return score.cast(pa.string())  # parsed by the query: text that is not a number
    raise ScoresIngestError(f"{path}: column {name!r} is {kind}, not a number")


def normalise(
    path: Path,
    table: pa.Table,
    sources: dict[str, str],
    classifier: str | None,
    crawl: str | None,
    score_column: str = "score",
) -> tuple[pa.Table, str, list[str]]:
    """The rows as ``position, doc_id, url, crawl, classifier, score``; the key; the drift.

    The key is ``doc_id`` when the file has an id column, else ``url``.

    Args:
        path: the file (for messages).
        table: its columns by role (:func:`read_columns`).
        sources: role -> the file's column name.
        classifier: ``--classifier``.
        crawl: ``--crawl``.
        score_column: the score column's name, for the message when it is missing.

    Raises:
        ScoresIngestError: a required column is missing or of the wrong type, or the flags
            conflict with the file's columns.
    """
    roles = set(table.column_names)
    rows = table.num_rows
    drift: list[str] = []
    if "score" not in roles:
        raise ScoresIngestError(f"{path}: required column {score_column!r} is missing")
    score = _exact_score(path, sources["score"], table.column("score"))
    if sources["score"] != "score":
        drift.append(f"column {sources['score']} read as score")

    if "doc_id" in roles:
        key = "doc_id"
        doc_id = _string_column(path, table, "doc_id", sources["doc_id"])
        url = pa.nulls(rows, pa.string())
        if sources["doc_id"] != "doc_id":
            drift.append(f"column {sources['doc_id']} read as doc_id (the WARC-Record-ID)")
    elif "url" in roles:
        key = "url"
        doc_id = pa.nulls(rows, pa.string())
        url = _string_column(path, table, "url", sources["url"])
        if sources["url"] != "url":
            drift.append(f"column {sources['url']} read as url")
    else:
        raise ScoresIngestError(
            f"{path}: no document column: give doc_id (or id), the WARC-Record-ID, or url "
            "(or name yours with --id-column or --url-column)"
        )

    file_crawl = _crawl_of_path(path, crawl)
    if "crawl" in roles:
        crawl_name = sources["crawl"]
        crawls = _string_column(path, table, "crawl", crawl_name)
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

    if "classifier" in roles:
        if classifier is not None:
            raise ScoresIngestError(
                f"{path}: has a classifier column; --classifier is for files without one"
            )
        classifiers = _string_column(path, table, "classifier", "classifier")
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
