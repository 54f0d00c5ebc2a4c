"""``python -m ingest documents``: WARC/WET files → main text → language → classifier scores.

Each input file becomes, in the lake:

* ``documents/crawl=<crawl>/part-<key>.parquet`` (``schemas.DOCUMENTS``),
* ``document_scores/crawl=<crawl>/part-<key>.parquet`` (``schemas.DOCUMENT_SCORES``),
* ``_manifest/documents/<key>.parquet``: one row, records read = written + rejected by reason.

``<key>`` is the first 20 hex digits of the file's SHA-256, so a rerun writes the same names.
The lake protocol is :mod:`ingest.lake`'s, as for every ingest: the ingest holds the write lock
of both table folders; which inputs to skip, redo or refuse is :func:`ingest.lake.new_inputs`'s
rule (a file committed under another crawl is refused unless ``replace``). Files are processed
in parallel by workers that die with the ingest (:mod:`ingest.documents_worker`), each writing
its file's parts through the lake's part writer and finishing them under temporary names; the
coordinator commits them one file at a time, in input order, with :func:`ingest.lake.commit_parts`
(the parts renamed into place, then the manifest row, the commit record), as every ingest
does. A record that cannot be read or extracted is a counted rejection; a file that fails as a
whole is named in the ingest's error once the other files are done.

A WARC-Record-ID already in the lake (in a committed part, :func:`ingest.lake.committed_parts`)
or earlier in the same run is not written again: the later copy is counted as rejected
(``duplicate_record_id``), and the coordinator rewrites the file's temporary parts without it
(through the same part writer) before committing them.

A WET record's ``doc_id`` is the id of the response it was extracted from (its
``WARC-Refers-To``), so a page read from its WARC and again from its WET is one document, and the
second copy is a ``duplicate_record_id``. Its language is the first code of
``WARC-Identified-Content-Language`` (ISO 639-3; 639-1 wherever one exists), with no score: the
header carries none (``language_score`` is null, ``language_source`` ``cc_wet``).

A file that loses pages it should have kept is not reported a success. Every rejected record
is an expected skip (a revisit, a non-200 answer, a non-HTML page, no main text, …) or a failure
(a payload that cannot be decoded, a truncated or corrupt record, …), as
:mod:`ingest.reasons` classes them. A file whose failures exceed ``max_failure_rate`` (default
5%) of its pages (the records written plus the failures) is not committed: the others are, and
the error raised at the end (:class:`FilesHeldBackError`, exit status 2) names it with its
failures by reason. ``--max-failure-rate 1`` commits whatever such a file still holds.

Before anything is written, the first records of every input are read (``warc.read_head``): a
WAT file (JSON metadata records) is refused, and so is a file whose ``warcinfo`` names another
crawl (``isPartOf``) than ``--crawl``, unless ``allow_crawl_mismatch`` (``--allow-crawl-mismatch``).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ingest.documents_worker import (
    DocumentIngestError,
    FileOutcome,
    init_worker,
    main_text,
    part_writer,
    process_file,
    score_texts,
)
from ingest.lake import (
    FinishedPart,
    LakeError,
    commit_parts,
    committed_parts,
    expand_inputs,
    file_key,
    files_failed,
    new_inputs,
    table_lock,
    worker_pool,
)
from ingest.parquet_input import is_crawl_id
from ingest.quality import ClassifierEntry, FastTextScorer
from ingest.reasons import is_document_failure
from ingest.warc import read_head

__all__ = [
    "DEFAULT_MAX_FAILURE_RATE",
    "DocumentIngestError",
    "FileOutcome",
    "FilesHeldBackError",
    "check_inputs",
    "expand_inputs",
    "ingest_documents",
    "main_text",
    "score_texts",
]

log = logging.getLogger(__name__)

_TABLES = ("documents", "document_scores")  # the table folders a document ingest writes

# The largest share of a file's pages that may fail (not be read, decoded or extracted) for it
# to be committed. Common Crawl's own files lose a handful of pages in ten thousand; 5% is far
# above that and far below a file whose encoding the reader gets wrong (it loses them all).
DEFAULT_MAX_FAILURE_RATE = 0.05


class FilesHeldBackError(DocumentIngestError):
    """Files refused or held back at the end of a document ingest.

    ``failures`` holds one message per file; ``rows`` the manifest rows of the files committed.
    """

    def __init__(self, failures: list[str], files: int, rows: list[dict]) -> None:
        super().__init__(files_failed(failures, files))
        self.failures = failures
        self.rows = rows


# ----------------------------------------------------------------------- publishing


def _published_ids(lake: Path, ingested_again: set[str]) -> set[str]:
    """Record ids in the lake's committed document parts (:func:`ingest.lake.committed_parts`).

    The parts of ``ingested_again`` (file keys of inputs ingested again, which stay committed
    until their new copy replaces them) are left out: their rows are no duplicates of themselves.
    """
    parts = [
        lake / relative
        for relative in committed_parts(lake)
        if relative.startswith("documents/")
        and Path(relative).stem.removeprefix("part-") not in ingested_again
    ]
    if not parts:
        return set()
    ids = pq.ParquetDataset(parts).read(columns=["doc_id"]).column("doc_id")
    return set(ids.to_pylist())


def _drop_duplicates(outcome: FileOutcome, seen: set[str], lake: Path, crawl: str) -> None:
    """Remove rows whose record id is already published; count them as rejected.

    The file's temporary parts are rewritten without them, through the same part writer.
    ``seen`` is not updated: the caller adds the file's ids once it commits them.
    """
    ids = outcome.doc_ids
    duplicate = [doc_id in seen for doc_id in ids]
    within: set[str] = set()
    for index, doc_id in enumerate(ids):  # the same id twice inside one file
        if not duplicate[index] and doc_id in within:
            duplicate[index] = True
        within.add(doc_id)
    count = sum(duplicate)
    if count:
        outcome.parts = [
            rewritten
            for part in outcome.parts
            for rewritten in _rewrite(part, duplicate, lake, crawl, outcome.key)
        ]
        for index in np.flatnonzero(duplicate).tolist():
            outcome.reject("duplicate_record_id", outcome.offsets[index], ids[index])
        outcome.report.written -= count


def _rewrite(
    part: FinishedPart, duplicate: list[bool], lake: Path, crawl: str, key: str
) -> list[FinishedPart]:
    """A finished part without its duplicate rows (none when every row is one).

    The score part repeats the document rows once per classifier, in the same order.
    """
    table = part.final.split("/", 1)[0]
    rows = pq.read_table(part.temporary)
    keep = [not duplicate[index % len(duplicate)] for index in range(rows.num_rows)]
    with part_writer(lake, table, key) as writer:
        writer.write(crawl, rows.filter(pa.array(keep, pa.bool_())))
        rewritten = writer.finish()
    part.temporary.unlink()
    return rewritten


def failed_pages(outcome: FileOutcome) -> tuple[int, int]:
    """A file's failed records and its pages (the records written plus the failures)."""
    failed = sum(count for reason, count in outcome.rejected.items() if is_document_failure(reason))
    return failed, outcome.report.written + failed


