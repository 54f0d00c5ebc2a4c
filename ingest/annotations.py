"""``python -m ingest annotations``: page and host quality annotations → the lake.

Each input Parquet file is read under one annotation profile (``ingest.annotation_profiles``),
detected from its columns or named with ``--profile``; a file that matches no profile, or whose
quality columns are all null, is refused with a message naming it and what is missing. Page-level
profiles land in ``page_annotations``, host-level ones in ``host_annotations`` (``ingest.schemas``).

Per row:

* the crawl is the row's ``dump`` (FineWeb-based sources) or ``crawl`` column, else the file's
  ``crawl=<id>`` folder, else ``--crawl``. A folder and ``--crawl`` that name different crawls,
  or nested ``crawl=`` folders that do, refuse the file before anything is read (neither
  silently wins); where rows name their crawl and the folder or ``--crawl`` names one too, a
  row naming another crawl is rejected (``crawl_mismatch``);
* the host key ``surt_host_name`` comes from ``ingest.hosts``: from the URL, from the host part
  of Common Crawl's SURT URL key (``com,example)/path`` → ``com,example``, already in Common
  Crawl's form), or, at host level, as given. Either way it must pass the host-key rule of
  ``ingest.hosts`` (the one the document ingest applies): a SURT key is taken as written, not
  lower-cased, so ``Com,Example`` is rejected like ``com,exa mple`` or ``com,b,,a``;
* the page key is the record id where the source has one, else ``url_surtkey`` and
  ``fetch_time`` (``com,example)/a 2024-03-01T12:00:00.000000Z``).

A row is rejected, with its reason, when it has no key (``missing_key``), no valid host
(``bad_host``), no valid crawl (``bad_crawl``), a crawl other than the folder's or
``--crawl``'s (``crawl_mismatch``), no quality signal (``missing_quality``), a
label the profile does not know (``unknown_label``), a value outside its range
(``score_out_of_range``), under ``dpk_gneissweb`` a score below 0.5, which cannot be the
probability of a binary model's predicted label (``score_not_predicted_label_probability``),
or, under the FineWeb-Edu profiles, an ``int_score`` other than round(clip(score, 0, 5)), ties
to even, as the FineWeb-Edu classifier computes it (``int_score_disagrees_with_score``: the row
says two things and neither can be chosen).

Under ``dpk_gneissweb`` a GneissWeb *category* (medical, education, technology, science) that
cannot be read is nulled in a row that is still written, and counted in the manifest's
``nulled_by_reason``, one count per value: a label other than the category's own or ``cc``
(``unknown_category_label``, a score with no label included), a score outside [0, 1]
(``category_score_out_of_range``), a score below 0.5
(``category_score_not_predicted_label_probability``). A category with neither label nor score
is absent, not counted.

A file naming one column twice, or holding two spellings of one column the profile reads
(``cosmo_fastText_label`` and ``label_quality``, ``in_gneissweb`` and ``IN_GNEISSWEB``), is
refused, naming them: the two could disagree and nothing silently wins. ``columns``
(``--column NAME=COLUMN``, with ``--profile``) names the file's column a profile column is read
from, a dotted path into struct columns included (``ingest.parquet_input.find_column``).
Uniqueness of (crawl, page_key) and of (crawl, surt_host_name, annotation_profile) is checked by
the staging models' tests.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest import schemas
from ingest.annotation_profiles import HOST, AnnotationProfile, detect_profile, profile_named
from ingest.hosts import bad_host_keys, surt_host_names_of_urls
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
from ingest.parquet_input import (
    ColumnRef,
    column_paths,
    crawl_of_folder,
    crawl_of_path,
    extract,
    is_crawl_id,
    open_parquet,
    plan_columns,
    read_planned,
    refuse_duplicate_names,
)

__all__ = ["ingest_annotations"]

log = logging.getLogger(__name__)

TABLES = {"page": "page_annotations", "host": "host_annotations"}
_SCHEMAS = {"page": schemas.PAGE_ANNOTATIONS, "host": schemas.HOST_ANNOTATIONS}

# The four GneissWeb categories: lake column → (Common Crawl's column, data-prep-kit's
# columns ``<category>_label``/``_score`` as the profile names them, a positive page's label).
_CATEGORIES = {
    "medical_score": ("gneissweb_medical", "medical", "medical"),
    "education_score": ("gneissweb_education", "education", "education"),
    "technology_score": ("gneissweb_technology", "technology", "technology"),
    "science_score": ("gneissweb_science", "science", "science"),
}


def _mask(values: pa.Array | pa.ChunkedArray, null_is: bool) -> np.ndarray:
    return np.asarray(pc.fill_null(values, null_is).to_numpy(zero_copy_only=False), dtype=bool)


def _outside(values: pa.Array, low: float, high: float) -> np.ndarray:
    """Rows whose value is not in [low, high] (NaN included); nulls are inside."""
    inside = pc.and_(pc.greater_equal(values, low), pc.less_equal(values, high))
    return ~_mask(inside, True)


def _strip_label(labels: pa.Array) -> pa.Array:
    return pc.utf8_lower(pc.replace_substring_regex(labels, r"^__label__", ""))


class _Rows:
    """One read batch turned into lake columns, with a rejection mask per reason."""

    def __init__(
        self,
        batch: pa.RecordBatch,
        crawl: str | None,
        profile: AnnotationProfile,
        expected_crawl: str | None = None,
    ):
        self.batch = batch
        self.profile = profile
        self.size = batch.num_rows
        self.columns: dict[str, pa.Array] = {}
        self.reasons: dict[str, np.ndarray] = {}
        self.nulled: dict[str, np.ndarray] = {}  # values nulled per row, by reason
        self.expected_crawl = expected_crawl  # the folder's or --crawl's, when rows name theirs
        column = profile.crawl_column
        source = batch.column(column) if crawl is None else None
        self.crawls = source if source is not None else pa.repeat(pa.scalar(crawl), self.size)

    def reject(self, reason: str, mask: np.ndarray) -> None:
        previous = self.reasons.get(reason)
        self.reasons[reason] = mask if previous is None else previous | mask

    def null(self, reason: str, mask: np.ndarray) -> None:
        """Count a value nulled in each row of ``mask`` (a row may count several)."""
        previous = self.nulled.get(reason)
        counts = mask.astype(np.int64)
        self.nulled[reason] = counts if previous is None else previous + counts

    def get(self, name: str) -> pa.Array:
        return self.batch.column(name)


def _crawl_checked(rows: _Rows) -> None:
    valid = [value for value in pc.unique(rows.crawls).to_pylist() if value and is_crawl_id(value)]
    known = pc.is_in(rows.crawls, value_set=pa.array(valid, pa.string()))
    rows.reject("bad_crawl", ~_mask(known, False))
    if rows.expected_crawl is not None:
        other = pc.not_equal(rows.crawls, rows.expected_crawl)
        rows.reject("crawl_mismatch", _mask(other, False) & _mask(known, False))


def _host_from_surt_keys(rows: _Rows, keys: pa.Array) -> pa.Array:
    """The host part of SURT keys (``com,example:8080)/a`` → ``com,example``), validated."""
    host = pc.struct_field(pc.extract_regex(keys, r"^(?P<host>[^)]*)\)"), "host")
    host = pc.replace_substring_regex(host, r":[0-9]*$", "")
    return _valid_surt(rows, host)


def _valid_surt(rows: _Rows, surt: pa.Array) -> pa.Array:
    """SURT host keys that pass the host-key rule (``ingest.hosts``); others rejected."""
    if not pa.types.is_string(surt.type):
        surt = surt.cast(pa.string())
    bad = bad_host_keys(surt)
    rows.reject("bad_host", bad)
    return pc.if_else(pa.array(bad), None, surt)


def _page_keys(rows: _Rows, **columns: pa.Array) -> None:
    """A page row's keys from its ``id`` and ``url`` (rejecting rows without), and ``columns``."""
    ids = rows.get("id")
    rows.reject("missing_key", _mask(pc.equal(pc.utf8_length(ids), 0), True))
    hosts, bad = surt_host_names_of_urls(rows.get("url"))
    rows.reject("bad_host", bad)
    rows.columns.update(
        page_key=ids, doc_id=ids, url=rows.get("url"), surt_host_name=hosts, **columns
    )


