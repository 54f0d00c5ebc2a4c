"""Common Crawl's per-host crawl counts (the host index) and the URL-level GneissWeb annotations.

Coverage ``nutch_fetched / nutch_numRecords`` is driven by link attractiveness (so by harmonic
centrality, as Common Crawl's budget is, FORMATS.md / SPEC §3.4), by TLD, and by a planted,
slightly negative dependence on host quality whose Spearman correlation is set per crawl.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest.synth.config import (
    CLASSIFIERS,
    COVERAGE_QUALITY_SPEARMAN,
    DRIFTED_CRAWL,
    SAMPLE_CRAWL,
    TLDS,
    Scale,
)
from ingest.synth.model import ROLE_DANGLING, Hosts, page_scores

__all__ = [
    "HOST_INDEX_SCHEMA",
    "CrawlCountModel",
    "CrawlCounts",
    "PageRows",
    "annotated_pages",
    "annotation_parts",
    "host_index_table",
    "host_strings",
    "record_id_array",
    "record_ids",
    "url_surtkeys",
]

_QUALITY = next(i for i, spec in enumerate(CLASSIFIERS) if spec.name == "gneissweb_quality_demo")
_COVERAGE_INTERCEPT = -0.9
_COVERAGE_SLOPE = 1.4
_FETCH_COLUMNS = (
    "fetch_3xx",
    "fetch_4xx",
    "fetch_5xx",
    "fetch_gone",
    "fetch_notModified",
    "fetch_other",
    "fetch_redirPerm",
    "fetch_redirTemp",
)
_NUTCH_PCT = ("fetched", "unfetched", "gone", "notModified", "redirPerm", "redirTemp")
_ROBOTS = (
    "robots_200",
    "robots_3xx",
    "robots_4xx",
    "robots_5xx",
    "robots_gone",
    "robots_notModified",
    "robots_other",
    "robots_redirPerm",
    "robots_redirTemp",
)

# Column order and types of athena_schema.v2.sql (FORMATS.md §2.2): int is int32, ranks double.
HOST_INDEX_SCHEMA = pa.schema(
    [
        ("surt_host_name", pa.string()),
        ("url_host_registered_domain", pa.string()),
        ("url_host_tld", pa.string()),
        ("hcrank10", pa.float64()),
        ("prank10", pa.float64()),
        ("prank", pa.float64()),
        ("hcrank", pa.float64()),
        ("warc_record_length_av", pa.int32()),
        ("warc_record_length_median", pa.int32()),
        ("fetch_200", pa.int32()),
        ("fetch_200_lote", pa.int32()),
        ("fetch_200_lote_pct", pa.int32()),
        *[(name, pa.int32()) for name in _FETCH_COLUMNS],
        ("nutch_numRecords", pa.int32()),
        *[(f"nutch_{name}{suffix}", pa.int32()) for name in _NUTCH_PCT for suffix in ("", "_pct")],
        *[(name, pa.int32()) for name in _ROBOTS],
    ]
)


@dataclass
class CrawlCounts:
    """Known and fetched URLs of every host in one crawl (index = host id)."""

    crawl: str
    known: np.ndarray  # int32: nutch_numRecords
    fetched: np.ndarray  # int32: nutch_fetched
    fetch_200: np.ndarray  # int32: archived 200 captures


def _standardise(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    mean, sd = values[mask].mean(), values[mask].std()
    return (values - mean) / sd


class CrawlCountModel:
    """Known/fetched counts per host, one crawl at a time (so only one crawl is in memory).

    The coverage driver of crawl c is ``rho·q + sqrt(1 - rho²)·v``, where q is the host's
    standardised GneissWeb-quality effect and v the centrality/TLD driver made orthogonal to q
    over the crawled graph hosts; ``rho = 2·sin(pi·s/6)`` turns the planted Spearman s into the
    Pearson correlation of a bivariate normal with that Spearman.
    """

    def __init__(self, rng: np.random.Generator, hosts: Hosts) -> None:
        self.hosts = hosts
        crawled = (hosts.role != ROLE_DANGLING) & hosts.in_graph
        self.crawled = crawled
        count = hosts.count
        tld_shift = np.array([tld.coverage_shift for tld in TLDS])[hosts.tld_index]
        quality = _standardise(hosts.effects[:, _QUALITY], crawled)
        driver = 0.9 * _standardise(hosts.attractiveness, crawled) + tld_shift
        driver = driver + 0.6 * rng.standard_normal(count)
        slope = np.polyfit(quality[crawled], driver[crawled], 1)[0]
        orthogonal = _standardise(driver - slope * quality, crawled)
        orthogonal = orthogonal - quality * (
            np.mean(orthogonal[crawled] * quality[crawled]) / np.mean(quality[crawled] ** 2)
        )
        self.quality = quality
        self.orthogonal = _standardise(orthogonal, crawled)
        site_size = np.where(
            crawled,
            np.round(np.exp(rng.normal(3.0 + 0.35 * hosts.attractiveness, 1.3))),
            rng.integers(0, 4, count),
        )
        self.site_size = np.minimum(np.maximum(site_size, 3 * hosts.page_count), 2**30)

    def for_crawl(self, crawl: str, rng: np.random.Generator) -> CrawlCounts:
        """The counts of one crawl, drawn from its own random stream."""
        hosts, crawled, count = self.hosts, self.crawled, self.hosts.count
        rho = 2.0 * math.sin(math.pi * COVERAGE_QUALITY_SPEARMAN[crawl] / 6.0)
        latent = rho * self.quality + math.sqrt(1.0 - rho * rho) * self.orthogonal
        coverage = 1.0 / (1.0 + np.exp(-(_COVERAGE_INTERCEPT + _COVERAGE_SLOPE * latent)))
        jitter = np.exp(rng.normal(0, 0.15, count))
        known = np.where(crawled, np.maximum(1, np.round(self.site_size * jitter)), self.site_size)
        fetched = np.where(crawled, np.round(known * coverage), 0)
        skipped = crawled & (rng.random(count) < 0.08)  # crawled in other crawls, not this one
        if crawl == SAMPLE_CRAWL:
            skipped &= hosts.page_count == 0
        fetched[skipped] = 0
        fetch_200 = np.round(fetched * rng.beta(18.0, 2.0, count))
        if crawl == SAMPLE_CRAWL:
            fetch_200 = np.maximum(fetch_200, hosts.page_count)
            fetched = np.maximum(fetched, np.ceil(fetch_200 / 0.95))
            known = np.maximum(known, fetched)
        # Real host-index rows sometimes report more fetched than known URLs.
        quirk = crawled & (rng.random(count) < 0.005) & (fetched > 0)
        fetched[quirk] = known[quirk] + rng.integers(1, 6, int(quirk.sum()))
        return CrawlCounts(
            crawl, known.astype(np.int32), fetched.astype(np.int32), fetch_200.astype(np.int32)
        )


def _pct(part: np.ndarray, whole: np.ndarray) -> np.ndarray:
    return np.where(whole > 0, np.round(100.0 * part / np.maximum(whole, 1)), 0).astype(np.int32)


def _rank10(values: np.ndarray) -> np.ndarray:
    """A 0-10 log-scale normalisation of a centrality (our stand-in for hcrank10/prank10)."""
    logs = np.log(np.maximum(values, 1e-300))
    positive = values > 0
    low, high = logs[positive].min(), logs[positive].max()
    scaled = np.where(positive, 10.0 * (logs - low) / max(high - low, 1e-12), 0.0)
    return np.round(scaled, 3)


def graph_rows(hosts: Hosts) -> np.ndarray:
    """Ids of the graph's hosts in SURT order: the host index's row order (computed once)."""
    if "graph_order" not in hosts.derived:
        rows = np.flatnonzero(hosts.in_graph)
        surt = host_strings(hosts)[1].take(pa.array(rows))
        order = pc.sort_indices(surt).to_numpy()  # Arrow's string sort: far faster than numpy's
        hosts.derived["graph_order"] = rows[order]
    return hosts.derived["graph_order"]


def _graph_strings(hosts: Hosts) -> dict[str, pa.Array]:
    """The host index's string columns in row order, converted to Arrow once for all crawls."""
    if "graph_strings" not in hosts.derived:
        rows = pa.array(graph_rows(hosts))
        hosts.derived["graph_strings"] = {
            "surt_host_name": host_strings(hosts)[1].take(rows),
            "url_host_registered_domain": pa.array(hosts.registered_domain).take(rows),
            "url_host_tld": pa.array(hosts.suffix).take(rows),
        }
    return hosts.derived["graph_strings"]


