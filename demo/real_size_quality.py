"""The quality side of the real-size inputs: annotations and a classified sample, by host part.

``demo.real_size`` writes one crawl's host index at a share of a real crawl's hosts in parts;
this module gives the same hosts a quality, from nothing but the host id and the index's own
counts, so any part can be written alone:

* a host's HQ density d is planted: z = ρ·c + √(1 − ρ²)·e with c its coverage's logit
  standardised (the index draws coverage as sigmoid(−0.9 + 1.4·N(0, 1))), e a normal fixed by
  the id, ρ = ``PLANTED_RHO``, and d = sigmoid(``DENSITY_MEAN_LOGIT`` + ``DENSITY_SCALE``·z):
  low-coverage hosts are slightly denser in HQ, the paper's negative coverage–quality relation;
* ``host_annotation_part``: Common Crawl's host-level GneissWeb rows
  (``demo.gneissweb.HOST_ANNOTATION_SCHEMA``) of the crawled hosts (``fetch_200`` > 0):
  ``in_gneissweb`` when any of its annotated pages (``fetch_200`` capped at
  ``ANNOTATED_PAGE_CAP``) is HQ, so with probability 1 − (1 − d)^pages;
* ``truth_part``: what the URL-level rows and the sample are drawn from later (the crawled
  hosts' names, fetched pages and d), kept beside the index;
* ``url_annotation_parts``: URL-level GneissWeb rows (``URL_ANNOTATION_SCHEMA``), a chosen
  number of rows spread over the crawled hosts in proportion to their fetched pages, each page
  HQ with probability d;
* ``classified_sample``: the classified WARC sample's documents and classifier scores for the
  hosts of the first part with at least 3 fetched pages (the same hosts at every share), each
  classifier's page score sigmoid(logit d + host and page noise), as ``demo.paper_lake``
  commits them.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from demo.bench_inputs import normals, unit
from demo.config import CLASSIFIERS
from demo.crawls import CRAWL_DAYS, crawl_start, record_id_array
from demo.gneissweb import HOST_ANNOTATION_SCHEMA, URL_ANNOTATION_SCHEMA
from ingest import schemas

__all__ = [
    "ANNOTATED_PAGE_CAP",
    "PLANTED_RHO",
    "TRUTH_SCHEMA",
    "classified_sample",
    "host_annotation_part",
    "hq_density",
    "truth_part",
    "url_annotation_parts",
]

PLANTED_RHO = -0.08  # latent quality against coverage's logit (the paper's RQ4: −0.08)
DENSITY_MEAN_LOGIT = -1.2  # a host's HQ density: sigmoid(−1.2 + 1.5 z), mean about 0.27
DENSITY_SCALE = 1.5
ANNOTATED_PAGE_CAP = 50  # annotated pages a host gets in one crawl, as the paper-scale demo caps
SAMPLE_MIN_PAGES = 3  # the classified sample's hosts have at least this many fetched pages
SAMPLE_MEAN_PAGES = 5.6  # 2,995,856 pages on 532,628 hosts in the paper's sample
URL_PART_ROWS = 4_000_000  # URL-level rows per Parquet part at most

TRUTH_SCHEMA = pa.schema(
    [
        ("surt_host_name", pa.string()),
        ("url_host_registered_domain", pa.string()),
        ("host_id", pa.int64()),
        ("fetch_200", pa.int32()),
        ("hq_density", pa.float64()),
    ]
)
_CATEGORIES = [name for name in HOST_ANNOTATION_SCHEMA.names if name.startswith("gneissweb_")]


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def hq_density(ids: np.ndarray, coverage: np.ndarray) -> np.ndarray:
    """The planted HQ density of hosts ``ids`` whose coverage (fetched / known) is given."""
    clipped = np.clip(coverage, 0.01, 0.99)
    standardised = (np.log(clipped / (1.0 - clipped)) + 0.9) / 1.4
    z = PLANTED_RHO * standardised + np.sqrt(1.0 - PLANTED_RHO**2) * normals(ids, 21)
    return _sigmoid(DENSITY_MEAN_LOGIT + DENSITY_SCALE * z)


def truth_part(ids: np.ndarray, index_part: pa.Table) -> pa.Table:
    """The crawled hosts of one index part (rows in the part's order, ``ids`` its host ids)."""
    fetch_200 = index_part["fetch_200"].to_numpy()
    known = index_part["nutch_numRecords"].to_numpy().astype(np.float64)
    fetched = index_part["nutch_fetched"].to_numpy().astype(np.float64)
    coverage = np.divide(fetched, known, out=np.zeros_like(known), where=known > 0)
    crawled = np.flatnonzero(fetch_200 > 0)
    return pa.table(
        {
            "surt_host_name": index_part["surt_host_name"].take(crawled),
            "url_host_registered_domain": index_part["url_host_registered_domain"].take(crawled),
            "host_id": ids[crawled],
            "fetch_200": fetch_200[crawled],
            "hq_density": hq_density(ids[crawled], coverage[crawled]),
        },
        schema=TRUTH_SCHEMA,
    )


def host_annotation_part(truth: pa.Table) -> pa.Table:
    """Host-level GneissWeb rows of one part's crawled hosts (in the part's SURT order)."""
    ids = truth["host_id"].to_numpy()
    density = truth["hq_density"].to_numpy()
    pages = np.minimum(truth["fetch_200"].to_numpy(), ANNOTATED_PAGE_CAP)
    flagged = unit(ids, 22) < 1.0 - (1.0 - density) ** pages
    columns = {"surt_host_name": truth["surt_host_name"], "in_gneissweb": flagged}
    logit = np.log(density / (1.0 - density))
    for offset, name in enumerate(_CATEGORIES):  # a host's mean category probability
        columns[name] = _sigmoid(logit + 0.5 * normals(ids, 23 + offset))
    return pa.table({name: columns[name] for name in HOST_ANNOTATION_SCHEMA.names}).cast(
        HOST_ANNOTATION_SCHEMA
    )


def _page_rows(pages: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each page's host (its index in ``pages``) and its number within the host (0, 1, …)."""
    row = np.repeat(np.arange(len(pages)), pages)
    starts = np.cumsum(pages) - pages
    number = np.arange(len(row)) - starts[row]
    return row, number


def url_annotation_parts(truth: pa.Table, share: float, crawl: str) -> Iterator[pa.Table]:
    """URL-level GneissWeb rows of one part's crawled hosts, ``URL_PART_ROWS`` at most each.

    A host gets ``share`` × its fetched pages rows, rounded up or down at random (fixed by the
    host id, as is every value of a page: its key is the host id and its number).
    """
    ids = truth["host_id"].to_numpy()
    expected = truth["fetch_200"].to_numpy() * share
    pages = (np.floor(expected) + (unit(ids, 24) < expected - np.floor(expected))).astype(np.int64)
    bounds = np.searchsorted(np.cumsum(pages), np.arange(URL_PART_ROWS, pages.sum(), URL_PART_ROWS))
    for hosts in np.split(np.arange(len(pages)), bounds + 1):
        if len(hosts) == 0:
            continue
        chunk = truth.take(hosts)
        row, number = _page_rows(pages[hosts])
        if len(row) == 0:
            continue
        page_key = ids[hosts][row] * np.int64(1 << 20) + number  # unique per page
        density = chunk["hq_density"].to_numpy()[row]
        paths = pc.binary_join_element_wise(")/p/", pa.array(number.astype(str), pa.string()), "")
        columns = {
            "url_surtkey": pc.binary_join_element_wise(
                chunk["surt_host_name"].take(row), paths, ""
            ),
            "fetch_time": _fetch_times(page_key, crawl),
            "in_gneissweb": unit(page_key, 26) < density,
        }
        for offset, name in enumerate(_CATEGORIES):
            columns[name] = _sigmoid(
                np.log(density / (1.0 - density)) + normals(page_key, 27 + offset)
            )
        yield pa.table({name: columns[name] for name in URL_ANNOTATION_SCHEMA.names}).cast(
            URL_ANNOTATION_SCHEMA
        )


def classified_sample(truth: pa.Table, source: str, crawl: str) -> tuple[pa.Table, pa.Table]:
    """The classified sample's documents and scores for ``truth``'s hosts (``demo.paper_lake``).

    Hosts with at least ``SAMPLE_MIN_PAGES`` fetched pages, each with 3 + a geometric number of
    pages (mean ``SAMPLE_MEAN_PAGES``), at most its fetched pages, fetched in ``crawl``;
    ``source`` is the stand-in input file's text (the documents' ``warc_file``).
    """
    eligible = truth.filter(pc.greater_equal(truth["fetch_200"], SAMPLE_MIN_PAGES))
    ids = eligible["host_id"].to_numpy()
    extra = np.floor(
        np.log1p(-unit(ids, 30)) / np.log1p(-1.0 / (SAMPLE_MEAN_PAGES - SAMPLE_MIN_PAGES + 1))
    )
    pages = np.minimum(SAMPLE_MIN_PAGES + extra, eligible["fetch_200"].to_numpy()).astype(np.int64)
    row, number = _page_rows(pages)
    count = len(row)
    page_key = ids[row] * np.int64(1 << 20) + number
    surt = eligible["surt_host_name"].take(row)
    host = _host_names(surt)
    registered = eligible["url_host_registered_domain"].take(row)
    suffix = pc.replace_substring_regex(registered, r"^[^.]*\.", "")
    rng = np.random.default_rng(len(eligible))
    documents = pa.table(
        {
            "doc_id": record_id_array(rng, count),
            "url": pc.binary_join_element_wise(
                "https://", host, "/p/", pa.array(number.astype(str), pa.string()), ""
            ),
            "surt_host_name": surt,
            "url_host_registered_domain": registered,
            "url_host_tld": pc.replace_substring_regex(suffix, r"^.*\.", ""),
            "url_host_registry_suffix": suffix,
            "warc_file": pa.repeat(pa.scalar(source), count),
            "warc_record_offset": pa.array(np.zeros(count, dtype=np.int64)),
            "language": pa.repeat(pa.scalar("en"), count),
            "language_score": pa.array(np.round(0.7 + 0.3 * unit(page_key, 32), 4)),
            "language_source": pa.repeat(pa.scalar("synthetic"), count),
            "text_length": pa.array((800 + unit(page_key, 33) * 19_200).astype(np.int32)),
            "payload_digest": pa.nulls(count, pa.string()),
            "fetched_at": _fetch_times(page_key, crawl),
            "text": pa.nulls(count, pa.string()),
        },
        schema=schemas.DOCUMENTS,
    )
    logit = np.log(eligible["hq_density"].to_numpy() / (1.0 - eligible["hq_density"].to_numpy()))
    scores = np.empty((count, len(CLASSIFIERS)))
    for column in range(len(CLASSIFIERS)):
        host_noise = 0.8 * normals(ids, 40 + column)
        scores[:, column] = _sigmoid(logit[row] + host_noise[row] + normals(page_key, 60 + column))
    doc_ids = documents["doc_id"]
    document_scores = pa.table(
        {
            "doc_id": doc_ids.take(pa.array(np.repeat(np.arange(count), len(CLASSIFIERS)))),
            "classifier": pa.array(
                np.tile(np.array([spec.name for spec in CLASSIFIERS], dtype=object), count),
                pa.string(),
            ),
            "score": pa.array(scores.reshape(-1)),
        },
        schema=schemas.DOCUMENT_SCORES,
    )
    return documents, document_scores


def _fetch_times(page_key: np.ndarray, crawl: str) -> pa.Array:
    """A capture time per page within the crawl's fetching days, to the second."""
    start = int(crawl_start(crawl).timestamp())
    seconds = start + (unit(page_key, 25) * CRAWL_DAYS * 86_400).astype(np.int64)
    return pa.array(seconds * 1_000_000, pa.int64()).cast(pa.timestamp("us", tz="UTC"))


def _host_names(surt: pa.Array) -> pa.Array:
    """Host names of SURT host names: ``com,example,blog`` → ``blog.example.com``."""
    labels = pc.split_pattern(surt, ",")
    return pa.array([".".join(reversed(parts)) for parts in labels.to_pylist()], pa.string())