def _held_back(outcome: FileOutcome, max_failure_rate: float) -> str | None:
    """Why a file is not committed (too many of its pages failed), or None to commit it."""
    failed, pages = failed_pages(outcome)
    if not failed or failed <= max_failure_rate * pages:
        return None
    reasons = ", ".join(
        f"{reason} {count:,}"
        for reason, count in sorted(outcome.rejected.items())
        if is_document_failure(reason)
    )
    first = "; ".join(outcome.report.examples[:2])
    return (
        f"{outcome.source}: {failed:,} of {pages:,} pages failed ({reasons}), more than "
        f"--max-failure-rate {max_failure_rate:.0%}; not committed (first: {first}); "
        "--max-failure-rate 1 commits what it holds"
    )


def _publish(outcome: FileOutcome, lake: Path, crawl: str) -> dict:
    """Rename the file's parts into place, then commit them with its manifest row."""
    outcome.report.check(max_reject_rate=1.0)  # rejected pages are expected; books must balance
    return commit_parts(
        lake,
        "documents",
        outcome.report,
        outcome.sha256,
        outcome.parts,
        outcome.started_at,
        crawl=crawl,
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
    max_failure_rate: float = DEFAULT_MAX_FAILURE_RATE,
) -> list[dict]:
    """Ingest WARC/WET files into the lake; return the manifest rows of the files processed.

    Which files are skipped, ingested again or refused is :func:`ingest.lake.new_inputs`'s rule
    (a file committed under another crawl is refused unless ``replace``). Raises
    :class:`DocumentIngestError` for bad arguments and, before anything is written, for an
    input that is a WAT file or one whose ``warcinfo`` names another crawl
    (:func:`check_inputs`; ``allow_crawl_mismatch`` lets the latter through). A truncated or
    corrupt file is ingested around its damage and reported (logged, and as rejections in its
    manifest row). A file that fails as a whole (one that is no WARC file at all, say) does not
    stop the others: the error naming it is raised once they are committed. So does a file
    more than ``max_failure_rate`` of whose pages failed (:func:`failed_pages`): it is not
    committed, and :class:`FilesHeldBackError` (with the rows committed) names it at the end.
    """
    files = list(inputs)
    if not files:
        raise DocumentIngestError("no input files")
    if not is_crawl_id(crawl):
        raise DocumentIngestError(f"not a crawl id: {crawl!r} (expected CC-MAIN-YYYY-WW)")
    if not 0.0 <= max_failure_rate <= 1.0:
        raise DocumentIngestError(f"--max-failure-rate {max_failure_rate} is not in [0, 1]")
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
        return _process(todo, crawl, lake, entries, workers, keep_text, max_failure_rate)


def _process(
    todo: list[tuple[Path, str]],
    crawl: str,
    lake: Path,
    entries: list[ClassifierEntry],
    workers: int | None,
    keep_text: bool,
    max_failure_rate: float,
) -> list[dict]:
    """Process the files in workers and commit them one by one, in input order."""
    seen = _published_ids(lake, {file_key(sha) for _, sha in todo})
    progress = _Progress(sum(path.stat().st_size for path, _ in todo), len(todo))
    rows = []
    failures = []
    worker_count = max(1, min(workers or os.cpu_count() or 1, len(todo)))
    initargs = (crawl, str(lake), keep_text, entries)
    with worker_pool(worker_count, init_worker, initargs) as pool:
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
            _drop_duplicates(outcome, seen, lake, crawl)
            progress.update(outcome)
            held_back = _held_back(outcome, max_failure_rate)
            if held_back is not None:
                for part in outcome.parts:
                    part.temporary.unlink(missing_ok=True)
                failures.append(held_back)
                continue
            rows.append(_publish(outcome, lake, crawl))
            seen.update(outcome.doc_ids)
            if outcome.broke_at:
                log.warning(
                    "%s: truncated or corrupt, kept what precedes: %s",
                    outcome.source,
                    outcome.broke_at,
                )
    progress.close()
    if failures:
        raise FilesHeldBackError(failures, len(todo), rows)
    return rows