def host_index_table(
    rng: np.random.Generator,
    hosts: Hosts,
    counts: CrawlCounts,
    harmonic: np.ndarray,
    pagerank: np.ndarray,
) -> pa.Table:
    """One host-index partition: a row per graph host, crawled or not (FORMATS.md §2).

    Args:
        rng: the random stream of this crawl.
        hosts: all hosts; rows are written for ``hosts.in_graph`` only.
        counts: the crawl's known/fetched counts.
        harmonic: harmonic centrality per host id (the graph release of the crawl).
        pagerank: PageRank per host id.
    """
    rows = graph_rows(hosts)
    n = len(rows)
    known = counts.known[rows]
    fetched = counts.fetched[rows]
    fetch_200 = counts.fetch_200[rows]
    english = hosts.is_english[rows]

    def share(values: np.ndarray, factor: float | np.ndarray) -> np.ndarray:
        return np.round(values * factor).astype(np.int32)

    lote = share(fetch_200, np.where(english, 0.03, 0.95))
    gone = share(known, 0.06)
    record_length = np.where(fetch_200 > 0, np.exp(rng.normal(9.6, 0.4, n)), 0)
    columns: dict[str, np.ndarray | pa.Array] = {
        **_graph_strings(hosts),
        "hcrank10": _rank10(harmonic[rows]),
        "prank10": _rank10(pagerank[rows]),
        "prank": pagerank[rows],
        "hcrank": harmonic[rows].astype(np.float64),
        "warc_record_length_av": np.round(record_length).astype(np.int32),
        "warc_record_length_median": np.round(record_length * 0.9).astype(np.int32),
        "fetch_200": fetch_200,
        "fetch_200_lote": lote,
        "fetch_200_lote_pct": _pct(lote, fetch_200),
    }
    rate = fetched * 0.01
    for name in _FETCH_COLUMNS:
        columns[name] = rng.poisson(rate).astype(np.int32)
    columns["nutch_numRecords"] = known
    nutch = {
        "fetched": fetched,
        "gone": gone,
        "unfetched": np.maximum(known - fetched - gone, 0).astype(np.int32),
        "notModified": share(fetched, 0.1),
        "redirPerm": share(known, 0.03),
        "redirTemp": share(known, 0.02),
    }
    for name in _NUTCH_PCT:
        columns[f"nutch_{name}"] = nutch[name]
        columns[f"nutch_{name}_pct"] = _pct(nutch[name], known)
    zeros = np.zeros(n, dtype=np.int32)
    for name in _ROBOTS:
        columns[name] = (known > 0).astype(np.int32) if name == "robots_200" else zeros
    table = pa.Table.from_arrays(
        [pa.array(columns.pop(field.name), field.type) for field in HOST_INDEX_SCHEMA],
        schema=HOST_INDEX_SCHEMA,
    )
    if counts.crawl == DRIFTED_CRAWL:
        table = drift_schema(table)
    return table


