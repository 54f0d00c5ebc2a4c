"""``python -m ingest documents``: WARC/WET files → main text → language → classifier scores.

Each input file becomes, in the lake (DESIGN.md, "data contract"):

* ``documents/crawl=<crawl>/part-<key>.parquet`` (``schemas.DOCUMENTS``),
* ``document_scores/crawl=<crawl>/part-<key>.parquet`` (``schemas.DOCUMENT_SCORES``),
* ``_manifest/documents/<key>.parquet``: one row, records read = written + rejected by reason.

``<key>`` is the first 20 hex digits of the file's SHA-256, so a rerun writes the same names.
The lake protocol is :mod:`ingest.lake`'s, as for every ingest: the ingest holds the write lock
of both table folders; which inputs to skip, redo or refuse is :func:`ingest.lake.new_inputs`'s
rule (a file committed under another crawl is refused unless ``replace``). Files are processed
in parallel by workers that die with the ingest; results are published one file at a time, in
input order, by renaming finished temporary files, and the manifest row is written last: it is
the commit record. A record that cannot be read or extracted is a counted rejection; a file
that fails as a whole is named in the ingest's error once the other files are done.

A WARC-Record-ID already in the lake (in a committed part, :func:`ingest.lake.committed_parts`)
or earlier in the same run is not written again: the later copy is counted as rejected
(``duplicate_record_id``).

A WET record's ``doc_id`` is the id of the response it was extracted from (its
``WARC-Refers-To``), so a page read from its WARC and again from its WET is one document, and the
second copy is a ``duplicate_record_id``. Its language is the first code of
``WARC-Identified-Content-Language`` (ISO 639-3, mapped to 639-1 where known), with no score: the
header carries none (``language_score`` is null, ``language_source`` ``cc_wet``).

Before anything is written, the first records of every input are read (``warc.read_head``): a
WAT file (JSON metadata records) is refused, and so is a file whose ``warcinfo`` names another
crawl (``isPartOf``) than ``--crawl``, unless ``allow_crawl_mismatch`` (``--allow-crawl-mismatch``).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ingest import schemas
from ingest.hosts import host_from_url, host_tld, registry_suffix, surt_host_name
from ingest.lake import (
    IngestReport,
    LakeError,
    commit_manifest,
    committed_parts,
    die_with_parent,
    expand_inputs,
    file_key,
    files_failed,
    new_inputs,
    part_path,
    table_lock,
    temporary_part,
)
from ingest.parquet_input import is_crawl_id
from ingest.quality import ClassifierEntry, FastTextScorer, LanguageIdentifier, one_line
from ingest.warc import read_captures, read_head
from ingest.warc_items import DAMAGE_REASONS, Break, Page, Rejection, TextPage

__all__ = [
    "DocumentIngestError",
    "FileOutcome",
    "check_inputs",
    "expand_inputs",
    "ingest_documents",
    "main_text",
    "score_texts",
]

log = logging.getLogger(__name__)

_BATCH = 256
_PARQUET = {"compression": "zstd"}
_TABLES = ("documents", "document_scores")  # the table folders a document ingest writes


class DocumentIngestError(LakeError):
    """An ingest that cannot start or finish (bad arguments, missing files, bad models)."""


@dataclass
class FileOutcome:
    """What one worker made of one input file (its parts are still under temporary names).

    ``report`` counts records read, written and rejected by reason (``ingest.lake``'s books).
    """

    source: Path
    key: str
    size: int
    sha256: str
    started_at: datetime
    report: IngestReport
    documents_tmp: Path | None = None
    scores_tmp: Path | None = None
    broke_at: str | None = None
    doc_ids: list[str] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)  # warc_record_offset of each doc_ids row

    def reject(self, reason: str, offset: int, record_id: str, count: int = 1) -> None:
        """Count rejected records, naming the first few in the manifest row."""
        self.report.reject(reason, f"byte {offset}", record_id, count)

    @property
    def read(self) -> int:
        """Records read so far."""
        return self.report.read

    @property
    def rejected(self) -> Counter[str]:
        """Records rejected so far, by reason."""
        return self.report.rejected


# ----------------------------------------------------------------------- per-process state


@dataclass
class _Context:
    crawl: str
    lake: Path
    keep_text: bool
    scorers: list[FastTextScorer]
    language_id: LanguageIdentifier
    extractor: object


_CONTEXT: _Context | None = None


def _init_worker(crawl: str, lake: str, keep_text: bool, entries: list[ClassifierEntry]) -> None:
    global _CONTEXT
    import tldextract

    die_with_parent()
    _CONTEXT = _Context(
        crawl=crawl,
        lake=Path(lake),
        keep_text=keep_text,
        scorers=[FastTextScorer(entry) for entry in entries],
        language_id=LanguageIdentifier(),
        extractor=tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None),
    )


# ----------------------------------------------------------------------- one file


def main_text(page: Page) -> str:
    """The page's main text, by resiliparse's main-content extraction.

    The payload is decoded with its HTTP charset or, lacking one, resiliparse's detection
    (which reads ``<meta>`` and sniffs).
    """
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import detect_encoding
    from resiliparse.parse.html import HTMLTree

    encoding = page.http_charset
    if encoding:
        try:
            b"".decode(encoding)
        except LookupError:
            encoding = None
    tree = HTMLTree.parse_from_bytes(page.payload, encoding or detect_encoding(page.payload))
    return extract_plain_text(tree, main_content=True)


def score_texts(scorers: Sequence[FastTextScorer], texts: Sequence[str]) -> list[np.ndarray]:
    """Every scorer's scores of the texts, each text made one line once for all of them."""
    lines = [one_line(text) for text in texts]
    return [
        np.concatenate(
            [
                scorer.score_lines(lines[start : start + _BATCH])
                for start in range(0, len(lines), _BATCH)
            ]
        )
        if lines
        else np.zeros(0)
        for scorer in scorers
    ]


def _cld2_language(languages: list[tuple[str, float]] | None) -> tuple[str | None, float]:
    if not languages:
        return None, 0.0
    code, covered = languages[0]
    code = code.split("-")[0].lower()
    if code in ("un", "xx", ""):
        return None, 0.0
    return code, min(max(covered, 0.0), 1.0)


_ISO3_TO_1 = {
    "eng": "en",
    "deu": "de",
    "fra": "fr",
    "rus": "ru",
    "jpn": "ja",
    "zho": "zh",
    "por": "pt",
    "spa": "es",
    "ita": "it",
    "nld": "nl",
    "pol": "pl",
    "tur": "tr",
    "ces": "cs",
    "swe": "sv",
    "dan": "da",
    "fin": "fi",
    "nor": "no",
    "kor": "ko",
    "ara": "ar",
    "vie": "vi",
    "ind": "id",
}


def process_file(path: Path, sha: str) -> FileOutcome:
    """Read, extract, identify and score one file into temporary parts (run in a worker).

    ``sha`` is the file's SHA-256, computed once by the coordinator. Every capture read ends as
    a row or a counted rejection; a record whose extraction fails is rejected
    (``extraction_failed``) and the file goes on.
    """
    context = _CONTEXT
    if context is None:
        raise DocumentIngestError("worker not initialised")
    outcome = FileOutcome(
        path, file_key(sha), path.stat().st_size, sha, datetime.now(UTC), IngestReport(path)
    )
    rows: list[dict] = []
    texts: list[str] = []
    needs_language: list[int] = []
    for item in read_captures(path):
        if isinstance(item, Break):
            outcome.report.read += 1
            outcome.reject("truncated_record", item.offset, item.message)
            outcome.broke_at = item.message
            break
        if isinstance(item, Rejection):
            outcome.report.read += item.count
            outcome.reject(item.reason, item.offset, item.detail or item.record_id, item.count)
            if item.reason in DAMAGE_REASONS and outcome.broke_at is None:
                outcome.broke_at = f"{item.reason} at byte {item.offset}: {item.detail}"
            continue
        outcome.report.read += 1
        for reason in item.nulled:  # a bad WARC-Date or cld2 field: the page is kept without it
            outcome.report.null(reason, f"byte {item.offset}", item.record_id)
        try:
            row, text = _document_row(context, path, item)
        except Exception as error:  # a page resiliparse or a host parser cannot take
            outcome.reject("extraction_failed", item.offset, f"{item.record_id}: {error!r}")
            continue
        if row is None:
            outcome.reject(text, item.offset, item.record_id)
            continue
        if row["language"] is None:
            needs_language.append(len(rows))
            row["language_source"] = "fasttext_lid176"
        rows.append(row)
        texts.append(text)
    if not rows and set(outcome.rejected) <= DAMAGE_REASONS and read_head(path).kind == "not_warc":
        # Nothing but damage, and no WARC record where one must start: refused alone (the
        # other files go on). Garbage before readable records is damage, counted, not this.
        raise DocumentIngestError(
            f"{path}: not a WARC or WET file (its first bytes are no WARC record, and no "
            "record follows)"
        )
    if needs_language:
        identified = context.language_id.identify([texts[i] for i in needs_language])
        for index, (code, probability) in zip(needs_language, identified, strict=True):
            rows[index]["language"] = code
            rows[index]["language_score"] = probability
    _write_parts(context, outcome, rows, texts)
    return outcome


def _document_row(context: _Context, path: Path, item: Page | TextPage) -> tuple[dict | None, str]:
    """The lake row of one page and its main text, or ``(None, reason)`` to reject it."""
    confidence: float | None
    if isinstance(item, TextPage):
        text = item.text
        language, confidence = None, None  # the WET header names languages, scores none
        if item.languages:
            language = _ISO3_TO_1.get(item.languages[0], item.languages[0])
        source = "cc_wet"
    else:
        text = main_text(item)
        language, confidence = _cld2_language(item.languages_cld2)
        source = "cld2"
    if not text.strip():
        return None, "no_main_text"
    try:
        host = host_from_url(item.url)
        surt = surt_host_name(host)
    except ValueError:
        return None, "bad_url"
    registered = context.extractor(host).top_domain_under_public_suffix or None
    row = {
        "doc_id": item.record_id,
        "url": item.url,
        "surt_host_name": surt,
        "url_host_registered_domain": registered,
        "url_host_tld": host_tld(host),
        "url_host_registry_suffix": registry_suffix(registered),
        "warc_file": path.name,
        "warc_record_offset": item.offset,
        "language": language,
        "language_score": confidence,
        "language_source": source,
        "text_length": len(text),
        "payload_digest": item.payload_digest,
        "fetched_at": item.fetched_at,
        "text": text if context.keep_text else None,
    }
    return row, text


def _write_parts(
    context: _Context, outcome: FileOutcome, rows: list[dict], texts: list[str]
) -> None:
    documents = pa.Table.from_pylist(rows, schema=schemas.DOCUMENTS)
    ids: list[str] = []
    classifiers: list[str] = []
    scores: list[float] = []
    for scorer, values in zip(context.scorers, score_texts(context.scorers, texts), strict=True):
        scores.extend(values.tolist())
        ids.extend(row["doc_id"] for row in rows)
        classifiers.extend([scorer.entry.classifier] * len(rows))
    document_scores = pa.table(
        {"doc_id": ids, "classifier": classifiers, "score": scores}, schema=schemas.DOCUMENT_SCORES
    )
    partition = f"crawl={context.crawl}"
    outcome.documents_tmp = temporary_part(
        part_path(context.lake, "documents", partition, outcome.key)
    )
    outcome.scores_tmp = temporary_part(
        part_path(context.lake, "document_scores", partition, outcome.key)
    )
    for table, target in (
        (documents, outcome.documents_tmp),
        (document_scores, outcome.scores_tmp),
    ):
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, target, **_PARQUET)
    outcome.report.written = documents.num_rows
    outcome.doc_ids = [row["doc_id"] for row in rows]
    outcome.offsets = [row["warc_record_offset"] for row in rows]


