"""The demo crawl's planted properties, read from its files (host index, ranks, annotations)
rather than from truth.json where possible: the paper's ICC, language mix and biases, centrality
and coverage against quality, the TLD mix, and the crawl counts' calibration to Common Crawl's
published figures.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scipy.optimize import minimize_scalar
from scipy.stats import norm, spearmanr

from demo import config
from demo.config import CLASSIFIERS, CRAWLS, SAMPLE_CRAWL
from demo.generate import sample_truth
from tests.fixtures.crawls import SEED, Crawl

# ------------------------------------------------------------------ planted truth (demo)


@pytest.fixture(scope="module")
def demo_hosts(demo_crawl: Crawl):
    """Per annotated host of the sample crawl: host-index counts, centrality, and from the
    URL-level annotations its annotated pages and GneissWeb (HQ) density."""
    root = demo_crawl.root
    return duckdb.sql(
        f"""
        with host_index as (
            select * from read_parquet('{root}/host-index/crawl={SAMPLE_CRAWL}/*.parquet')
        ),
        pages as (
            select
                split_part(url_surtkey, ')', 1) as surt_host_name,
                count(*) as page_count,
                avg(in_gneissweb::int) as hq_density
            from read_parquet(
                '{root}/gneissweb-annotations/urls/crawl={SAMPLE_CRAWL}/*.parquet'
            )
            group by all
        )
        select host_index.*, pages.page_count, pages.hq_density
        from host_index
        inner join pages using (surt_host_name)
        """
    ).df()


@pytest.fixture(scope="module")
def demo_sample(demo_crawl: Crawl, expected_surtkey) -> pd.DataFrame:
    """The WARC sample's pages with their true scores (drawn again from the seed) and the SURT
    host of their URL, joined to nothing: the classified sample of the paper's first regime."""
    hosts, documents, pages = sample_truth(SEED, "demo")
    frame = pd.DataFrame(documents.true_score, columns=[spec.name for spec in CLASSIFIERS])
    frame["surt_host_name"] = [expected_surtkey(url).split(")")[0] for url in pages.url.to_pylist()]
    frame["is_english_host"] = hosts.is_english[documents.host_id]
    return frame


@pytest.fixture(scope="module")
def demo_sample_hosts(demo_sample: pd.DataFrame, demo_crawl: Crawl) -> pd.DataFrame:
    """Sample hosts with >= 3 pages: median true scores, host language, harmonic centrality."""
    ranks = pq.read_table(
        demo_crawl.root / "host-index" / f"crawl={SAMPLE_CRAWL}" / "part-00000.parquet",
        columns=["surt_host_name", "hcrank"],
    ).to_pandas()
    hosts = demo_sample.groupby("surt_host_name").agg(
        pages=("dclm_demo", "size"),
        dclm_median=("dclm_demo", "median"),
        quality_median=("gneissweb_quality_demo", "median"),
        is_english=("is_english_host", "first"),
    )
    return hosts[hosts["pages"] >= 3].join(ranks.set_index("surt_host_name"), how="inner")


def test_planted_icc_is_in_the_papers_range(demo_crawl: Crawl):
    for entry in demo_crawl.truth["classifiers"]:
        realised = entry["realised_icc1_true_scores"]["min_docs_3"]
        assert 0.43 <= entry["planted_icc1"] <= 0.62
        assert realised == pytest.approx(entry["planted_icc1"], abs=1e-3), entry["name"]
        # The sample-exact correction stays moderate: the population calibration does the work.
        assert 2 / 3 < entry["host_effect_scale"] < 3 / 2, entry["name"]


def test_language_mix_and_dclm_bias(demo_crawl: Crawl):
    hosts = demo_crawl.truth["hosts"]
    assert hosts["non_english_share_sample_hosts_ge3"] >= 0.30
    by_name = {entry["name"]: entry for entry in demo_crawl.truth["classifiers"]}
    dclm = by_name["dclm_demo"]["host_median_score_median"]
    edu = by_name["fineweb_edu_demo"]["host_median_score_median"]
    assert dclm["non_english"] > 1.8 * dclm["english"]
    assert 0.8 < edu["non_english"] / edu["english"] < 1.25


def test_centrality_is_weakly_related_to_quality(demo_sample_hosts):
    hosts = demo_sample_hosts
    pooled = spearmanr(hosts["hcrank"], hosts["quality_median"])[0]
    assert abs(pooled) <= 0.2
    dclm = spearmanr(hosts["hcrank"], hosts["dclm_median"])[0]
    english = hosts[hosts["is_english"]]
    dclm_english = spearmanr(english["hcrank"], english["dclm_median"])[0]
    assert -0.2 <= dclm < 0 < dclm_english
    by_language = hosts.groupby("is_english")["hcrank"].median()
    assert by_language[True] > by_language[False], "English hosts are more central"