def drift_schema(table: pa.Table) -> pa.Table:
    """The known drift of the real index: a column missing, wider integers, another order."""
    table = table.drop_columns(["fetch_200_lote_pct"])
    fields = []
    arrays = []
    for field, column in zip(table.schema, table.columns, strict=True):
        if field.name.startswith("nutch_") and field.type == pa.int32():
            column = column.cast(pa.int64())
            field = pa.field(field.name, pa.int64())
        fields.append(field)
        arrays.append(column)
    order = list(range(len(fields)))
    order = order[:3] + order[7:] + order[3:7]  # ranks after the counts
    return pa.Table.from_arrays(
        [arrays[i] for i in order], schema=pa.schema([fields[i] for i in order])
    )


_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
# Where each of the 32 hex digits of a UUID goes in ``<urn:uuid:8-4-4-4-12>`` (47 characters).
_HEX_POSITIONS = np.array(
    [10 + i + (i >= 8) + (i >= 12) + (i >= 16) + (i >= 20) for i in range(32)]
)


def record_id_array(rng: np.random.Generator, count: int) -> pa.Array:
    """WARC-Record-IDs (``<urn:uuid:…>``, version-4 layout) from the random stream, vectorised."""
    raw = np.frombuffer(rng.bytes(16 * count), dtype=np.uint8).reshape(count, 16).copy()
    raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40
    raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
    text = np.empty((count, 47), dtype=np.uint8)
    text[:, :10] = np.frombuffer(b"<urn:uuid:", dtype=np.uint8)
    text[:, [18, 23, 28, 33]] = ord("-")
    text[:, 46] = ord(">")
    digits = np.empty((count, 32), dtype=np.uint8)
    digits[:, 0::2] = _HEX[raw >> 4]
    digits[:, 1::2] = _HEX[raw & 0x0F]
    text[:, _HEX_POSITIONS] = digits
    ids = pa.array(text.view("S47").ravel(), pa.binary())
    if isinstance(ids, pa.ChunkedArray):  # pyarrow chunks large fixed-width byte arrays
        ids = ids.combine_chunks()
    return ids.cast(pa.string())


