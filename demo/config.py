"""Parameters of the demo crawl: scales, crawls, graph releases, TLD mix, planted classifiers.

Every number the generator plants is here, with the paper's figure it is calibrated to
(docs/definitions.md, "2.2 Headline numbers"). ``truth.json`` repeats them beside what the
draw realised.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "CLASSIFIERS",
    "CRAWLS",
    "GRAPH_RELEASES",
    "LANGUAGES",
    "SAMPLE_CRAWL",
    "SCALES",
    "TLDS",
    "ClassifierSpec",
    "Scale",
    "TldSpec",
]

# Six crawls, 2021-2024, as the paper's full-crawl regime (docs/definitions.md,
# "2.1 Data regimes"). The classified WARC sample
# and the RQ4 headline figures are for CC-MAIN-2024-10.
CRAWLS: tuple[str, ...] = (
    "CC-MAIN-2021-04",
    "CC-MAIN-2021-49",
    "CC-MAIN-2022-33",
    "CC-MAIN-2023-06",
    "CC-MAIN-2023-50",
    "CC-MAIN-2024-10",
)
SAMPLE_CRAWL = "CC-MAIN-2024-10"

# The host-index partition whose schema drifts (a column missing, wider integer types, another
# column order), as the real index's README warns.
DRIFTED_CRAWL = "CC-MAIN-2021-04"

# Planted Spearman(coverage, GneissWeb quality) per crawl: slightly negative, all within ±0.1
# (the paper reports -0.057 to -0.151 over six crawls and -0.08 for CC-MAIN-2024-10).
COVERAGE_QUALITY_SPEARMAN: dict[str, float] = {
    "CC-MAIN-2021-04": -0.06,
    "CC-MAIN-2021-49": -0.09,
    "CC-MAIN-2022-33": -0.10,
    "CC-MAIN-2023-06": -0.07,
    "CC-MAIN-2023-50": -0.05,
    "CC-MAIN-2024-10": -0.08,
}

# Two consecutive host-graph releases: the first aligned with the sample crawl, the second about
# nine months later (the paper's Table 2 compares releases up to ~15 months apart).
GRAPH_RELEASES: tuple[str, ...] = ("cc-main-2024-nov-feb-apr", "cc-main-2024-25-nov-dec-jan")

# Language codes (ISO 639-1) the demo pages are written in.
LANGUAGES: tuple[str, ...] = ("en", "de", "fr", "ru", "ja", "zh", "pt", "es")


@dataclass(frozen=True)
class TldSpec:
    """One public suffix of the demo's TLD mix.

    Attributes:
        suffix: the public suffix (``co.uk``): the columnar index's ``url_host_registry_suffix``
            and the lake's ``documents.url_host_registry_suffix``. The host index's
            ``url_host_tld`` is its last label (``uk``), as in Common Crawl's.
        share: share of graph hosts under this suffix.
        category: macro category (academic, government, commercial, organisation, network,
            country_code, other_generic) as in the ``tld_macro_categories`` seed.
        languages: language → share of hosts under the suffix.
        popularity: how central hosts under the suffix are (added to the host's link
            attractiveness, log scale).
        coverage_shift: how much more (or less) Common Crawl fetches of these hosts' known
            URLs (logit scale).
    """

    suffix: str
    share: float
    category: str
    languages: dict[str, float]
    popularity: float = 0.0
    coverage_shift: float = 0.0


_EN = {"en": 1.0}
TLDS: tuple[TldSpec, ...] = (
    TldSpec(
        "com",
        0.355,
        "commercial",
        {"en": 0.72, "zh": 0.12, "ja": 0.04, "es": 0.06, "de": 0.03, "ru": 0.03},
        0.6,
    ),
    TldSpec("org", 0.07, "organisation", {"en": 0.85, "de": 0.05, "fr": 0.05, "es": 0.05}, 0.7),
    TldSpec("net", 0.05, "network", {"en": 0.7, "ru": 0.1, "zh": 0.1, "de": 0.1}, 0.3),
    TldSpec("edu", 0.02, "academic", _EN, 1.1),
    TldSpec("ac.uk", 0.008, "academic", _EN, 1.0),
    TldSpec("ac.jp", 0.008, "academic", {"ja": 0.9, "en": 0.1}, 0.5),
    TldSpec("edu.cn", 0.006, "academic", {"zh": 0.95, "en": 0.05}, 0.3),
    TldSpec("gov", 0.01, "government", _EN, 1.2),
    TldSpec("gov.uk", 0.004, "government", _EN, 1.1),
    TldSpec("uk", 0.012, "country_code", _EN, 0.2, -0.6),
    TldSpec("co.uk", 0.047, "commercial", _EN, 0.2, -0.6),
    TldSpec("de", 0.075, "country_code", {"de": 0.92, "en": 0.08}, 0.0),
    TldSpec("fr", 0.035, "country_code", {"fr": 0.93, "en": 0.07}, -0.1),
    TldSpec("ru", 0.055, "country_code", {"ru": 0.95, "en": 0.05}, -0.4, -0.3),
    TldSpec("jp", 0.025, "country_code", {"ja": 0.95, "en": 0.05}, -0.2),
    TldSpec("co.jp", 0.012, "commercial", {"ja": 0.95, "en": 0.05}, -0.2),
    TldSpec("cn", 0.035, "country_code", {"zh": 0.97, "en": 0.03}, -0.5, -0.3),
    TldSpec("com.cn", 0.01, "commercial", {"zh": 0.97, "en": 0.03}, -0.5, -0.3),
    TldSpec("br", 0.01, "country_code", {"pt": 0.95, "en": 0.05}, -0.3),
    TldSpec("com.br", 0.03, "commercial", {"pt": 0.95, "en": 0.05}, -0.3),
    TldSpec("es", 0.02, "country_code", {"es": 0.93, "en": 0.07}, -0.2),
    TldSpec("info", 0.02, "other_generic", {"en": 0.8, "de": 0.1, "ru": 0.1}, -0.3),
    TldSpec("io", 0.015, "country_code", _EN, 0.3),
    TldSpec("biz", 0.006, "commercial", _EN, -0.6),
    TldSpec("xyz", 0.009, "other_generic", {"en": 0.6, "zh": 0.4}, -0.8),
    TldSpec("blog", 0.004, "other_generic", _EN, -0.2),
    TldSpec("ch", 0.01, "country_code", {"de": 0.7, "fr": 0.25, "en": 0.05}, 0.1),
    TldSpec("nl", 0.02, "country_code", {"en": 0.3, "de": 0.7}, 0.0),
    TldSpec("mil", 0.002, "government", _EN, 0.8),
    TldSpec("gouv.fr", 0.004, "government", {"fr": 1.0}, 0.6),
)


@dataclass(frozen=True)
class ClassifierSpec:
    """A planted classifier: how its true scores are drawn and its fastText model labelled.

    The true score of document d on host h is ``sigmoid(mu + shift·[d not English] + sb·u_h +
    sw·z_d)``, where ``u_h`` and ``z_d`` are standard normal mixes of two shared quality factors
    (``loadings``) and a classifier-specific part, and ``sb``/``sw`` are solved so that the
    score-scale ICC(1) equals ``icc``.

    Attributes:
        name: registry key (``classifier_registry.classifier``).
        style: the public classifier it imitates.
        kind: ``quality`` or ``topic``.
        labels: fastText labels, lowest value first.
        label_values: value of each label for the expected-value transform (None: binary).
        positive_label: the label whose probability is the score (binary classifiers).
        transform: ``p_positive`` or ``expected_value`` (divided by the largest value).
        icc: planted ICC(1) of the true scores between hosts.
        mu: logit-scale intercept. It sets the high-quality share (8-18%), and so the oracle's
            gain over random at a 10% budget (4-6×, the paper's 4.0-8.0×).
        non_english_shift: logit added to non-English documents (DCLM-style: > 0).
        loadings: weights on the two shared factors (educational, conversational).
        is_english_trained: whether the imitated model was trained on English only.
        family: the published classifier family it imitates (``classifier_registry.family``:
            the report finds "the DCLM classifier" by it, never by the name).
        hq_threshold: score above which a page counts as high quality (0.5:
            docs/definitions.md, "2.1 Data regimes").
    """

    name: str
    style: str
    kind: str
    labels: tuple[str, ...]
    label_values: tuple[float, ...] | None
    positive_label: str | None
    transform: str
    icc: float
    mu: float
    non_english_shift: float
    loadings: tuple[float, float]
    is_english_trained: bool = True
    hq_threshold: float = 0.5
    total_sd: float = 2.0
    family: str | None = None


CLASSIFIERS: tuple[ClassifierSpec, ...] = (
    ClassifierSpec(
        "dclm_demo",
        "DCLM oh-eli5 (P(__label__hq))",
        "quality",
        ("__label__cc", "__label__hq"),
        None,
        "__label__hq",
        "p_positive",
        icc=0.46,
        mu=-2.7,
        non_english_shift=1.4,
        loadings=(0.0, 0.8),
        family="dclm",
    ),
    ClassifierSpec(
        "fineweb_edu_demo",
        "FineWeb-Edu (expected educational value 0-5, ÷5)",
        "quality",
        tuple(f"__label__{i}" for i in range(6)),
        (0.0, 1.0, 2.0, 3.0, 4.0, 5.0),
        None,
        "expected_value",
        icc=0.54,
        mu=-2.4,
        non_english_shift=0.0,
        loadings=(0.9, 0.0),
        family="fineweb_edu",
    ),
    ClassifierSpec(
        "gneissweb_quality_demo",
        "GneissWeb quality annotator (P(__label__hq))",
        "quality",
        ("__label__cc", "__label__hq"),
        None,
        "__label__hq",
        "p_positive",
        icc=0.50,
        mu=-2.3,
        non_english_shift=0.0,
        loadings=(0.85, 0.2),
        family="gneissweb_quality",
    ),
    ClassifierSpec(
        "nemotron_quality_demo",
        "Nemotron-CC quality (low/mid/high → 0/0.5/1)",
        "quality",
        ("__label__low", "__label__mid", "__label__high"),
        (0.0, 0.5, 1.0),
        None,
        "expected_value",
        icc=0.57,
        mu=-2.1,
        non_english_shift=-0.3,
        loadings=(0.6, -0.6),
        family="nemotron",
    ),
    ClassifierSpec(
        "gneissweb_medical_demo",
        "GneissWeb medical topic (P(__label__medical))",
        "topic",
        ("__label__cc", "__label__medical"),
        None,
        "__label__medical",
        "p_positive",
        icc=0.48,
        mu=-2.6,
        non_english_shift=0.0,
        loadings=(0.3, 0.0),
        family="gneissweb_medical",
    ),
    ClassifierSpec(
        "gneissweb_technology_demo",
        "GneissWeb technology topic (P(__label__technology))",
        "topic",
        ("__label__cc", "__label__technology"),
        None,
        "__label__technology",
        "p_positive",
        icc=0.55,
        mu=-2.4,
        non_english_shift=0.0,
        loadings=(0.2, 0.2),
        family="gneissweb_technology",
    ),
)


# --------------------------------------------------------------------------- crawl counts

# Per-host crawl counts are calibrated to the figures Common Crawl publishes (issue 16, finding
# 9); all of them are from github.com/commoncrawl/cc-crawl-statistics.
#
# * plots/crawlsize/monthly.csv and plots/crawlsize/domain.csv (commit 011ff43f): CC-MAIN-2024-10
#   has 3,106,525,566 page captures, 3,081,216,032 unique URLs, 46,400,316 hosts and 37,076,380
#   registered domains: 66.95 pages per crawled host.
# * plots/domains-top-500.csv (commit 011ff43f; it is CC-MAIN-2024-42: 2,495,190,754 pages over
#   38,304,026 domains, 65.14 pages per domain): the domains ranked 10, 20, 50, 100 and 500 have
#   1,500,132, 1,082,570, 575,845, 357,405 and 104,961 pages. The per-host histogram is published
#   only as a plot (plots/crawler/histogr_host_domain_tld.png), so the spread is fitted to this
#   tail: of the log-normals with the domains' mean, the one whose quantiles at those ranks are
#   closest on the log scale has sigma 2.71. It puts 1.36M, 0.93M, 0.56M, 0.38M and 0.15M pages
#   at those ranks and 6.7% of all pages in the top 500 domains (6.5% read off the file, its
#   ranks interpolated log-log). Hosts get the same sigma with their own mean: pages per crawled
#   host ~ LogNormal(ln 66.95 - 2.71^2/2, 2.71), median 1.7, quartiles 0.3 and 10.6, 90th
#   percentile 55, 99th 931 (each crawled host has at least one page).
# * stats/crawler/CC-MAIN-2024-10.json (commit 05d90e6f): the CrawlDb before the crawl. Nutch's
#   HostDb counts the same statuses per host, its numRecords being the sum of six of them
#   (apache/nutch HostDatum.numRecords); the host index's nutch_* columns are those counts.
#   Their shares of the six: fetched 64.65%, unfetched 24.14%, gone 5.53%, notModified 3.38%,
#   redirPerm 1.56%, redirTemp 0.75%. The crawl's 3,106,525,566 page captures are 28.2% of the
#   CrawlDb's fetched URLs (so fetch_200 is about 0.282 of nutch_fetched). Per one of its
#   3,128,032,551 successes the fetcher logged 7.5% permanent and 3.8% temporary redirects, 5.6%
#   not found or gone, 0.5% not modified and 0.05% access denied (the host index's
#   fetch_redirPerm, fetch_redirTemp, fetch_gone, fetch_notModified and fetch_4xx).
CRAWL_PAGES_PER_HOST_MEAN = 3_106_525_566 / 46_400_316  # CC-MAIN-2024-10
CRAWL_PAGES_PER_HOST_SIGMA = 2.71
# The tail the sigma is fitted to, for the calibration test: (rank, pages) of the top domains,
# with the crawl's domain count and pages.
CRAWL_TOP_DOMAINS = {
    "crawl": "CC-MAIN-2024-42",
    "pages": 2_495_190_754,
    "domains": 38_304_026,
    "rank_pages": ((10, 1_500_132), (20, 1_082_570), (50, 575_845), (100, 357_405), (500, 104_961)),
}
# CrawlDb statuses of CC-MAIN-2024-10 (the HostDb's six, numRecords = their sum).
CRAWLDB_STATUS = {
    "fetched": 11_001_427_792,
    "unfetched": 4_107_295_999,
    "gone": 940_768_266,
    "notModified": 575_294_289,
    "redirPerm": 265_841_871,
    "redirTemp": 126_856_377,
}
FETCHER_SUCCESS = 3_128_032_551
CRAWL_PAGES = 3_106_525_566
# Fetcher outcomes per successful fetch, by the host-index column they are counted in.
FETCH_STATUS_PER_200 = {
    "fetch_redirPerm": 233_699_835 / FETCHER_SUCCESS,
    "fetch_redirTemp": 120_203_589 / FETCHER_SUCCESS,
    "fetch_gone": (171_551_229 + 5_153_976) / FETCHER_SUCCESS,
    "fetch_notModified": 16_903_617 / FETCHER_SUCCESS,
    "fetch_4xx": 1_533_000 / FETCHER_SUCCESS,
}
# Where the figures above come from, for truth.json.
CALIBRATION_SOURCES = (
    "github.com/commoncrawl/cc-crawl-statistics plots/crawlsize/monthly.csv and "
    "plots/crawlsize/domain.csv @011ff43f: CC-MAIN-2024-10 page 3,106,525,566, url "
    "3,081,216,032, host 46,400,316, domain 37,076,380",
    "github.com/commoncrawl/cc-crawl-statistics plots/domains-top-500.csv @011ff43f "
    "(CC-MAIN-2024-42, 2,495,190,754 pages, 38,304,026 domains): pages of the domains ranked "
    "10, 20, 50, 100, 500 = 1,500,132, 1,082,570, 575,845, 357,405, 104,961",
    "github.com/commoncrawl/cc-crawl-statistics stats/crawler/CC-MAIN-2024-10.json @05d90e6f: "
    "crawldb:status db_fetched, db_unfetched, db_gone, db_notmodified, db_redir_perm, "
    "db_redir_temp; fetcher:success, moved, temp_moved, notfound, gone, notmodified, "
    "access_denied",
    "github.com/apache/nutch src/java/org/apache/nutch/hostdb/HostDatum.java: numRecords() = "
    "unfetched + fetched + gone + redirPerm + redirTemp + notModified",
)
# Modelling choices no published figure fixes: the sd of a host's log size from crawl to crawl
# (the rest of the sigma is the host's own), and the correlation of a host's log size with its
# link attractiveness (bigger sites are more central; the earlier model had about 0.3).
CRAWL_SIZE_JITTER_SD = 0.4
CRAWL_SIZE_ATTRACTIVENESS_CORRELATION = 0.3


@dataclass(frozen=True)
class Scale:
    """Size of a demo crawl.

    Attributes:
        name: ``tiny``, ``demo`` or ``paper``.
        sample_hosts: hosts with at least 3 pages in the classified WARC sample.
        small_hosts: further sample hosts with 1 or 2 pages (dropped by the n ≥ 3 filter).
        other_crawled_hosts: graph hosts Common Crawl fetched that are not in the WARC sample.
        dangling_hosts: graph hosts only known from links, never fetched.
        size_alpha: Pareto tail index of pages per sample host (x_min = 3).
        size_cap: the largest number of sample pages a host gets.
        warc_files: WARC files the sample is spread over (0: write lake tables directly).
        write_graph_files: whether to write vertices/edges and compute centrality from edges.
        annotation_page_cap: most annotated pages per host and crawl in the GneissWeb tables, a
            bound on rows and memory. A calibrated host has more pages with probability 0.45%
            at tiny's 2,000, 0.16% at demo's 5,000 and 10.5% at paper's 50, where it truncates
            the tail (hosts of the WARC sample, drawn given their sample pages, more often: at
            seed 20241010 0.27% of demo's and 16% of paper's annotated hosts are capped);
            truth.json reports how many hosts it capped per crawl.
        training_docs: labelled documents for the fastText training corpus (a quarter of a page
            long each; 10% of them are held out for validation).
    """

    name: str
    sample_hosts: int
    small_hosts: int
    other_crawled_hosts: int
    dangling_hosts: int
    size_alpha: float
    size_cap: int
    warc_files: int
    write_graph_files: bool
    annotation_page_cap: int
    training_docs: int
    extras: dict[str, int] = field(default_factory=dict)

    @property
    def graph_hosts(self) -> int:
        """All hosts of the web graph (and so of every host-index partition)."""
        return self.sample_hosts + self.small_hosts + self.other_crawled_hosts + self.dangling_hosts


SCALES: dict[str, Scale] = {
    "tiny": Scale("tiny", 90, 20, 60, 130, 1.25, 120, 2, True, 2_000, 12000),
    "demo": Scale("demo", 1600, 400, 2000, 4000, 1.2, 400, 8, True, 5_000, 48000),
    # The paper's classified sample: 532,628 hosts with >= 3 documents, 3.01M documents
    # (docs/definitions.md, "2.1 Data regimes");
    # graph and host index >= 5M hosts per crawl.
    "paper": Scale("paper", 532_628, 150_000, 1_300_000, 3_100_000, 1.97, 5000, 0, False, 50, 0),
}