def test_coverage_follows_centrality_not_quality(demo_hosts, demo_crawl: Crawl):
    hosts = demo_hosts[(demo_hosts["nutch_numRecords"] > 0) & (demo_hosts["page_count"] >= 3)]
    coverage = np.minimum(hosts["nutch_fetched"] / hosts["nutch_numRecords"], 1.0)
    assert abs(spearmanr(coverage, hosts["hq_density"])[0]) <= 0.1
    assert spearmanr(coverage, hosts["hcrank"])[0] >= 0.3
    planted = {c["crawl"]: c for c in demo_crawl.truth["coverage"]}
    for crawl in CRAWLS:
        assert abs(planted[crawl]["planted_spearman_coverage_vs_quality"]) <= 0.1
        assert abs(planted[crawl]["realised_spearman_coverage_vs_latent_quality"]) <= 0.15


def test_tld_mix_and_heavy_tails(demo_crawl: Crawl, demo_hosts):
    tlds = demo_crawl.truth["hosts"]["graph_hosts_by_tld"]
    for suffix in (
        "com",
        "org",
        "net",
        "edu",
        "ac.uk",
        "gov",
        "uk",
        "de",
        "fr",
        "ru",
        "jp",
        "cn",
        "br",
    ):
        assert tlds[suffix] > 0, suffix
    pages = demo_crawl.truth["documents"]["pages_per_host_percentiles"]
    assert pages["50"] <= 6 and pages["100"] >= 100
    assert demo_hosts["nutch_numRecords"].max() >= 1000
    assert 15_000 <= demo_crawl.truth["documents"]["count"] <= 25_000
    assert (
        1_800
        <= demo_crawl.truth["hosts"]["by_role"]["sample_ge3"]
        + demo_crawl.truth["hosts"]["by_role"]["sample_small_1_2"]
        <= 2_200
    )


def _yield_at(hosts, order, budget_share: float) -> float:
    """HQ pages collected when whole hosts are taken in order until a page budget is spent."""
    ordered = hosts.loc[order]
    budget = budget_share * hosts["pages"].sum()
    before = ordered["pages"].cumsum() - ordered["pages"]
    taken = ((budget - before) / ordered["pages"]).clip(0, 1)
    return float((taken * ordered["hq"]).sum())


def test_centrality_ordering_gains_little_and_the_oracle_a_lot(
    demo_crawl: Crawl, demo_sample: pd.DataFrame
):
    """The paper's RQ2 shape at a 10% budget, on the planted scores of the classified sample."""
    ranks = (
        pq.read_table(
            demo_crawl.root / "host-index" / f"crawl={SAMPLE_CRAWL}" / "part-00000.parquet",
            columns=["surt_host_name", "hcrank"],
        )
        .to_pandas()
        .set_index("surt_host_name")
    )
    ratios = {}
    for column in ("dclm_demo", "gneissweb_quality_demo", "fineweb_edu_demo"):
        hosts = (
            demo_sample.assign(is_hq=demo_sample[column] > 0.5)
            .groupby("surt_host_name")
            .agg(pages=("is_hq", "size"), hq=("is_hq", "sum"))
            .query("pages >= 3")
            .join(ranks, how="inner")
        )
        random = 0.1 * hosts["hq"].sum()
        by_centrality = hosts.sort_values("hcrank", ascending=False, kind="stable").index
        by_density = (
            (hosts["hq"] / hosts["pages"]).sort_values(ascending=False, kind="stable").index
        )
        ratios[column] = (
            _yield_at(hosts, by_centrality, 0.1) / random,
            _yield_at(hosts, by_density, 0.1) / random,
        )
    assert ratios["dclm_demo"][0] < 1.0, ratios
    for centrality, oracle in ratios.values():
        assert 0.7 <= centrality <= 1.8, ratios
        assert 4.0 <= oracle <= 8.0, ratios


# ------------------------------------------------------- crawl counts calibrated (demo)


def _log_normal_quantile(mean: float, sigma: float, upper_tail: float) -> float:
    return float(np.exp(np.log(mean) - sigma * sigma / 2 + sigma * norm.isf(upper_tail)))


