"""Common Crawl's GneissWeb annotations of the demo crawl, at URL and at host level.

The annotations are Common Crawl's own two GneissWeb datasets
(``commoncrawl/gneissweb-annotation-url-testing-v1`` and ``…-host-testing-v1``, on S3 under
``projects/gneissweb-annotation-testing-v1/{urls,hosts}/crawl=…/``): a row per annotated page
keyed by ``url_surtkey`` and ``fetch_time`` (the crawl is the Hive partition), and a row per host
with the host's mean category scores. A page's category probabilities are the planted
classifiers' true scores (``CATEGORY_SOURCES``); the crawl counts come from ``demo.crawls``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from demo.config import CLASSIFIERS, Scale
from demo.crawls import (
    CRAWL_DAYS,
    QUALITY_CLASSIFIER,
    CrawlCounts,
    PageRows,
    crawl_start,
    host_strings,
    url_surtkeys,
)
from demo.model import Hosts, page_scores

__all__ = [
    "CATEGORY_SOURCES",
    "HOST_ANNOTATION_SCHEMA",
    "IN_GNEISSWEB_THRESHOLD",
    "URL_ANNOTATION_SCHEMA",
    "AnnotationTotals",
    "annotated_pages",
    "annotation_parts",
    "host_annotation_table",
]


# Common Crawl's URL-level GneissWeb annotations: the crawl is the Hive partition only.
URL_ANNOTATION_SCHEMA = pa.schema(
    [
        ("url_surtkey", pa.string()),
        ("fetch_time", pa.timestamp("us", tz="UTC")),
        ("in_gneissweb", pa.bool_()),
        ("gneissweb_technology", pa.float64()),
        ("gneissweb_science", pa.float64()),
        ("gneissweb_education", pa.float64()),
        ("gneissweb_medical", pa.float64()),
    ]
)
# Common Crawl's host-level GneissWeb annotations (the joined README sample's column order).
HOST_ANNOTATION_SCHEMA = pa.schema(
    [
        ("surt_host_name", pa.string()),
        ("gneissweb_technology", pa.float64()),
        ("gneissweb_science", pa.float64()),
        ("gneissweb_education", pa.float64()),
        ("gneissweb_medical", pa.float64()),
        ("in_gneissweb", pa.bool_()),
    ]
)
_CATEGORIES = (
    "gneissweb_technology",
    "gneissweb_science",
    "gneissweb_education",
    "gneissweb_medical",
)
# The planted classifier whose true score each category probability is (science: a mix).
CATEGORY_SOURCES = {
    "gneissweb_technology": "gneissweb_technology_demo",
    "gneissweb_science": (
        "sigmoid(0.6 logit(fineweb_edu_demo) + 0.4 logit(gneissweb_technology_demo))"
    ),
    "gneissweb_education": "fineweb_edu_demo",
    "gneissweb_medical": "gneissweb_medical_demo",
}
IN_GNEISSWEB_THRESHOLD = 0.5  # GneissWeb keeps pages whose quality score is above 0.5


def _column(name: str) -> int:
    return next(i for i, spec in enumerate(CLASSIFIERS) if spec.name == name)


_PART_ROWS = 2_000_000  # annotation rows per Parquet part (bounds the generator's memory)


def annotated_pages(
    hosts: Hosts, counts: CrawlCounts, scale: Scale, sample: PageRows | None = None
) -> np.ndarray:
    """Annotated pages per host id: ``min(fetch_200, cap)``, at least the host's WARC pages."""
    pages = np.minimum(counts.fetch_200, scale.annotation_page_cap).astype(np.int64)
    pages[~hosts.in_graph] = 0  # no crawl counts for hosts outside the graph ...
    if sample is not None:  # ... but their WARC pages are annotated
        pages = np.maximum(pages, np.bincount(sample.host_id, minlength=hosts.count))
    return pages


@dataclass
class AnnotationTotals:
    """Per host id, what the URL-level rows of one crawl add up to (for the host level)."""

    pages: np.ndarray  # int64: annotated pages
    sums: np.ndarray  # float64 (H, 4): sums of the category scores, in _CATEGORIES order
    in_gneissweb: np.ndarray  # int64: pages in GneissWeb

    @classmethod
    def empty(cls, count: int) -> AnnotationTotals:
        """No rows yet for ``count`` hosts."""
        return cls(
            np.zeros(count, dtype=np.int64),
            np.zeros((count, len(_CATEGORIES))),
            np.zeros(count, dtype=np.int64),
        )

    def add(self, host_id: np.ndarray, table: pa.Table) -> None:
        """Add one part's rows (``host_id`` gives each row's host)."""
        count = len(self.pages)
        self.pages += np.bincount(host_id, minlength=count)
        flags = table["in_gneissweb"].to_numpy(zero_copy_only=False).astype(np.float64)
        self.in_gneissweb += np.round(np.bincount(host_id, flags, count)).astype(np.int64)
        for index, name in enumerate(_CATEGORIES):
            values = table[name].to_numpy()
            self.sums[:, index] += np.bincount(host_id, values, count)


