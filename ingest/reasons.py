"""Every reason an ingest can give for a record it rejects or a value it nulls: one registry.

A reason is what a manifest row's ``rejected_by_reason`` / ``nulled_by_reason`` counts, so it is
part of the lake's contract: a user filters on it, a report groups by it. Each one is named here
with what it means, and the books (:class:`ingest.lake.IngestReport`) refuse any other: a reason
written anywhere in the code that is not registered is a bug found by the first test that meets
it, not a silent new word in the lake. ``docs/formats.md`` lists the same reasons (its table is
checked against this registry by ``tests/ingest/test_reasons.py``).

Some reasons are templates over a column: ``malformed_<column>`` (a graph text field that does
not parse), ``non_finite_<column>`` and ``out_of_range_<column>`` (a number nulled); the column
is one of the table's own.

For the document ingest, a rejected record is either an **expected skip** (something the crawl
holds that is not a page to score: a revisit, a non-200 answer, a PDF, a page with no main text)
or a **failure** (a page the reader could not read: an undecodable payload, a truncated record).
Only failures count towards ``--max-failure-rate``: a file of redirects loses nothing, a file
whose pages cannot be decoded loses them all.
"""

from __future__ import annotations

import re

__all__ = [
    "DOCUMENT_SKIPS",
    "NULLED",
    "REJECTED",
    "TEMPLATES",
    "is_document_failure",
    "is_registered",
    "markdown_table",
]

# Rejected records: reason -> (the ingest that writes it, what it means).
REJECTED: dict[str, tuple[str, str]] = {
    # WARC / WET / ARC records (python -m ingest documents)
    "revisit": ("documents", "a revisit record (the payload is another capture's)"),
    "resource_record": ("documents", "a resource record (no HTTP response to read)"),
    "non_200": ("documents", "an HTTP status other than 200"),
    "non_html": ("documents", "a Content-Type other than text/html or application/xhtml+xml"),
    "empty_payload": ("documents", "a response or WET record with an empty body"),
    "no_main_text": ("documents", "a page whose main text is empty after extraction"),
    "duplicate_record_id": ("documents", "a record id already in the lake or earlier in the run"),
    "payload_too_large": ("documents", "a block or decoded payload above the 32 MiB cap"),
    "segmented_record": (
        "documents",
        "one segment of a record split across records (not reassembled)",
    ),
    "unknown_warc_type": ("documents", "a WARC-Type the WARC standard does not define"),
    "missing_record_id": ("documents", "no WARC-Record-ID, or one that names nothing"),
    "missing_refers_to": (
        "documents",
        "a WET record whose WARC-Refers-To names no response record",
    ),
    "missing_target_uri": ("documents", "no WARC-Target-URI"),
    "bad_target_uri": ("documents", "a target URI that is no http(s) URL with a host"),
    "bad_url": ("documents", "a URL whose host cannot be keyed"),
    "malformed_http": ("documents", "a response block that is no HTTP message"),
    "undecodable_payload": (
        "documents",
        "a payload whose transfer or content coding cannot be undone",
    ),
    "extraction_failed": (
        "documents",
        "a page the HTML parser or main-text extractor could not take",
    ),
    "unreadable_record": ("documents", "a record the WARC reader could not parse"),
    "truncated_record": ("documents", "a record cut short by the end of the file"),
    "corrupt_member": ("documents", "a gzip member that does not inflate"),
    "malformed_record": ("documents", "a WARC header block that does not parse"),
    "bad_content_length": ("documents", "a Content-Length that is missing, not a number or wrong"),
    "bad_record_id": (
        "documents",
        "a WARC-Record-ID that is no `<` absolute URI `>` "
        "(WARC 1.1 §5.2: white space, a control character, no scheme)",
    ),
    "bad_refers_to": (
        "documents",
        "a WET record whose WARC-Refers-To is no record id (WARC 1.1 §5.11)",
    ),
    "unsupported_content_encoding": (
        "documents",
        "a Content-Encoding the reader cannot undo (named in the detail) "
        "over bytes that are not text",
    ),
    # web-graph text (python -m ingest graph)
    "wrong_column_count": ("graph", "a line with too many or too few tab-separated fields"),
    "merged_www_twin": ("graph", "a ranks line merged into its host's row (www and bare name)"),
    # host index (python -m ingest host-index)
    "missing_surt_host_name": ("host-index", "a host-index row without a host key"),
    "bad_surt_host_name": ("host-index", "a host key outside the host-name alphabet"),
    "negative_count": ("host-index", "a negative page or request count"),
    # quality annotations (python -m ingest annotations)
    "missing_key": ("annotations", "an annotation row without its page or host key"),
    "bad_host": ("annotations", "an annotation row whose host cannot be keyed"),
    "bad_crawl": ("annotations, scores", "a crawl that is no CC-MAIN-YYYY-WW id"),
    "crawl_mismatch": ("annotations", "a row of another crawl than the file's"),
    "missing_quality": ("annotations", "an annotation row without its quality value"),
    "unknown_label": ("annotations", "a quality label the profile does not know"),
    "score_out_of_range": ("annotations, scores", "a score outside its scale"),
    "score_not_predicted_label_probability": (
        "annotations",
        "a label probability below 1/2 for its label",
    ),
    "int_score_disagrees_with_score": (
        "annotations",
        "a FineWeb-Edu int_score other than round(clip(score, 0, 5)), ties to even",
    ),
    # scores computed elsewhere (python -m ingest scores)
    "missing_classifier": ("scores", "a score row without a classifier"),
    "missing_doc_id": ("scores", "a score row without a document id"),
    "missing_url": ("scores", "a score row without a URL"),
    "missing_crawl": ("scores", "a score row without a crawl"),
    "missing_score": ("scores", "a score row without a score"),
    "score_not_a_number": ("scores", "a score that does not parse as a number"),
    "score_not_finite": ("scores", "a score that is NaN or infinite"),
    "unknown_document": ("scores", "a score of a document the lake does not hold"),
    "ambiguous_url": ("scores", "a URL that names more than one committed document"),
    "duplicate_score": ("scores", "a second score for the same document and classifier"),
}

