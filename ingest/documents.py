"""``python -m ingest documents``: WARC/WET files → main text → language → classifier scores.

Each input file becomes, in the lake (DESIGN.md, "data contract"):

* ``documents/crawl=<crawl>/part-<key>.parquet`` (``schemas.DOCUMENTS``),
* ``document_scores/crawl=<crawl>/part-<key>.parquet`` (``schemas.DOCUMENT_SCORES``),
* ``_manifest/documents/<key>.parquet``: one row, records read = written + rejected by reason.

``<key>`` is the first 20 hex digits of the file's SHA-256, so a rerun writes the same names.
Files are processed in parallel; results are published one file at a time, in input order, by
renaming finished temporary files, and the manifest row is written last: it is the commit
record. A file whose manifest row exists with the same checksum is skipped; one without is
redone from scratch (its half-published parts are overwritten). Staging reads only rows of
files that have a manifest row, so a crash at any point leaves the lake consistent.

A WARC-Record-ID already in the lake (or earlier in the same run) is not written again: the
later copy is counted as rejected (``duplicate_record_id``).

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

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ingest import schemas
from ingest.hosts import host_from_url, host_tld, registry_suffix, surt_host_name
from ingest.lake import (
    IngestReport,
    LakeError,
    commit_manifest,
    expand_inputs,
    file_key,
    manifest_rows,
    remove_leftovers,
    sha256_of,
    write_schema_files,
)
from ingest.parquet_input import is_crawl_id
from ingest.quality import ClassifierEntry, FastTextScorer, LanguageIdentifier, one_line
from ingest.warc import Break, Page, Rejection, TextPage, read_captures, read_head

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
_EXAMPLES = 10  # rejected records named in the manifest row, per file (as ingest.lake keeps)


class DocumentIngestError(LakeError):
    """An ingest that cannot start or finish (bad arguments, missing files, bad models)."""


@dataclass
class FileOutcome:
    """What one worker made of one input file (its parts are still under temporary names)."""

    source: Path
    key: str
    size: int
    sha256: str
    started_at: datetime
    read: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    documents_tmp: Path | None = None
    scores_tmp: Path | None = None
    written: int = 0
    broke_at: str | None = None
    doc_ids: list[str] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)  # warc_record_offset of each doc_ids row
    examples: list[str] = field(default_factory=list)  # "file:byte N: reason: record id"

    def reject(self, reason: str, offset: int, record_id: str, count: int = 1) -> None:
        """Count rejected records, naming the first few in the manifest row."""
        self.rejected[reason] += count
        if len(self.examples) < _EXAMPLES:
            self.examples.append(f"{self.source}:byte {offset}: {reason}: {record_id}")


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

    ``sha`` is the file's SHA-256, computed once by the coordinator.
    """
    context = _CONTEXT
    if context is None:
        raise DocumentIngestError("worker not initialised")
    outcome = FileOutcome(path, file_key(sha), path.stat().st_size, sha, datetime.now(UTC))
    rows: list[dict] = []
    texts: list[str] = []
    needs_language: list[int] = []
    for item in read_captures(path):
        if isinstance(item, Break):
            outcome.read += 1
            outcome.reject("truncated_record", item.offset, item.message)
            outcome.broke_at = item.message
            break
        outcome.read += 1
        if isinstance(item, Rejection):
            outcome.reject(item.reason, item.offset, item.record_id)
            continue
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
            outcome.reject("no_main_text", item.offset, item.record_id)
            continue
        try:
            host = host_from_url(item.url)
            surt = surt_host_name(host)
        except ValueError:
            outcome.reject("bad_url", item.offset, item.record_id)
            continue
        registered = context.extractor(host).top_domain_under_public_suffix or None
        if language is None:
            needs_language.append(len(rows))
            source = "fasttext_lid176"
        rows.append(
            {
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
        )
        texts.append(text)
    if needs_language:
        identified = context.language_id.identify([texts[i] for i in needs_language])
        for index, (code, probability) in zip(needs_language, identified, strict=True):
            rows[index]["language"] = code
            rows[index]["language_score"] = probability
    _write_parts(context, outcome, rows, texts)
    return outcome


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
    pid = os.getpid()
    outcome.documents_tmp = (
        context.lake / "documents" / partition / f".part-{outcome.key}.{pid}.tmp"
    )
    outcome.scores_tmp = (
        context.lake / "document_scores" / partition / f".part-{outcome.key}.{pid}.tmp"
    )
    for table, target in (
        (documents, outcome.documents_tmp),
        (document_scores, outcome.scores_tmp),
    ):
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, target, **_PARQUET)
    outcome.written = documents.num_rows
    outcome.doc_ids = [row["doc_id"] for row in rows]
    outcome.offsets = [row["warc_record_offset"] for row in rows]