def annotation_parts(
    rng: np.random.Generator,
    hosts: Hosts,
    counts: CrawlCounts,
    splits: dict[str, float],
    scale: Scale,
    sample: PageRows | None = None,
    totals: AnnotationTotals | None = None,
) -> Iterator[pa.Table]:
    """URL-level GneissWeb annotations of one crawl's archived pages, part by part.

    Each crawled graph host gets ``annotated_pages`` rows, fetched at random seconds of the
    crawl's two weeks. In the sample crawl the WARC pages are among them (the same
    ``url_surtkey`` and ``fetch_time`` = WARC-Date, their true scores; they make the first part),
    so annotations join to the classified documents on the URL's SURT key and the capture time,
    as Common Crawl's join them to its URL index. Further parts hold the drawn pages of
    consecutive host ranges, at most ``_PART_ROWS`` rows each.

    Args:
        rng: the random stream of this crawl (consumed part by part, in order).
        hosts: all hosts.
        counts: the crawl's counts.
        splits: latent between-host shares per classifier.
        scale: the scale (its ``annotation_page_cap``).
        sample: the WARC sample's pages, for the sample crawl.
        totals: if given, each part's rows are added to it (for ``host_annotation_table``).
    """
    given = (
        np.bincount(sample.host_id, minlength=hosts.count)
        if sample is not None
        else np.zeros(hosts.count, dtype=np.int64)
    )
    drawn = annotated_pages(hosts, counts, scale, sample) - given
    surt = host_strings(hosts)[1]
    if sample is not None:
        table = _annotation_rows(
            sample.fetch_time,
            url_surtkeys(hosts, sample.host_id, sample.url),
            sample.true_score,
        )
        if totals is not None:
            totals.add(sample.host_id, table)
        yield table
    start_us = int(crawl_start(counts.crawl).timestamp()) * 1_000_000
    ends = np.cumsum(drawn)
    first = 0
    while first < hosts.count:
        last = int(np.searchsorted(ends, (ends[first - 1] if first else 0) + _PART_ROWS, "right"))
        last = max(last, first + 1)
        part = np.zeros(hosts.count, dtype=np.int64)
        part[first:last] = drawn[first:last]
        first = last
        if not part.any():
            continue
        host_id = np.repeat(np.arange(hosts.count), part)
        to_english = (rng.random(len(host_id)) < 0.05) & ~hosts.is_english[host_id]
        non_english = ~(hosts.is_english[host_id] | to_english)
        scores = page_scores(rng, hosts, host_id, non_english, splits)
        seconds = rng.integers(0, CRAWL_DAYS * 86_400, len(host_id))
        position = np.arange(len(host_id)) - np.repeat(np.cumsum(part) - part, part)
        path = pc.binary_join_element_wise(
            ")/page/", pc.cast(pa.array(position + given[host_id]), pa.string()), ".html", ""
        )
        keys = pc.binary_join_element_wise(surt.take(pa.array(host_id)), path, "")
        table = _annotation_rows(start_us + seconds * 1_000_000, keys, scores)
        if totals is not None:
            totals.add(host_id, table)
        yield table


def _annotation_rows(fetch_time: np.ndarray, keys: pa.Array, scores: np.ndarray) -> pa.Table:
    """The URL-level rows of pages with the given SURT keys, capture times and true scores."""
    education = scores[:, _column("fineweb_edu_demo")]
    technology = scores[:, _column("gneissweb_technology_demo")]
    science = 1.0 / (1.0 + np.exp(-(0.6 * _logit(education) + 0.4 * _logit(technology))))
    columns = {
        "url_surtkey": keys,
        "fetch_time": pa.array(fetch_time, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
        "in_gneissweb": scores[:, QUALITY_CLASSIFIER] > IN_GNEISSWEB_THRESHOLD,
        "gneissweb_technology": technology,
        "gneissweb_science": science,
        "gneissweb_education": education,
        "gneissweb_medical": scores[:, _column("gneissweb_medical_demo")],
    }
    return pa.Table.from_arrays(
        [pa.array(columns.pop(field.name), type=field.type) for field in URL_ANNOTATION_SCHEMA],
        schema=URL_ANNOTATION_SCHEMA,
    )


def host_annotation_table(hosts: Hosts, totals: AnnotationTotals) -> pa.Table:
    """The host-level annotations of one crawl: a row per host with annotated pages.

    Each category is the mean of the host's URL-level values. ``in_gneissweb`` reads the
    dataset card's "Boolean flag for GneissWeb inclusion" at host level as: at least one of the
    host's annotated pages is in GneissWeb (the ``bool_or`` of its URL-level flags). Rows are in
    SURT order.
    """
    present = np.flatnonzero(totals.pages > 0)
    surt = host_strings(hosts)[1].take(pa.array(present))
    order = pc.sort_indices(surt).to_numpy()
    present, surt = present[order], surt.take(pa.array(order))
    means = totals.sums[present] / totals.pages[present, None]
    columns = {
        "surt_host_name": surt,
        **{name: means[:, index] for index, name in enumerate(_CATEGORIES)},
        "in_gneissweb": totals.in_gneissweb[present] > 0,
    }
    return pa.Table.from_arrays(
        [pa.array(columns.pop(field.name), type=field.type) for field in HOST_ANNOTATION_SCHEMA],
        schema=HOST_ANNOTATION_SCHEMA,
    )


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p) - np.log1p(-p)