# Values nulled in records that are still written: reason -> what it means.
NULLED: dict[str, tuple[str, str]] = {
    "content_encoding_not_applied": (
        "documents",
        "a Content-Encoding the stored payload does not carry: the payload taken as stored "
        "(Common Crawl before CC-MAIN-2018-34)",
    ),
    "transfer_encoding_not_applied": (
        "documents",
        "a Transfer-Encoding the stored payload does not carry: the payload taken as stored",
    ),
    "content_length_understated": (
        "documents",
        "a Content-Length up to 8 bytes short of the block: the page kept without those bytes",
    ),
    "malformed_identified_content_language": (
        "documents",
        "a WET WARC-Identified-Content-Language that is no language code",
    ),
    "missing_warc_date": ("documents", "no WARC-Date (fetched_at is null)"),
    "bad_warc_date": ("documents", "a WARC-Date that is no ISO 8601 date"),
    "malformed_languages_cld2": (
        "documents",
        "a metadata record's languages-cld2 that does not parse",
    ),
    "nutch_fetched_above_num_records": (
        "host-index",
        "more pages fetched than records (both nulled)",
    ),
    "fetch_200_lote_above_fetch_200": (
        "host-index",
        "more low-text 200s than 200s (both nulled)",
    ),
    "unknown_category_label": (
        "annotations",
        "a GneissWeb category label the profile does not know, or a category score without one",
    ),
    "category_score_out_of_range": ("annotations", "a GneissWeb category score outside [0, 1]"),
    "category_score_not_predicted_label_probability": (
        "annotations",
        "a GneissWeb category label probability below 1/2 for its label",
    ),
}

# Reasons over a column: template -> (rejected or nulled, the ingests, what it means).
TEMPLATES: dict[str, tuple[str, str, str]] = {
    "malformed_<column>": ("rejected", "graph", "a field that does not parse as its column's type"),
    "non_finite_<column>": ("nulled", "graph, host-index", "a NaN or infinite number"),
    "out_of_range_<column>": ("nulled", "graph, host-index", "a number outside its range"),
}
_TEMPLATE_PATTERNS = {
    kind: [
        re.compile("^" + template.replace("<column>", "[a-z][a-z0-9_]*") + "$")
        for template, (of_kind, _, _) in TEMPLATES.items()
        if of_kind == kind
    ]
    for kind in ("rejected", "nulled")
}

# The document ingest's expected skips; every other reason a document record gets is a failure.
DOCUMENT_SKIPS = frozenset(
    {
        "revisit",
        "resource_record",
        "non_200",
        "non_html",
        "empty_payload",
        "no_main_text",
        "duplicate_record_id",
        "payload_too_large",
    }
)


def is_registered(reason: str, kind: str) -> bool:
    """Whether ``reason`` is a registered reason of ``kind`` (``rejected`` or ``nulled``)."""
    names = REJECTED if kind == "rejected" else NULLED
    return reason in names or any(p.match(reason) for p in _TEMPLATE_PATTERNS[kind])


def is_document_failure(reason: str) -> bool:
    """Whether a document record rejected for ``reason`` is a page lost (not an expected skip)."""
    return reason not in DOCUMENT_SKIPS


def markdown_table() -> str:
    """The table of every reason that ``docs/formats.md`` holds (``python -m ingest.reasons``)."""
    lines = ["| reason | counted as | ingest | meaning |", "|---|---|---|---|"]
    entries = [(name, "rejected", *entry) for name, entry in REJECTED.items()]
    entries += [(name, "nulled", *entry) for name, entry in NULLED.items()]
    entries += [(name, kind, ingest, text) for name, (kind, ingest, text) in TEMPLATES.items()]
    for name, kind, ingest, meaning in sorted(entries):
        if kind == "rejected" and ingest == "documents":
            kind = "rejected: skip" if name in DOCUMENT_SKIPS else "rejected: failure"
        lines.append(f"| `{name}` | {kind} | {ingest} | {meaning} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