# ----------------------------------------------------------------------- publishing


def _published_ids(lake: Path) -> set[str]:
    """Record ids in the lake's committed document parts (:func:`ingest.lake.committed_parts`)."""
    parts = [
        lake / relative for relative in committed_parts(lake) if relative.startswith("documents/")
    ]
    if not parts:
        return set()
    ids = pq.ParquetDataset(parts).read(columns=["doc_id"]).column("doc_id")
    return set(ids.to_pylist())


def _drop_duplicates(outcome: FileOutcome, seen: set[str]) -> None:
    """Remove rows whose record id is already published; count them as rejected."""
    ids = outcome.doc_ids
    duplicate = [doc_id in seen for doc_id in ids]
    within: set[str] = set()
    for index, doc_id in enumerate(ids):  # the same id twice inside one file
        if not duplicate[index] and doc_id in within:
            duplicate[index] = True
        within.add(doc_id)
    count = sum(duplicate)
    if count:
        documents = pq.read_table(outcome.documents_tmp)
        pq.write_table(
            documents.filter(pa.array([not flag for flag in duplicate])),
            outcome.documents_tmp,
            **_PARQUET,
        )
        # The score table repeats the document rows once per classifier, in the same order.
        scores = pq.read_table(outcome.scores_tmp)
        keep = [not duplicate[i % len(ids)] for i in range(scores.num_rows)]
        pq.write_table(scores.filter(pa.array(keep, pa.bool_())), outcome.scores_tmp, **_PARQUET)
        for index in np.flatnonzero(duplicate).tolist():
            outcome.reject("duplicate_record_id", outcome.offsets[index], ids[index])
        outcome.report.written -= count
    seen.update(ids)


