"""Common Crawl's per-host crawl counts (the host index), and the demo's host and page names.

Pages per crawled host are log-normal, calibrated to Common Crawl's published crawl sizes
(``config.CRAWL_PAGES_PER_HOST_*``); the HostDb's per-host statuses (``nutch_*``) follow from
them with the CrawlDb's published shares. Coverage ``nutch_fetched / nutch_numRecords`` is driven
by link attractiveness (so by harmonic centrality, as Common Crawl's budget is: FORMATS.md;
docs/definitions.md, "3.4 How Common Crawl allocates its budget"), by TLD, and by a planted,
slightly negative dependence on host quality whose Spearman correlation is set per crawl.
``host_index_rows`` assembles a host-index table from drawn counts (also used by
``demo.bench_inputs``).

The host names (SURT, registered domain, last label), record ids and page rows here are shared
by the host index, the GneissWeb annotations (``demo.gneissweb``), the WARC sample and the lake.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from scipy.special import ndtr, ndtri

from demo.config import (
    CLASSIFIERS,
    COVERAGE_QUALITY_SPEARMAN,
    CRAWL_PAGES,
    CRAWL_PAGES_PER_HOST_MEAN,
    CRAWL_PAGES_PER_HOST_SIGMA,
    CRAWL_SIZE_ATTRACTIVENESS_CORRELATION,
    CRAWL_SIZE_JITTER_SD,
    CRAWLDB_STATUS,
    DRIFTED_CRAWL,
    FETCH_STATUS_PER_200,
    SAMPLE_CRAWL,
    TLDS,
)
from demo.model import ROLE_DANGLING, Hosts

__all__ = [
    "CRAWL_DAYS",
    "FETCH_COLUMNS",
    "HOST_INDEX_SCHEMA",
    "NOT_FETCHED",
    "QUALITY_CLASSIFIER",
    "ROBOTS_BEHAVIOURS",
    "CrawlCountModel",
    "CrawlCounts",
    "PageRows",
    "count_share",
    "crawl_start",
    "drift_schema",
    "host_index_rows",
    "host_index_table",
    "host_strings",
    "last_labels",
    "record_id_array",
    "record_ids",
    "robots_counts",
    "url_surtkeys",
]

# The GneissWeb quality classifier: its column in CLASSIFIERS (hosts.effects, true scores).
QUALITY_CLASSIFIER = next(
    i for i, spec in enumerate(CLASSIFIERS) if spec.name == "gneissweb_quality_demo"
)
_COVERAGE_SLOPE = 1.4
FETCH_COLUMNS = (
    "fetch_3xx",
    "fetch_4xx",
    "fetch_5xx",
    "fetch_gone",
    "fetch_notModified",
    "fetch_other",
    "fetch_redirPerm",
    "fetch_redirTemp",
)
# Fetch outcomes Common Crawl does not publish a rate for (per 200 capture).
_UNPUBLISHED_FETCH_RATE = 0.01
_NUTCH_PCT = ("fetched", "unfetched", "gone", "notModified", "redirPerm", "redirTemp")
# The HostDb statuses other than fetched, in the order of CrawlCounts.not_fetched's columns.
NOT_FETCHED = ("unfetched", "gone", "notModified", "redirPerm", "redirTemp")
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
# How a crawled host answers its robots.txt requests in the demo: planted shares (Common
# Crawl publishes none) of hosts whose every request is answered 200, 404/410 (no robots.txt),
# a permanent redirect then 200, 5xx (unreachable), 403-like 4xx (refused), or 200 and 5xx at
# random (flaky); the plan's robots constraint (models/intermediate/plan) reads them.
ROBOTS_BEHAVIOURS = {
    "ok": 0.62,
    "gone": 0.24,
    "redirect": 0.04,
    "unreachable": 0.04,
    "refused": 0.02,
    "flaky": 0.04,
}
_ROBOTS_FLAKY_5XX_RATE = 0.5  # a flaky host's requests answered 5xx
_INT32_MAX = 2**31 - 1
_SKIPPED_SHARE = 0.08  # crawled hosts a crawl skips (crawled in other crawls, not this one)
CRAWL_DAYS = 14  # a monthly crawl fetches for about two weeks

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
        *[(name, pa.int32()) for name in FETCH_COLUMNS],
        ("nutch_numRecords", pa.int32()),
        *[(f"nutch_{name}{suffix}", pa.int32()) for name in _NUTCH_PCT for suffix in ("", "_pct")],
        *[(name, pa.int32()) for name in _ROBOTS],
    ]
)


def crawl_start(crawl: str) -> datetime:
    """When a crawl began fetching: 13 days before the Monday of the ISO week in its name.

    CC-MAIN-2024-10 fetched from 2024-02-20 to 2024-03-05; its week 10 begins on 2024-03-04.
    """
    year, week = int(crawl[8:12]), int(crawl[13:15])
    return datetime.fromisocalendar(year, week, 1).replace(tzinfo=UTC) - timedelta(days=13)


@dataclass
class CrawlCounts:
    """One crawl's counts for every host (index = host id), as the host index reports them.

    ``known`` is the sum of ``fetched`` and the five ``not_fetched`` statuses (Nutch's
    ``HostDatum.numRecords``), except on the few quirk rows that report more fetched than known.
    """

    crawl: str
    known: np.ndarray  # int32: nutch_numRecords
    fetched: np.ndarray  # int32: nutch_fetched
    fetch_200: np.ndarray  # int32: archived 200 captures of this crawl
    not_fetched: np.ndarray  # int32 (H, 5): nutch_ unfetched, gone, notModified, redirPerm/Temp
    coverage_intercept: float  # the logit intercept that met the CrawlDb's fetched share


def _standardise(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    mean, sd = values[mask].mean(), values[mask].std()
    return (values - mean) / sd


def _int32(values: np.ndarray) -> np.ndarray:
    return np.minimum(values, _INT32_MAX).astype(np.int32)


class CrawlCountModel:
    """Per-host crawl counts, one crawl at a time (so only one crawl is in memory).

    Pages (``fetch_200``) of a crawled host in crawl c are ``max(1, round(exp(s_h + t·e_hc)))``:
    ``s_h`` is the host's own log size, normal with sd ``sqrt(sigma² - t²)`` and correlated with
    its link attractiveness, ``e_hc`` standard normal, so that pages are log-normal with the
    calibrated mean and sigma (``config.CRAWL_PAGES_PER_HOST_*``). A host of the WARC sample with
    k pages there has at least k pages: its ``s_h`` is drawn from the normal truncated to
    ``exp(s_h) >= k - 1/2`` (the size-biased selection of a sample of pages), its pages in the
    sample crawl are at least k.

    From the pages up, as the CrawlDb's published totals have it (``config.CRAWLDB_STATUS``):
    ``nutch_fetched = round(fetch_200 / f)``, f ~ Beta(6, b) with ``E[1/f]`` the CrawlDb's
    fetched URLs per page capture (of the 92% of crawled hosts a crawl does not skip: a skipped
    host has no captures in that crawl but keeps its HostDb counts, a year's aggregate);
    ``nutch_numRecords = round(nutch_fetched / coverage)``; the rest split multinomially into
    unfetched, gone, notModified, redirPerm and redirTemp by the CrawlDb's shares, so
    numRecords is the sum of the six statuses as in Nutch's HostDb.

    The coverage of crawl c is ``sigmoid(alpha_c + 1.4·(rho·q + sqrt(1 - rho²)·v))``, where q is
    the host's standardised GneissWeb-quality effect and v the centrality/TLD driver made
    orthogonal to q over the crawled graph hosts; ``rho = 2·sin(pi·s/6)`` turns the planted
    Spearman s into the Pearson correlation of a bivariate normal with that Spearman. The
    intercept ``alpha_c`` is the one under which the page-weighted coverage
    ``sum(fetched) / sum(known)`` of a log-normal population is the CrawlDb's fetched share
    (64.65%): ``alpha = slope²/2 - slope·cov(s, latent) + logit(share)``.
    """

    def __init__(self, rng: np.random.Generator, hosts: Hosts) -> None:
        self.hosts = hosts
        crawled = (hosts.role != ROLE_DANGLING) & hosts.in_graph
        self.crawled = crawled
        count = hosts.count
        tld_shift = np.array([tld.coverage_shift for tld in TLDS])[hosts.tld_index]
        quality = _standardise(hosts.effects[:, QUALITY_CLASSIFIER], crawled)
        driver = 0.9 * _standardise(hosts.attractiveness, crawled) + tld_shift
        driver = driver + 0.6 * rng.standard_normal(count)
        slope = np.polyfit(quality[crawled], driver[crawled], 1)[0]
        orthogonal = _standardise(driver - slope * quality, crawled)
        orthogonal = orthogonal - quality * (
            np.mean(orthogonal[crawled] * quality[crawled]) / np.mean(quality[crawled] ** 2)
        )
        self.quality = quality
        self.orthogonal = _standardise(orthogonal, crawled)

        sigma = CRAWL_PAGES_PER_HOST_SIGMA
        self.mu = math.log(CRAWL_PAGES_PER_HOST_MEAN) - sigma * sigma / 2.0
        self.host_sd = math.sqrt(sigma * sigma - CRAWL_SIZE_JITTER_SD**2)
        r = CRAWL_SIZE_ATTRACTIVENESS_CORRELATION
        z = r * _standardise(hosts.attractiveness, crawled) + math.sqrt(1 - r * r) * (
            rng.standard_normal(count)
        )
        # At least k - 1/2 (rounds to k) for a host with k sample pages: z given z >= lower.
        lower = (np.log(np.maximum(hosts.page_count, 1) - 0.5) - self.mu) / self.host_sd
        lower = np.where(hosts.page_count > 0, lower, -np.inf)
        z = -ndtri(ndtr(-lower) * ndtr(-z))
        self.log_size = self.mu + self.host_sd * z
        self.dangling_known = rng.integers(0, 4, count)  # URLs known from links only

        status = CRAWLDB_STATUS
        # E[1/f], the HostDb's fetched URLs per page capture of a host the crawl did not skip
        # (the published ratio counts the skipped hosts' fetched URLs too).
        per_page = (1.0 - _SKIPPED_SHARE) * status["fetched"] / CRAWL_PAGES
        self.fetched_share = status["fetched"] / sum(status.values())
        self.beta = (6.0, 5.0 * per_page - 5.0)  # Beta(a, b): E[1/f] = (a + b - 1) / (a - 1)
        rest = np.array([status[name] for name in NOT_FETCHED], dtype=np.float64)
        self.not_fetched_shares = rest / rest.sum()

    def for_crawl(self, crawl: str, rng: np.random.Generator) -> CrawlCounts:
        """The counts of one crawl, drawn from its own random stream."""
        hosts, crawled, count = self.hosts, self.crawled, self.hosts.count
        rho = 2.0 * math.sin(math.pi * COVERAGE_QUALITY_SPEARMAN[crawl] / 6.0)
        latent = rho * self.quality + math.sqrt(1.0 - rho * rho) * self.orthogonal
        log_size, latent_crawled = self.log_size[crawled], latent[crawled]
        covariance = float(np.mean((log_size - log_size.mean()) * latent_crawled))
        intercept = (
            _COVERAGE_SLOPE**2 / 2.0
            - _COVERAGE_SLOPE * covariance
            + math.log(self.fetched_share / (1.0 - self.fetched_share))
        )
        coverage = 1.0 / (1.0 + np.exp(-(intercept + _COVERAGE_SLOPE * latent)))

        size = np.exp(self.log_size + CRAWL_SIZE_JITTER_SD * rng.standard_normal(count))
        pages = np.where(crawled, np.maximum(1.0, np.round(np.minimum(size, 1e9))), 0.0)
        skipped = crawled & (rng.random(count) < _SKIPPED_SHARE)
        if crawl == SAMPLE_CRAWL:
            skipped &= hosts.page_count == 0
            pages = np.where(crawled, np.maximum(pages, hosts.page_count), 0.0)
        share = rng.beta(*self.beta, count)
        fetched = np.maximum(pages, np.round(pages / share))
        known = np.where(
            crawled,
            np.maximum(fetched, np.round(np.minimum(fetched / coverage, _INT32_MAX))),
            self.dangling_known,
        )
        rest = np.minimum(known - fetched, _INT32_MAX).astype(np.int64)
        not_fetched = rng.multinomial(rest, self.not_fetched_shares)
        # A host this crawl skipped has no captures in it, but its HostDb counts (a year's
        # aggregate) still hold what other crawls fetched.
        pages[skipped] = 0
        # A few impossible rows, more fetched than known URLs (nutch_numRecords is the sum of
        # the HostDb's status counts, fetched among them, so no real row has this): the ingest
        # must null them with a counted reason (ingest.host_index), not clamp them.
        quirk = crawled & (rng.random(count) < 0.005) & (fetched > 0)
        fetched[quirk] = known[quirk] + rng.integers(1, 6, int(quirk.sum()))
        return CrawlCounts(
            crawl,
            known=_int32(known),
            fetched=_int32(fetched),
            fetch_200=_int32(pages),
            not_fetched=_int32(not_fetched),
            coverage_intercept=intercept,
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


def last_labels(hosts: Hosts) -> np.ndarray:
    """The last label of each host name (``uk`` for www.example.co.uk): ``url_host_tld``."""
    last = {tld.suffix: tld.suffix.rsplit(".", 1)[-1] for tld in TLDS}
    return np.array([last[tld.suffix] for tld in TLDS], dtype=object)[hosts.tld_index]


def _graph_strings(hosts: Hosts) -> dict[str, pa.Array]:
    """The host index's string columns in row order, converted to Arrow once for all crawls."""
    if "graph_strings" not in hosts.derived:
        rows = pa.array(graph_rows(hosts))
        hosts.derived["graph_strings"] = {
            "surt_host_name": host_strings(hosts)[1].take(rows),
            "url_host_registered_domain": pa.array(hosts.registered_domain).take(rows),
            "url_host_tld": pa.array(last_labels(hosts)).take(rows),
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

    lote = count_share(fetch_200, np.where(english, 0.03, 0.95))
    record_length = np.where(fetch_200 > 0, np.exp(rng.normal(9.6, 0.4, n)), 0)
    fetch_counts = {}
    for name in FETCH_COLUMNS:
        rate = FETCH_STATUS_PER_200.get(name, _UNPUBLISHED_FETCH_RATE)
        fetch_counts[name] = rng.poisson(rate * fetch_200).astype(np.int32)
    nutch = {"fetched": fetched}
    for index, name in enumerate(NOT_FETCHED):
        nutch[name] = counts.not_fetched[rows, index]
    # a child stream: the crawl's own stream draws what it drew before robots were planted
    robots = robots_counts(rng.spawn(1)[0], known)
    table = host_index_rows(
        _graph_strings(hosts),
        {
            "hcrank10": _rank10(harmonic[rows]),
            "prank10": _rank10(pagerank[rows]),
            "prank": pagerank[rows],
            "hcrank": harmonic[rows].astype(np.float64),
        },
        record_length=record_length,
        fetch_200=fetch_200,
        lote=lote,
        fetch_counts=fetch_counts,
        known=known,
        nutch=nutch,
        robots=robots,
    )
    if counts.crawl == DRIFTED_CRAWL:
        table = drift_schema(table)
    return table


def robots_counts(rng: np.random.Generator, known: np.ndarray) -> dict[str, np.ndarray]:
    """The robots.txt requests of a crawl per host, by outcome (the ``robots_*`` columns).

    A host with known URLs is asked for its robots.txt 1 + Poisson(1) times, and answers as its
    behaviour (``ROBOTS_BEHAVIOURS``) says; a host without known URLs is not asked.
    """
    n = len(known)
    asked = known > 0
    requests = np.where(asked, 1 + rng.poisson(1.0, n), 0).astype(np.int64)
    names = list(ROBOTS_BEHAVIOURS)
    behaviour = rng.choice(len(names), n, p=list(ROBOTS_BEHAVIOURS.values()))
    failed = rng.binomial(requests, _ROBOTS_FLAKY_5XX_RATE)
    out = {name: np.zeros(n, dtype=np.int32) for name in _ROBOTS}

    def answered(kind: str) -> np.ndarray:
        return np.where(behaviour == names.index(kind), requests, 0)

    out["robots_200"] = answered("ok") + answered("redirect")
    out["robots_redirPerm"] = answered("redirect")
    out["robots_gone"] = answered("gone")
    out["robots_5xx"] = answered("unreachable")
    out["robots_4xx"] = answered("refused")
    flaky = behaviour == names.index("flaky")
    out["robots_5xx"] = out["robots_5xx"] + np.where(flaky, failed, 0)
    out["robots_200"] = out["robots_200"] + np.where(flaky, requests - failed, 0)
    return {name: values.astype(np.int32) for name, values in out.items()}


def count_share(values: np.ndarray, factor: float | np.ndarray) -> np.ndarray:
    """``values * factor`` rounded to int32 counts (a status's share of a host's pages)."""
    return np.round(values * factor).astype(np.int32)


def host_index_rows(
    strings: dict[str, pa.Array],
    ranks: dict[str, np.ndarray],
    *,
    record_length: np.ndarray,
    fetch_200: np.ndarray,
    lote: np.ndarray,
    fetch_counts: dict[str, np.ndarray],
    known: np.ndarray,
    nutch: dict[str, np.ndarray],
    robots: dict[str, np.ndarray] | None = None,
) -> pa.Table:
    """A host-index table (``HOST_INDEX_SCHEMA``) from its drawn counts; nothing is drawn here.

    The derived columns follow from the counts as in Common Crawl's index: the record lengths
    (mean, median = 0.9 mean), the ``_pct`` columns (percent of fetch_200 or of numRecords),
    and the ``robots_*`` columns as given, else ``robots_200`` = 1 where the host has records
    and the other robots columns 0.

    Args:
        strings: ``surt_host_name``, ``url_host_registered_domain``, ``url_host_tld``.
        ranks: ``hcrank10``, ``prank10``, ``prank``, ``hcrank``.
        record_length: mean WARC record length per host (0 where nothing was archived).
        fetch_200: archived 200 captures.
        lote: the archived 200 captures not in English.
        fetch_counts: the other ``fetch_*`` columns (``FETCH_COLUMNS``).
        known: ``nutch_numRecords``.
        nutch: the HostDb statuses (``fetched`` and ``NOT_FETCHED``).
        robots: the robots.txt requests by outcome (``robots_counts``), or None.
    """
    columns: dict[str, np.ndarray | pa.Array] = {
        **strings,
        **ranks,
        "warc_record_length_av": np.round(record_length).astype(np.int32),
        "warc_record_length_median": np.round(record_length * 0.9).astype(np.int32),
        "fetch_200": fetch_200,
        "fetch_200_lote": lote,
        "fetch_200_lote_pct": _pct(lote, fetch_200),
        **fetch_counts,
        "nutch_numRecords": known,
    }
    for name in _NUTCH_PCT:
        columns[f"nutch_{name}"] = nutch[name]
        columns[f"nutch_{name}_pct"] = _pct(nutch[name], known)
    zeros = np.zeros(len(known), dtype=np.int32)
    for name in _ROBOTS:
        if robots is not None:
            columns[name] = robots[name]
        else:
            columns[name] = (known > 0).astype(np.int32) if name == "robots_200" else zeros
    return pa.Table.from_arrays(
        [pa.array(columns.pop(field.name), field.type) for field in HOST_INDEX_SCHEMA],
        schema=HOST_INDEX_SCHEMA,
    )


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
    record_id: pa.Array  # string: WARC-Record-ID of the response record
    url: pa.Array  # string
    fetch_time: np.ndarray  # int64 microseconds since the epoch (UTC): the WARC-Date
    true_score: np.ndarray  # float64 (pages × classifiers)


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
