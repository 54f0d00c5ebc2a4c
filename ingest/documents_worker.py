"""One WARC/WET file → document rows and classifier scores, in temporary parts (a worker's job).

The worker half of ``python -m ingest documents`` (:mod:`ingest.documents` is the command and
the coordinator). Each worker process is set up once (:func:`init_worker`: the classifiers, the
language identifier, the public suffix list) and then runs :func:`process_file` per input: read
the captures, extract each page's main text, identify the language where the WARC names none,
score with every classifier, and write the rows through the lake's :class:`ingest.lake.PartWriter`
(:func:`part_writer`), finishing without renaming. The :class:`FileOutcome` handed back holds the
books and the finished temporary parts; the coordinator drops duplicate record ids and commits
them (``ingest.lake.commit_parts``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa

from ingest import schemas
from ingest.hosts import host_from_url, host_tld, registry_suffix, surt_host_name
from ingest.lake import (
    FinishedPart,
    IngestReport,
    LakeError,
    PartWriter,
    die_with_parent,
    file_key,
)
from ingest.languages import language_code
from ingest.quality import ClassifierEntry, FastTextScorer, LanguageIdentifier, one_line
from ingest.warc import read_captures, read_head, unreadable_format
from ingest.warc_items import DAMAGE_REASONS, Break, Page, Rejection, TextPage

__all__ = [
    "DocumentIngestError",
    "FileOutcome",
    "init_worker",
    "main_text",
    "part_writer",
    "process_file",
    "score_texts",
]

_BATCH = 256
# Low-cardinality columns, dictionary-encoded in the parts (ids, URLs and texts are not).
_DICTIONARY_COLUMNS = {
    "documents": [
        "surt_host_name",
        "url_host_registered_domain",
        "url_host_tld",
        "url_host_registry_suffix",
        "warc_file",
        "language",
        "language_source",
    ],
    "document_scores": ["classifier"],
}


class DocumentIngestError(LakeError):
    """An ingest that cannot start or finish (bad arguments, missing files, bad models)."""


def part_writer(lake: Path, table: str, key: str) -> PartWriter:
    """The lake's part writer for one input file's rows of ``documents`` or ``document_scores``."""
    schema, partition = schemas.TABLES[table]
    return PartWriter(
        lake, table, key, schema, partition, dictionary_columns=_DICTIONARY_COLUMNS[table]
    )


@dataclass
class FileOutcome:
    """What one worker made of one input file (its parts are still under temporary names).

    ``report`` counts records read, written and rejected by reason (``ingest.lake``'s books);
    ``parts`` are the finished temporary parts (``documents`` first, then ``document_scores``;
    none for a table without rows), not yet renamed into place.
    """

    source: Path
    key: str
    size: int
    sha256: str
    started_at: datetime
    report: IngestReport
    parts: list[FinishedPart] = field(default_factory=list)
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


def init_worker(crawl: str, lake: str, keep_text: bool, entries: list[ClassifierEntry]) -> None:
    """Set up a worker process: its classifiers, language identifier and suffix list."""
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
    """The main cld2 language, in the column's code system (:mod:`ingest.languages`), and share."""
    if not languages:
        return None, 0.0
    code, covered = languages[0]
    language = language_code(code)
    if language is None:
        return None, 0.0
    return language, min(max(covered, 0.0), 1.0)


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
        raise DocumentIngestError(f"{path}: {unreadable_format(path)}")
    if needs_language:
        identified = context.language_id.identify([texts[i] for i in needs_language])
        for index, (code, probability) in zip(needs_language, identified, strict=True):
            rows[index]["language"] = language_code(code)
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
            language = language_code(item.languages[0])
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
    for table, rows_of_table in (("documents", documents), ("document_scores", document_scores)):
        with part_writer(context.lake, table, outcome.key) as writer:
            writer.write(context.crawl, rows_of_table)
            outcome.parts += writer.finish()
    outcome.report.written = documents.num_rows
    outcome.doc_ids = [row["doc_id"] for row in rows]
    outcome.offsets = [row["warc_record_offset"] for row in rows]