def _publish(outcome: FileOutcome, lake: Path, crawl: str) -> dict:
    """Rename the file's parts into place, then commit them with its manifest row."""
    outcome.report.check(max_reject_rate=1.0)  # rejected pages are expected; books must balance
    partition = f"crawl={crawl}"
    outputs = []
    for table, temporary in (
        ("documents", outcome.documents_tmp),
        ("document_scores", outcome.scores_tmp),
    ):
        final = part_path(lake, table, partition, outcome.key)
        os.replace(temporary, final)
        outputs.append(str(final.relative_to(lake)))
    return commit_manifest(
        lake, "documents", outcome.report, outcome.sha256, outputs, outcome.started_at, crawl=crawl
    )


# ----------------------------------------------------------------------- the command


class _Progress:
    """A tqdm bar on a terminal; otherwise a log line per finished file."""

    def __init__(self, total_bytes: int, files: int) -> None:
        self.started = time.perf_counter()
        self.bytes = 0
        self.records = 0
        self.rejected = 0
        self.files = files
        self.done = 0
        self.bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total_bytes, unit="B", unit_scale=True, desc="documents")

    def update(self, outcome: FileOutcome) -> None:
        self.done += 1
        self.bytes += outcome.size
        self.records += outcome.read
        self.rejected += sum(outcome.rejected.values())
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        rate = f"{self.records / elapsed:,.0f} rec/s, {self.bytes / elapsed / 1e6:.1f} MB/s"
        if self.bar is not None:
            self.bar.update(outcome.size)
            self.bar.set_postfix_str(f"{rate}, rejected {self.rejected:,}")
        else:
            log.info(
                "documents: %d/%d files, %s records, %s rejected (%s)",
                self.done,
                self.files,
                f"{self.records:,}",
                f"{self.rejected:,}",
                rate,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def check_inputs(files: Sequence[Path], crawl: str, allow_crawl_mismatch: bool = False) -> None:
    """Refuse inputs that are not WARC or WET files of ``crawl``, from their first records.

    A WAT file is refused. So is a file whose ``warcinfo`` record says it is part of another
    Common Crawl crawl (``isPartOf: CC-MAIN-2024-22``) than ``crawl``, unless
    ``allow_crawl_mismatch`` (then it is logged). A file without ``warcinfo`` or ``isPartOf``
    has nothing to contradict, and neither has an ``isPartOf`` that is no Common Crawl crawl id
    (other archivers name their collection there: Webrecorder writes
    ``isPartOf: Temporary%20Collection``).

    Raises:
        DocumentIngestError: naming the first file refused (and how many more there are).
    """
    mismatched: list[tuple[Path, str]] = []
    for path in files:
        if not path.is_file():
            raise DocumentIngestError(f"no such WARC/WET file: {path}")
        head = read_head(path)
        if head.kind == "wat":
            raise DocumentIngestError(
                f"{path}: a WAT (link metadata) file, its records are JSON metadata; "
                "expected WARC or WET files"
            )
        theirs = head.is_part_of
        if theirs is not None and is_crawl_id(theirs) and theirs != crawl:
            mismatched.append((path, theirs))
    if mismatched and not allow_crawl_mismatch:
        path, theirs = mismatched[0]
        more = len(mismatched) - 1
        raise DocumentIngestError(
            f"{path}: its warcinfo says isPartOf {theirs}, not --crawl {crawl}"
            + (f" (and {more} more file{'s' if more > 1 else ''} of another crawl)" if more else "")
            + f"; pass --allow-crawl-mismatch to ingest as {crawl} all the same"
        )
    for path, theirs in mismatched:
        log.warning("%s: warcinfo says isPartOf %s, ingested as --crawl %s", path, theirs, crawl)


def ingest_documents(
    inputs: Iterable[Path],
    crawl: str,
    lake: Path,
    entries: list[ClassifierEntry],
    workers: int | None = None,
    keep_text: bool = False,
    allow_crawl_mismatch: bool = False,
    replace: bool = False,
) -> list[dict]:
    """Ingest WARC/WET files into the lake; return the manifest rows of the files processed.

    Which files are skipped, ingested again or refused is :func:`ingest.lake.new_inputs`'s rule
    (a file committed under another crawl is refused unless ``replace``). Raises
    :class:`DocumentIngestError` for bad arguments and, before anything is written, for an
    input that is a WAT file or one whose ``warcinfo`` names another crawl
    (:func:`check_inputs`; ``allow_crawl_mismatch`` lets the latter through). A truncated or
    corrupt file is ingested around its damage and reported (logged, and as rejections in its
    manifest row). A file that fails as a whole (one that is no WARC file at all, say) does not
    stop the others: the error naming it is raised once they are committed.
    """
    files = list(inputs)
    if not files:
        raise DocumentIngestError("no input files")
    if not is_crawl_id(crawl):
        raise DocumentIngestError(f"not a crawl id: {crawl!r} (expected CC-MAIN-YYYY-WW)")
    check_inputs(files, crawl, allow_crawl_mismatch)
    # Precomputed classifiers have no model here: `python -m ingest scores` loads their scores.
    entries = [entry for entry in entries if not entry.is_precomputed]
    for entry in entries:  # fail before any work when a model is missing or mislabelled
        FastTextScorer(entry).score(["probe"])
    with table_lock(lake, _TABLES):
        todo = new_inputs(
            lake, "documents", files, {path: crawl for path in files}, replace, _TABLES
        )
        if not todo:
            return []
        return _process(todo, crawl, lake, entries, workers, keep_text)


def _process(
    todo: list[tuple[Path, str]],
    crawl: str,
    lake: Path,
    entries: list[ClassifierEntry],
    workers: int | None,
    keep_text: bool,
) -> list[dict]:
    """Process the files in workers and commit them one by one, in input order."""
    seen = _published_ids(lake)
    progress = _Progress(sum(path.stat().st_size for path, _ in todo), len(todo))
    rows = []
    failures = []
    worker_count = max(1, min(workers or os.cpu_count() or 1, len(todo)))
    with ProcessPoolExecutor(
        max_workers=worker_count,
        initializer=_init_worker,
        initargs=(crawl, str(lake), keep_text, entries),
    ) as pool:
        futures = [(path, pool.submit(process_file, path, sha)) for path, sha in todo]
        for path, future in futures:
            try:
                outcome = future.result()
            except LakeError as error:  # this file, not the others
                failures.append(str(error))
                continue
            except Exception as error:  # a worker that died or a bug: named, the others go on
                failures.append(f"{path}: {type(error).__name__}: {error}")
                continue
            _drop_duplicates(outcome, seen)
            rows.append(_publish(outcome, lake, crawl))
            if outcome.broke_at:
                log.warning(
                    "%s: truncated or corrupt, kept what precedes: %s",
                    outcome.source,
                    outcome.broke_at,
                )
            progress.update(outcome)
    progress.close()
    if failures:
        raise DocumentIngestError(files_failed(failures, len(todo)))
    return rows