def test_the_calibration_reproduces_the_published_crawl_figures():
    """config's figures: the mean is the crawl's pages over its hosts, and sigma is the one that
    fits the published top-domain sizes (a fit recomputed here from the cited numbers)."""
    assert pytest.approx(3_106_525_566 / 46_400_316) == config.CRAWL_PAGES_PER_HOST_MEAN
    top = config.CRAWL_TOP_DOMAINS
    mean = top["pages"] / top["domains"]

    def misfit(sigma: float) -> float:
        return sum(
            (np.log(_log_normal_quantile(mean, sigma, (rank - 0.5) / top["domains"])) - np.log(v))
            ** 2
            for rank, v in top["rank_pages"]
        )

    best = minimize_scalar(misfit, bounds=(1.0, 4.0), method="bounded").x
    assert best == pytest.approx(config.CRAWL_PAGES_PER_HOST_SIGMA, abs=0.01)
    for rank, pages in top["rank_pages"]:
        predicted = _log_normal_quantile(mean, best, (rank - 0.5) / top["domains"])
        assert 1 / 1.5 < predicted / pages < 1.5, (rank, predicted, pages)
    shares = {
        name: v / sum(config.CRAWLDB_STATUS.values()) for name, v in config.CRAWLDB_STATUS.items()
    }
    assert shares["fetched"] == pytest.approx(0.6465, abs=1e-4)


def test_pages_per_host_follow_the_calibrated_log_normal(
    demo_crawl: Crawl, demo_sample, annotation_folder, url_rows
):
    """Annotated pages per crawled host of the full crawl, outside the WARC sample (whose hosts
    are drawn given their sample pages), have the calibrated distribution: the empirical CDF
    at 1, 2, 5, 10, 50, 100 and 1,000 pages within 4 standard errors of the log-normal's."""
    sample_hosts = set(demo_sample["surt_host_name"])
    mean, sigma = config.CRAWL_PAGES_PER_HOST_MEAN, config.CRAWL_PAGES_PER_HOST_SIGMA
    mu = np.log(mean) - sigma * sigma / 2
    cap = demo_crawl.truth["scale"]["annotation_page_cap"]
    assert cap >= 5_000
    for crawl in CRAWLS:
        hosts = pq.read_table(annotation_folder(demo_crawl, "hosts", crawl)).to_pandas()
        pages = url_rows(demo_crawl, crawl).groupby("surt_host_name").size()
        assert set(pages.index) == set(hosts["surt_host_name"])
        pages = pages[~pages.index.isin(sample_hosts)]
        assert len(pages) > 1_500
        for t in (1, 2, 5, 10, 50, 100, 1000):
            expected = norm.cdf((np.log(t + 0.5) - mu) / sigma)
            error = np.sqrt(expected * (1 - expected) / len(pages))
            assert abs((pages <= t).mean() - expected) < 4 * error, (crawl, t)
        assert pages.max() > 1_000, "a heavy tail: some hosts have thousands of pages"
    realised = demo_crawl.truth["coverage"]
    assert sum(c["hosts_capped_by_annotation_page_cap"] for c in realised) <= 0.005 * sum(
        c["annotated_host_count"] for c in realised
    )


def test_hostdb_totals_follow_the_crawldb(demo_crawl: Crawl):
    """Summed over hosts, each crawl's nutch_* statuses have the CrawlDb's published shares and
    its fetch_200 the published pages per fetched URL."""
    status = config.CRAWLDB_STATUS
    total = sum(status.values())
    rest = total - status["fetched"]
    for crawl in CRAWLS:
        rows = (
            duckdb.sql(
                f"""
            select
                sum(nutch_fetched) / sum(nutch_numRecords) as fetched_share,
                sum(fetch_200) / sum(nutch_fetched) as pages_per_fetched,
                sum(nutch_unfetched) / sum(nutch_numRecords - nutch_fetched) as unfetched,
                sum(nutch_gone) / sum(nutch_numRecords - nutch_fetched) as gone,
                sum(nutch_notModified) / sum(nutch_numRecords - nutch_fetched) as not_modified
            from read_parquet(
                '{demo_crawl.root}/host-index/crawl={crawl}/*.parquet'
            )
            where nutch_fetched <= nutch_numRecords
            """
            )
            .df()
            .iloc[0]
        )
        assert rows["fetched_share"] == pytest.approx(status["fetched"] / total, abs=0.06), crawl
        assert rows["pages_per_fetched"] == pytest.approx(
            config.CRAWL_PAGES / status["fetched"], abs=0.04
        ), crawl
        assert rows["unfetched"] == pytest.approx(status["unfetched"] / rest, abs=0.01)
        assert rows["gone"] == pytest.approx(status["gone"] / rest, abs=0.01)
        assert rows["not_modified"] == pytest.approx(status["notModified"] / rest, abs=0.01)