def _fineweb_keys(rows: _Rows) -> None:
    _page_keys(rows, language=rows.get("language"), language_score=rows.get("language_score"))
    rows.reject("score_out_of_range", _outside(rows.get("language_score"), 0.0, 1.0))


def _cc_urls(rows: _Rows) -> None:
    keys, times = rows.get("url_surtkey"), rows.get("fetch_time")
    missing = _mask(pc.equal(pc.utf8_length(keys), 0), True) | _mask(pc.is_null(times), True)
    rows.reject("missing_key", missing)
    stamp = pc.strftime(times, format="%Y-%m-%dT%H:%M:%SZ")
    rows.columns.update(
        page_key=pc.binary_join_element_wise(keys, stamp, " "),
        url_surtkey=keys,
        fetch_time=times,
        surt_host_name=_host_from_surt_keys(rows, keys),
        in_gneissweb=rows.get("in_gneissweb"),
    )
    rows.reject("missing_quality", _mask(pc.is_null(rows.get("in_gneissweb")), True))
    _cc_categories(rows)


def _cc_hosts(rows: _Rows) -> None:
    rows.columns.update(
        surt_host_name=_valid_surt(rows, rows.get("surt_host_name")),
        in_gneissweb=rows.get("in_gneissweb"),
    )
    rows.reject("missing_quality", _mask(pc.is_null(rows.get("in_gneissweb")), True))
    _cc_categories(rows)