# ----------------------------------------------------------------------- publishing


def _manifest_folder(lake: Path) -> Path:
    return lake / "_manifest" / "documents"


def _published(lake: Path) -> dict[str, str]:
    """sha256 → source file of every input already in the lake."""
    return {row["source_sha256"]: row["source_file"] for row in manifest_rows(lake, "documents")}


def _published_ids(lake: Path) -> set[str]:
    """Record ids already in the lake (only rows of committed files count)."""
    folder = lake / "documents"
    manifest = _manifest_folder(lake)
    if not any(folder.glob("*/part-*.parquet")) or not any(manifest.glob("*.parquet")):
        return set()
    query = f"""
        select doc_id
        from read_parquet('{folder}/*/part-*.parquet', hive_partitioning = true) as documents
        where documents.warc_file in (
            select parse_filename(source_file) from read_parquet('{manifest}/*.parquet')
        )
    """
    return {row[0] for row in duckdb.sql(query).fetchall()}


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
        outcome.written -= count
    seen.update(ids)


def _publish(outcome: FileOutcome, lake: Path, crawl: str) -> dict:
    partition = f"crawl={crawl}"
    final_documents = lake / "documents" / partition / f"part-{outcome.key}.parquet"
    final_scores = lake / "document_scores" / partition / f"part-{outcome.key}.parquet"
    os.replace(outcome.documents_tmp, final_documents)
    os.replace(outcome.scores_tmp, final_scores)
    report = IngestReport(
        outcome.source, outcome.read, outcome.written, outcome.rejected, list(outcome.examples)
    )
    report.check(max_reject_rate=1.0)  # rejected pages are expected; the books must balance
    outputs = [str(final_documents.relative_to(lake)), str(final_scores.relative_to(lake))]
    return commit_manifest(
        lake, "documents", report, outcome.sha256, outputs, outcome.started_at, crawl=crawl
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
) -> list[dict]:
    """Ingest WARC/WET files into the lake; return the manifest rows of the files processed.

    Files already in the manifest (same SHA-256) are skipped. Raises
    :class:`DocumentIngestError` for bad arguments and, before anything is written, for an
    input that is a WAT file or whose ``warcinfo`` names another crawl (:func:`check_inputs`;
    ``allow_crawl_mismatch`` lets the latter through); a truncated file is ingested up to its
    break and reported (logged, and as ``truncated_record`` in its manifest row).
    """
    files = list(inputs)
    if not files:
        raise DocumentIngestError("no input files")
    if not crawl or "/" in crawl or "=" in crawl:
        raise DocumentIngestError(f"not a crawl id: {crawl!r}")
    check_inputs(files, crawl, allow_crawl_mismatch)
    # Precomputed classifiers have no model here: `python -m ingest scores` loads their scores.
    entries = [entry for entry in entries if not entry.is_precomputed]
    for entry in entries:  # fail before any work when a model is missing or mislabelled
        FastTextScorer(entry).score(["probe"])
    lake.mkdir(parents=True, exist_ok=True)
    remove_leftovers(lake, ["documents", "document_scores"])
    write_schema_files(lake)
    published = _published(lake)
    todo = []
    for path in files:
        sha = sha256_of(path)
        if sha in published:
            log.info("%s: already in the lake (same checksum), skipped", path)
        else:
            todo.append((path, sha))
    if not todo:
        return []
    seen = _published_ids(lake)
    progress = _Progress(sum(path.stat().st_size for path, _ in todo), len(todo))
    rows = []
    worker_count = max(1, min(workers or os.cpu_count() or 1, len(todo)))
    with ProcessPoolExecutor(
        max_workers=worker_count,
        initializer=_init_worker,
        initargs=(crawl, str(lake), keep_text, entries),
    ) as pool:
        paths, checksums = zip(*todo, strict=True)
        for outcome in pool.map(process_file, paths, checksums):  # in input order
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
    return rows