def record_ids(rng: np.random.Generator, count: int) -> list[str]:
    """WARC-Record-IDs as Python strings (the same draws as :func:`record_id_array`)."""
    return record_id_array(rng, count).to_pylist()


@dataclass
class PageRows:
    """Pages whose annotation rows are given rather than drawn (the WARC sample's pages)."""

    host_id: np.ndarray  # int64 host ids
    record_id: pa.Array  # string
    url: pa.Array  # string
    true_score: np.ndarray  # float64 (pages × classifiers)
    language: np.ndarray  # object


def host_strings(hosts: Hosts) -> tuple[pa.Array, pa.Array, pa.Array]:
    """Host names, SURT keys and languages of every host as Arrow strings (converted once)."""
    if "host_strings" not in hosts.derived:
        hosts.derived["host_strings"] = (
            pa.array(hosts.host_name, pa.string()),
            pa.array(hosts.surt_host_name, pa.string()),
            pa.array(hosts.language, pa.string()),
        )
    return hosts.derived["host_strings"]


def url_surtkeys(hosts: Hosts, host_id: np.ndarray, urls: pa.Array) -> pa.Array:
    """Common Crawl's SURT URL keys, ``com,example)/path?query`` (path lower-cased)."""
    path = pc.utf8_lower(pc.replace_substring_regex(urls, r"^[a-z]+://[^/]*", ""))
    path = pc.if_else(pc.equal(path, ""), "/", path)
    surt = host_strings(hosts)[1].take(pa.array(host_id))
    return pc.binary_join_element_wise(surt, ")", path, "")


ANNOTATION_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("dump", pa.string()),
        ("url", pa.string()),
        ("url_surtkey", pa.string()),
        ("date", pa.string()),
        ("file_path", pa.string()),
        ("language", pa.string()),
        ("language_score", pa.float64()),
        ("token_count", pa.int64()),
        ("cosmo_fastText_label", pa.string()),
        ("cosmo_fastText_score", pa.float64()),
        ("dclm_fastText_label", pa.string()),
        ("dclm_fastText_score", pa.float64()),
        ("medical_label", pa.string()),
        ("medical_score", pa.float64()),
        ("education_label", pa.string()),
        ("education_score", pa.float64()),
        ("technology_computing_label", pa.string()),
        ("technology_computing_score", pa.float64()),
        ("science_label", pa.string()),
        ("science_score", pa.float64()),
        ("mcalpine_eflaw_textstat", pa.float64()),
        ("doc_num_tokens", pa.int64()),
        ("doc_size_kbs", pa.float64()),
        ("doc_num_chars", pa.int64()),
        ("tokens_per_doc_size", pa.float64()),
        ("tokens_per_doc_num_chars", pa.float64()),
    ]
)


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