def _cc_categories(rows: _Rows) -> None:
    for lake_name, (source, _, _) in _CATEGORIES.items():
        values = rows.get(source)
        rows.reject("score_out_of_range", _outside(values, 0.0, 1.0))
        rows.columns[lake_name] = values


def _positive_probability(
    rows: _Rows, labels: pa.Array, scores: pa.Array, positive: str, negative: str, strict: bool
) -> pa.Array:
    """P(positive) from a predicted label and its probability (data-prep-kit's convention).

    With ``strict``, an unknown label or a score below 0.5 rejects the row; otherwise (the
    category columns) it leaves the probability null, counted by reason.
    """
    label = _strip_label(labels)
    is_positive = pc.equal(label, positive)
    known = pc.or_(is_positive, pc.equal(label, negative))
    below_half = _mask(pc.less(scores, 0.5), False)
    if strict:
        rows.reject("unknown_label", ~_mask(known, True))
        rows.reject("score_out_of_range", _outside(scores, 0.0, 1.0))
        rows.reject("score_not_predicted_label_probability", below_half)
    else:  # one reason per value nulled, the first that applies
        given = _mask(pc.is_valid(scores), False)
        unknown = given & ~_mask(known, False)
        outside = given & ~unknown & _outside(scores, 0.0, 1.0)
        rows.null("unknown_category_label", unknown)
        rows.null("category_score_out_of_range", outside)
        rows.null(
            "category_score_not_predicted_label_probability", below_half & ~unknown & ~outside
        )
    probability = pc.if_else(is_positive, scores, pc.subtract(1.0, scores))
    usable = pc.and_(known, pc.invert(pa.array(below_half | _outside(scores, 0.0, 1.0))))
    return pc.if_else(usable, probability, None)


def _dpk_gneissweb(rows: _Rows) -> None:
    _fineweb_keys(rows)
    scores = rows.get("quality_score")
    rows.reject("missing_quality", _mask(pc.is_null(scores), True))
    rows.columns["quality_score"] = _positive_probability(
        rows, rows.get("quality_label"), scores, "hq", "cc", strict=True
    )
    for lake_name, (_, category, positive) in _CATEGORIES.items():
        rows.columns[lake_name] = _positive_probability(
            rows,
            rows.get(f"{category}_label"),
            rows.get(f"{category}_score"),
            positive,
            "cc",
            strict=False,
        )


def _fineweb_edu(rows: _Rows) -> None:
    _fineweb_keys(rows)
    score, int_score = rows.get("score"), rows.get("int_score")
    rows.reject("missing_quality", _mask(pc.is_null(int_score), True))
    rows.reject("score_out_of_range", _outside(int_score, 0, 5))
    finite = pc.is_finite(score)
    rows.reject("score_out_of_range", ~_mask(finite, True))
    clipped = pc.min_element_wise(pc.max_element_wise(score, 0.0), 5.0)
    # The classifier's own int_score: int(round(max(0, min(score, 5)))), ties to even.
    rounded = pc.round(clipped, ndigits=0, round_mode="half_to_even")
    # An int_score beyond float64's exact integers (|x| > 2^53) is out of range already; the
    # unsafe cast only keeps the comparison from raising on it.
    rows.reject(
        "int_score_disagrees_with_score",
        _mask(pc.not_equal(rounded, pc.cast(int_score, pa.float64(), safe=False)), False),
    )
    rows.columns.update(
        quality_score=pc.if_else(finite, pc.divide(clipped, 5.0), None),
        quality_int_score=int_score,
    )


def _probability_score(rows: _Rows, scores: pa.Array) -> None:
    """A quality score that is a probability already: kept as it is, on [0, 1]."""
    rows.reject("missing_quality", _mask(pc.is_null(scores), True))
    rows.reject("score_out_of_range", _outside(scores, 0.0, 1.0))
    rows.columns["quality_score"] = scores


def _dclm_baseline(rows: _Rows) -> None:
    _page_keys(rows, fetch_time=rows.get("fetch_time"))
    _probability_score(rows, rows.get("quality_score"))


def _fineweb2_hq(rows: _Rows) -> None:
    _fineweb_keys(rows)
    _probability_score(rows, rows.get("quality_score"))


_READERS: dict[str, Callable[[_Rows], None]] = {
    "cc_gneissweb_urls": _cc_urls,
    "cc_gneissweb_hosts": _cc_hosts,
    "dpk_gneissweb": _dpk_gneissweb,
    "fineweb_edu": _fineweb_edu,
    "fineweb_edu_datatrove": _fineweb_edu,
    "dclm_baseline": _dclm_baseline,
    "fineweb2_hq": _fineweb2_hq,
}


def _convert(
    batch: pa.RecordBatch,
    profile: AnnotationProfile,
    report: IngestReport,
    first_row: int,
    crawl: str | None,
    expected_crawl: str | None = None,
) -> dict[str, pa.RecordBatch]:
    """The batch's valid rows in the lake schema, by crawl; the others counted as rejected."""
    rows = _Rows(batch, crawl, profile, expected_crawl)
    _crawl_checked(rows)
    _READERS[profile.name](rows)
    # Each rejected row counts once, under the first of its reasons in this order.
    order = (
        "missing_key",
        "bad_host",
        "bad_crawl",
        "crawl_mismatch",
        "missing_quality",
        "unknown_label",
        "score_out_of_range",
        "score_not_predicted_label_probability",
        "int_score_disagrees_with_score",
    )
    bad = np.zeros(rows.size, dtype=bool)
    exclusive = []
    for reason in order:
        mask = rows.reasons.get(reason)
        if mask is None:
            continue
        exclusive.append((reason, mask & ~bad))
        bad |= mask

    def describe(row: int) -> str:
        return str(batch.slice(row, 1).to_pylist())

    report.reject_rows(exclusive, first_row, describe)
    for reason, counts in rows.nulled.items():  # values nulled in the rows written
        kept = np.where(bad, 0, counts)
        shown = np.flatnonzero(kept)[:3]
        for row in shown.tolist():
            report.null(reason, f"row {first_row + row}", describe(row), int(kept[row]))
        rest = int(kept.sum()) - int(kept[shown].sum())
        if rest:
            report.nulled[reason] += rest
    schema = _SCHEMAS[profile.level]
    name = pa.repeat(pa.scalar(profile.name), rows.size)
    arrays = [
        name
        if field.name == "annotation_profile"
        else rows.columns.get(field.name, pa.nulls(rows.size, field.type)).cast(field.type)
        for field in schema
    ]
    keep = ~bad
    report.written += int(keep.sum())
    if not keep.any():
        return {}
    table = pa.RecordBatch.from_arrays(arrays, schema=schema)
    crawls = rows.crawls
    if not keep.all():
        table = table.filter(pa.array(keep))
        crawls = crawls.filter(pa.array(keep))
    values = pc.unique(crawls).to_pylist()
    if len(values) == 1:
        return {values[0]: table}
    return {value: table.filter(pc.equal(crawls, value)) for value in sorted(values)}