def annotation_parts(
    rng: np.random.Generator,
    hosts: Hosts,
    counts: CrawlCounts,
    splits: dict[str, float],
    scale: Scale,
    sample: PageRows | None = None,
) -> Iterator[pa.Table]:
    """URL-level GneissWeb-style annotations of one crawl's fetched pages, part by part.

    Each crawled graph host gets ``annotated_pages`` rows. In the sample crawl the WARC pages
    are among them (same record id, URL and true scores; they make the first part), so
    annotations join to the classified documents on ``id``. Further parts hold the drawn pages
    of consecutive host ranges, at most ``_PART_ROWS`` rows each.

    Args:
        rng: the random stream of this crawl (consumed part by part, in order).
        hosts: all hosts.
        counts: the crawl's counts.
        splits: latent between-host shares per classifier.
        scale: the scale (its ``annotation_page_cap``).
        sample: the WARC sample's pages, for the sample crawl.
    """
    given = (
        np.bincount(sample.host_id, minlength=hosts.count)
        if sample is not None
        else np.zeros(hosts.count, dtype=np.int64)
    )
    drawn = annotated_pages(hosts, counts, scale, sample) - given
    if sample is not None:
        yield _annotation_rows(
            rng,
            hosts,
            counts.crawl,
            sample.host_id,
            sample.record_id,
            sample.url,
            sample.true_score,
            pa.array(sample.language, pa.string()),
        )
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
        language = pc.if_else(
            pa.array(to_english), "en", host_strings(hosts)[2].take(pa.array(host_id))
        )
        non_english = ~(hosts.is_english[host_id] | to_english)
        scores = page_scores(rng, hosts, host_id, non_english, splits)
        ids = record_id_array(rng, len(host_id))
        position = np.arange(len(host_id)) - np.repeat(np.cumsum(part) - part, part)
        path = pc.binary_join_element_wise(
            "/page/", pc.cast(pa.array(position + given[host_id]), pa.string()), ".html", ""
        )
        urls = pc.binary_join_element_wise(
            "https://", host_strings(hosts)[0].take(pa.array(host_id)), path, ""
        )
        yield _annotation_rows(rng, hosts, counts.crawl, host_id, ids, urls, scores, language)


def _annotation_rows(
    rng: np.random.Generator,
    hosts: Hosts,
    crawl: str,
    host_id: np.ndarray,
    ids: pa.Array,
    urls: pa.Array,
    scores: np.ndarray,
    language: pa.Array,
) -> pa.Table:
    """The FineWeb/GneissWeb columns of annotation rows whose pages are given."""
    total = len(host_id)
    quality = scores[:, _column("gneissweb_quality_demo")]
    dclm = scores[:, _column("dclm_demo")]
    medical = scores[:, _column("gneissweb_medical_demo")]
    technology = scores[:, _column("gneissweb_technology_demo")]
    education = scores[:, _column("fineweb_edu_demo")]
    science = 1.0 / (1.0 + np.exp(-(0.6 * _logit(education) + 0.4 * _logit(technology))))
    chars = np.round(np.exp(rng.normal(8.2, 0.6, total))).astype(np.int64)
    tokens_per_char = np.clip(rng.normal(0.25, 0.04, total), 0.05, 0.6)
    tokens = np.round(chars * tokens_per_char).astype(np.int64)
    size_kb = chars * rng.uniform(1.0, 1.3, total) / 1024.0
    days = pa.array([f"{crawl[8:12]}-03-{d + 1:02d}T12:00:00Z" for d in range(14)])
    segments = pa.array(
        [
            f"s3://commoncrawl/crawl-data/{crawl}/segments/{s:05d}/warc/part-{s:05d}.warc.gz"
            for s in range(100)
        ]
    )

    def label(values: np.ndarray, positive: str) -> pa.Array:
        return pc.if_else(pa.array(values > 0.5), positive, "cc")

    columns = {
        "id": ids,
        "dump": pa.repeat(pa.scalar(crawl), total),
        "url": urls,
        "url_surtkey": url_surtkeys(hosts, host_id, urls),
        "date": days.take(pa.array(rng.integers(0, len(days), total))),
        "file_path": segments.take(pa.array(rng.integers(0, len(segments), total))),
        "language": language,
        "language_score": np.round(rng.uniform(0.65, 1.0, total), 4),
        "token_count": tokens,
        "cosmo_fastText_label": label(quality, "hq"),
        "cosmo_fastText_score": quality,
        "dclm_fastText_label": label(dclm, "hq"),
        "dclm_fastText_score": dclm,
        "medical_label": label(medical, "medical"),
        "medical_score": medical,
        "education_label": label(education, "education"),
        "education_score": education,
        "technology_computing_label": label(technology, "technology"),
        "technology_computing_score": technology,
        "science_label": label(science, "science"),
        "science_score": science,
        "mcalpine_eflaw_textstat": np.round(np.exp(rng.normal(3.4, 0.35, total)), 2),
        "doc_num_tokens": tokens,
        "doc_size_kbs": size_kb,
        "doc_num_chars": chars,
        "tokens_per_doc_size": tokens / (size_kb * 1024.0),
        "tokens_per_doc_num_chars": tokens / chars,
    }
    return pa.Table.from_arrays(
        [pa.array(columns.pop(field.name), type=field.type) for field in ANNOTATION_SCHEMA],
        schema=ANNOTATION_SCHEMA,
    )


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return np.log(p) - np.log1p(-p)