def _read_profile(
    path: Path, parquet, named: str | None, columns: dict[str, str] | None
) -> tuple[AnnotationProfile, dict[str, str]]:
    """The file's profile and, per profile column, the file's column to read it from.

    Raises:
        LakeError: a column named twice, no profile (or several), or two spellings of one
            column the profile reads (naming them: ``--column`` chooses).
    """
    schema = parquet.schema_arrow
    refuse_duplicate_names(path, schema)
    names = column_paths(schema)
    profile = detect_profile(path, names, named, columns)
    conflicts = profile.spelling_conflicts(names, columns)
    if conflicts:
        name, found = conflicts[0]
        raise LakeError(
            f"{path}: profile {profile.name}: columns {' and '.join(map(repr, found))} both give "
            f"its {name}, and could disagree: name the one to read with --column {name}=COLUMN "
            "(or drop the other)"
        )
    return profile, profile.source_names(names, columns)


def _ingest_file(
    path: Path,
    sha: str,
    crawl: str | None,
    profile_name: str | None,
    lake: Path,
    max_reject_rate: float,
    batch_rows: int,
    columns: dict[str, str] | None = None,
) -> dict:
    started = datetime.now(UTC)
    parquet = open_parquet(path)
    profile, spelt = _read_profile(path, parquet, profile_name, columns)
    plan, drift = plan_columns(
        path, parquet.schema_arrow, profile.read_schema, spelt, {}, required=profile.required
    )
    read_from_file = dict(zip(profile.read_schema.names, plan.refs, strict=True))
    expected_crawl = None
    if read_from_file.get(profile.crawl_column) is None:  # the crawl comes from the path
        if profile.crawl_column is not None:
            missing_crawl = f"missing column {spelt[profile.crawl_column]}"
            drift = [note for note in drift if not note.startswith(missing_crawl)]
        crawl = crawl_of_path(path, crawl)
    else:  # each row names its crawl, which must be the folder's or --crawl's if given
        expected_crawl = crawl_of_folder(path, crawl)
        crawl = None
    _check_quality_present(path, parquet, profile, read_from_file)
    report = IngestReport(path, drift=drift)
    log.info("%s: read as annotation profile %s", path, profile.name)
    for note in drift:
        log.info("%s: schema drift: %s", path, note)
    table = TABLES[profile.level]
    schema = _SCHEMAS[profile.level]
    with PartWriter(
        lake,
        table,
        file_key(sha),
        schema,
        "crawl",
        dictionary_columns=["annotation_profile", "language", "in_gneissweb"]
        if profile.level != HOST
        else ["annotation_profile", "in_gneissweb"],
    ) as writer:
        for batch in read_planned(parquet, plan, batch_rows):
            first_row = report.read
            report.read += batch.num_rows
            converted = _convert(batch, profile, report, first_row, crawl, expected_crawl)
            for value, part in converted.items():
                writer.write(value, part)
        report.check(max_reject_rate)
        parts = writer.finish()
    crawls = sorted(writer.rows)
    row = commit_parts(lake, table, report, sha, parts, started, crawl=",".join(crawls) or crawl)
    return {**row, "annotation_profile": profile.name}  # for the summary, not the manifest


def _leaves(kind: pa.DataType) -> int:
    """How many Parquet leaf columns an Arrow type is stored as."""
    if pa.types.is_struct(kind):
        return sum(_leaves(field.type) for field in kind)
    if pa.types.is_map(kind):
        return _leaves(kind.key_type) + _leaves(kind.item_type)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return _leaves(kind.value_type)
    return 1


def _leaf_index(schema: pa.Schema, ref: ColumnRef) -> int | None:
    """The Parquet leaf column of a (possibly nested) primitive field, else None."""
    index, fields, kind = 0, list(schema), None
    for step in (ref.top, *ref.path):
        for field in fields:
            if field.name == step:
                kind = field.type
                break
            index += _leaves(field.type)
        else:
            return None
        fields = list(kind) if pa.types.is_struct(kind) else []
    return index if kind is not None and _leaves(kind) == 1 else None


def _check_quality_present(
    path: Path, parquet, profile: AnnotationProfile, read_from_file: dict[str, ColumnRef | None]
) -> None:
    """Refuse a file whose quality columns are missing or entirely null."""
    metadata = parquet.metadata
    for name in profile.quality:
        ref = read_from_file.get(name)
        if ref is None:
            raise LakeError(f"{path}: profile {profile.name}: quality column {name} is missing")
        index = _leaf_index(parquet.schema_arrow, ref)  # the plan's spelling
        nulls = 0 if index is not None else -1
        for group in range(metadata.num_row_groups if index is not None else 0):
            statistics = metadata.row_group(group).column(index).statistics
            if statistics is None or not statistics.has_null_count:
                nulls = -1
                break
            nulls += statistics.null_count
        if nulls == -1:  # no statistics: read the column
            nulls = extract(parquet.read(columns=[ref.top]).column(0), ref).null_count
        if metadata.num_rows and nulls == metadata.num_rows:
            raise LakeError(
                f"{path}: profile {profile.name}: quality column {ref.name} is null in all "
                f"{metadata.num_rows:,} rows, so the file says nothing about quality"
            )


def ingest_annotations(
    inputs: list[Path],
    lake: Path,
    crawl: str | None = None,
    max_reject_rate: float = 0.001,
    batch_rows: int = 1 << 18,
    workers: int | None = None,
    profile: str | None = None,
    replace: bool = False,
    columns: dict[str, str] | None = None,
) -> list[dict]:
    """Ingest page- or host-level annotation Parquet files; return the new manifest rows.

    Each row also names the file's ``annotation_profile`` (not a manifest column: the lake's
    rows carry it).

    Files already in the lake (same SHA-256) are skipped; the others are ingested by
    ``workers`` processes (default: one per core), each file on its own.

    Args:
        inputs: Parquet files.
        lake: the lake folder.
        crawl: the crawl of files whose rows and path do not name one.
        max_reject_rate: fail a file when more than this share of its rows is rejected.
        batch_rows: rows read at a time.
        workers: processes.
        profile: read every file under this profile instead of detecting it.
        replace: ingest files committed already again (see :func:`ingest.lake.new_inputs`).
        columns: profile column -> the file's column to read it from (``--column``; needs
            ``profile``), for a file that names a column otherwise or spells it twice.

    Raises:
        LakeError: for a file that is unreadable, matches no profile, lacks a profile's
            columns or quality, has no crawl, or has too many rejected rows (files already
            done stay committed).
    """
    if not inputs:
        raise LakeError("no input files")
    if crawl is not None and not is_crawl_id(crawl):
        raise LakeError(f"not a crawl id: {crawl!r} (expected CC-MAIN-YYYY-WW)")
    if profile is not None:
        profile_named(profile)
    profiles = {path: _profile_of(path, profile, columns) for path in inputs}  # fail early
    # A folder contradicting --crawl, or nested crawl= folders, fail here; the crawl a file goes
    # to (when its path or --crawl names it) is part of its identity in the lake.
    crawls = {path: crawl_of_folder(path, crawl) for path in inputs}
    jobs = []
    with table_lock(lake, TABLES.values()):
        for level, table in TABLES.items():
            files = [path for path in inputs if profiles[path].level == level]
            if files:
                jobs += [
                    (path, sha, crawl, profile, lake, max_reject_rate, batch_rows, columns)
                    for path, sha in new_inputs(lake, table, files, crawls, replace)
                ]
        order = {path: index for index, path in enumerate(inputs)}
        jobs.sort(key=lambda job: order[job[0]])
        return map_files(_ingest_file, jobs, workers)


def _profile_of(path: Path, named: str | None, columns: dict[str, str] | None) -> AnnotationProfile:
    return _read_profile(path, open_parquet(path), named, columns)[0]
