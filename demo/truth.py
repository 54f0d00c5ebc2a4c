"""``truth.json``: the planted parameters and what the draw realised, to check the warehouse by.

Realised values are computed here from the latent truth (true scores, not classifier output)
with plain numpy/scipy, so the warehouse's numbers can be compared to them.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np
from scipy.stats import norm, spearmanr

from demo import crawls as crawls_module
from demo import gneissweb
from demo.config import (
    CALIBRATION_SOURCES,
    CLASSIFIERS,
    COVERAGE_QUALITY_SPEARMAN,
    CRAWL_PAGES,
    CRAWL_PAGES_PER_HOST_MEAN,
    CRAWL_PAGES_PER_HOST_SIGMA,
    CRAWL_SIZE_ATTRACTIVENESS_CORRELATION,
    CRAWL_SIZE_JITTER_SD,
    CRAWL_TOP_DOMAINS,
    CRAWLDB_STATUS,
    CRAWLS,
    FETCH_STATUS_PER_200,
    GRAPH_RELEASES,
    SAMPLE_CRAWL,
    TLDS,
    Scale,
)
from demo.model import (
    ROLE_DANGLING,
    ROLE_OTHER,
    ROLE_SAMPLE,
    ROLE_SMALL,
    Documents,
    Hosts,
    icc1_anova,
)

__all__ = ["annotation_formats", "build_truth", "coverage_summary", "crawl_count_calibration"]

_QUALITY = next(i for i, spec in enumerate(CLASSIFIERS) if spec.name == "gneissweb_quality_demo")


def _rho(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 3:
        return None
    return round(float(spearmanr(x, y).statistic), 4)


_PERCENTILES = (25, 50, 75, 90, 99)


def _percentiles(values: np.ndarray) -> dict[str, float] | None:
    if len(values) == 0:
        return None
    result = {str(q): float(np.percentile(values, q)) for q in _PERCENTILES}
    result["max"] = float(values.max())
    result["mean"] = round(float(values.mean()), 3)
    return result


def coverage_summary(
    hosts: Hosts,
    counts: Any,
    harmonic: np.ndarray,
    totals: gneissweb.AnnotationTotals,
    scale: Scale,
) -> dict:
    """One crawl's planted and realised counts and annotations (computed while they exist)."""
    crawled = (hosts.role != ROLE_DANGLING) & hosts.in_graph
    universe = crawled & (counts.known > 0) & (counts.fetch_200 > 0)
    ratio = np.minimum(counts.fetched / np.maximum(counts.known, 1), 1.0)
    graph = hosts.in_graph
    known = counts.known[graph].astype(np.int64)
    fetched = counts.fetched[graph].astype(np.int64)
    fetch_200 = counts.fetch_200[graph].astype(np.int64)
    not_fetched = counts.not_fetched[graph].astype(np.int64).sum(axis=0)
    annotated = totals.pages[totals.pages > 0]
    return {
        "crawl": counts.crawl,
        "planted_spearman_coverage_vs_quality": COVERAGE_QUALITY_SPEARMAN[counts.crawl],
        "realised_spearman_coverage_vs_latent_quality": _rho(
            ratio[universe], hosts.effects[universe, _QUALITY]
        ),
        "spearman_coverage_vs_harmonic": _rho(ratio[universe], harmonic[universe]),
        "hosts_with_fetches": int(universe.sum()),
        "coverage_median": round(float(np.median(ratio[universe])), 4),
        "coverage_intercept": round(counts.coverage_intercept, 4),
        "known_url_count": int(known.sum()),
        "fetched_url_count": int(fetched.sum()),
        "fetch_200_count": int(fetch_200.sum()),
        "realised_fetched_share_of_known": round(float(fetched.sum() / max(known.sum(), 1)), 4),
        "realised_fetch_200_per_fetched": round(float(fetch_200.sum() / max(fetched.sum(), 1)), 4),
        "not_fetched_url_counts": {
            name: int(value)
            for name, value in zip(crawls_module.NOT_FETCHED, not_fetched, strict=True)
        },
        "hosts_with_more_fetched_than_known": int((fetched > known).sum()),
        "fetch_200_per_crawled_host": _percentiles(fetch_200[fetch_200 > 0]),
        "annotated_page_count": int(totals.pages.sum()),
        "annotated_host_count": len(annotated),
        "annotated_pages_per_host": _percentiles(annotated),
        "hosts_capped_by_annotation_page_cap": int(
            (counts.fetch_200 > scale.annotation_page_cap).sum()
        ),
        "in_gneissweb_page_share": round(
            float(totals.in_gneissweb.sum() / max(totals.pages.sum(), 1)), 4
        ),
        "in_gneissweb_host_share": round(
            float((totals.in_gneissweb[totals.pages > 0] > 0).mean()) if len(annotated) else 0.0,
            4,
        ),
    }


def crawl_count_calibration(scale: Scale) -> dict:
    """The published figures the per-host crawl counts are calibrated to (config.py)."""
    sigma = CRAWL_PAGES_PER_HOST_SIGMA
    mu = float(np.log(CRAWL_PAGES_PER_HOST_MEAN) - sigma * sigma / 2)
    status_total = sum(CRAWLDB_STATUS.values())
    not_fetched_total = status_total - CRAWLDB_STATUS["fetched"]
    return {
        "pages_per_crawled_host": {
            "model": "fetch_200 = max(1, round(exp(s_h + jitter_sd * e))), s_h ~ N(mu, "
            "sigma^2 - jitter_sd^2) correlated with link attractiveness; log-normal overall; "
            "WARC sample hosts drawn given at least their sample pages",
            "mean": round(CRAWL_PAGES_PER_HOST_MEAN, 4),
            "sigma": sigma,
            "mu": round(mu, 4),
            "percentiles": {
                str(q): round(float(np.exp(mu + sigma * norm.ppf(q / 100))), 3)
                for q in _PERCENTILES
            },
            "jitter_sd_between_crawls": CRAWL_SIZE_JITTER_SD,
            "correlation_with_attractiveness": CRAWL_SIZE_ATTRACTIVENESS_CORRELATION,
            "fitted_to": {
                "mean": "CC-MAIN-2024-10: 3,106,525,566 pages / 46,400,316 hosts",
                "sigma": CRAWL_TOP_DOMAINS,
            },
        },
        "hostdb_statuses": {
            "crawldb_status_CC-MAIN-2024-10": CRAWLDB_STATUS,
            "fetched_share_of_known": round(CRAWLDB_STATUS["fetched"] / status_total, 4),
            "fetch_200_per_fetched": round(CRAWL_PAGES / CRAWLDB_STATUS["fetched"], 4),
            "not_fetched_shares": {
                name: round(CRAWLDB_STATUS[name] / not_fetched_total, 4)
                for name in crawls_module.NOT_FETCHED
            },
            "numRecords": "sum of fetched and the five not-fetched statuses (Nutch HostDatum), "
            "except the quirk rows with more fetched than known",
        },
        "fetch_status_per_200": {
            name: round(rate, 5) for name, rate in FETCH_STATUS_PER_200.items()
        },
        "annotation_page_cap": scale.annotation_page_cap,
        "sources": list(CALIBRATION_SOURCES),
    }


def annotation_formats() -> dict:
    """What the two GneissWeb annotation datasets hold and what their flags are planted as."""

    def columns(schema: Any) -> list[list[str]]:
        return [[field.name, str(field.type)] for field in schema]

    return {
        "imitates": "Common Crawl's GneissWeb annotations: Hugging Face "
        "commoncrawl/gneissweb-annotation-url-testing-v1 and "
        "commoncrawl/gneissweb-annotation-host-testing-v1; "
        "s3://commoncrawl/projects/gneissweb-annotation-testing-v1/{urls,hosts}/crawl=<crawl>/",
        "url_level": {
            "path": "gneissweb-annotations/urls/crawl=<crawl>/part-NNNNN.parquet",
            "columns": columns(gneissweb.URL_ANNOTATION_SCHEMA),
            "key": ["url_surtkey", "crawl (Hive partition)", "fetch_time"],
            "rows": "one per archived 200 page of the crawl (fetch_200, at most "
            "annotation_page_cap per host); in the sample crawl the WARC sample's HTML pages "
            "are among them with fetch_time = the WARC-Date of their response record",
        },
        "host_level": {
            "path": "gneissweb-annotations/hosts/crawl=<crawl>/part-00000.parquet",
            "columns": columns(gneissweb.HOST_ANNOTATION_SCHEMA),
            "key": ["surt_host_name", "crawl (Hive partition)"],
            "rows": "one per host with URL-level rows in the crawl, in SURT order; each "
            "category is the mean of the host's URL-level values",
            "in_gneissweb": "our reading of the card's 'Boolean flag for GneissWeb inclusion' "
            "at host level: at least one of the host's annotated pages is in GneissWeb "
            "(bool_or of its URL-level in_gneissweb)",
        },
        "in_gneissweb_planted": "the page's true gneissweb_quality_demo score > "
        f"{gneissweb.IN_GNEISSWEB_THRESHOLD} (the paper's high-quality threshold): the "
        "planted HQ flag of the full-crawl regime",
        "category_scores_planted": gneissweb.CATEGORY_SOURCES,
    }


def build_truth(
    *,
    seed: int,
    scale: Scale,
    hosts: Hosts,
    documents: Documents,
    splits: dict[str, float],
    graph: Any,
    coverage: list[dict],
    warc: dict,
    training: dict,
) -> dict:
    """Assemble truth.json (see the module docstring)."""
    pages_per_host = np.bincount(documents.host_id, minlength=hosts.count)
    doc_pages = pages_per_host[documents.host_id]
    host_ids = np.flatnonzero(pages_per_host >= 3)
    english = hosts.is_english

    classifiers = []
    for column, spec in enumerate(CLASSIFIERS):
        scores = documents.true_score[:, column]
        medians = _grouped_median(documents.host_id, scores, host_ids)
        in_graph = hosts.in_graph[host_ids]
        hc = graph.harmonic[0][host_ids]
        entry = {
            **{key: value for key, value in asdict(spec).items() if key != "labels"},
            "labels": list(spec.labels),
            "latent_between_share": round(splits[spec.name], 6),
            "host_effect_scale": round(hosts.effect_scale[spec.name], 6),
            "planted_icc1": spec.icc,
            "realised_icc1_true_scores": {
                f"min_docs_{m}": round(
                    icc1_anova(documents.host_id[doc_pages >= m], scores[doc_pages >= m]), 4
                )
                for m in (3, 5, 10)
            },
            "hq_share_true_scores": round(
                float((scores[doc_pages >= 3] > spec.hq_threshold).mean()), 4
            ),
            "host_median_score_median": {
                "english": round(float(np.median(medians[english[host_ids]])), 4),
                "non_english": round(float(np.median(medians[~english[host_ids]])), 4),
            },
            "spearman_harmonic_vs_host_median": {
                "pooled": _rho(hc[in_graph], medians[in_graph]),
                "english": _rho(
                    hc[in_graph & english[host_ids]], medians[in_graph & english[host_ids]]
                ),
                "non_english": _rho(
                    hc[in_graph & ~english[host_ids]], medians[in_graph & ~english[host_ids]]
                ),
            },
        }
        classifiers.append(entry)

    graph_hosts = hosts.in_graph
    both = graph.in_release[0] & graph.in_release[1]
    tld_counts = {tld.suffix: int((hosts.suffix[graph_hosts] == tld.suffix).sum()) for tld in TLDS}
    return {
        "seed": seed,
        "scale": asdict(scale),
        "sample_crawl": SAMPLE_CRAWL,
        "crawls": list(CRAWLS),
        "graph_releases": list(GRAPH_RELEASES),
        "hosts": {
            "graph_host_count": int(graph_hosts.sum()),
            "by_role": {
                "sample_ge3": int((hosts.role == ROLE_SAMPLE).sum()),
                "sample_small_1_2": int((hosts.role == ROLE_SMALL).sum()),
                "other_crawled": int((hosts.role == ROLE_OTHER).sum()),
                "dangling": int((hosts.role == ROLE_DANGLING).sum()),
            },
            "sample_hosts_missing_from_graph": int(
                ((hosts.page_count > 0) & ~hosts.in_graph).sum()
            ),
            "non_english_share_graph_hosts": round(float((~english[graph_hosts]).mean()), 4),
            "non_english_share_sample_hosts_ge3": round(float((~english[host_ids]).mean()), 4),
            "graph_hosts_by_tld": tld_counts,
        },
        "documents": {
            "count": int(documents.count),
            "hosts_with_ge3": len(host_ids),
            "count_on_hosts_with_ge3": int((doc_pages >= 3).sum()),
            "pages_per_host_percentiles": {
                str(q): float(np.percentile(pages_per_host[pages_per_host > 0], q))
                for q in (50, 90, 99, 100)
            },
            "non_english_share": round(float((documents.language != "en").mean()), 4),
        },
        "classifiers": classifiers,
        "graph": {
            "edge_counts": graph.edge_counts,
            "spearman_harmonic_between_releases": _rho(
                graph.harmonic[0][both], graph.harmonic[1][both]
            ),
            "spearman_pagerank_between_releases": _rho(
                graph.pagerank[0][both], graph.pagerank[1][both]
            ),
        },
        "coverage": coverage,
        "crawl_count_calibration": crawl_count_calibration(scale),
        "gneissweb_annotations": annotation_formats(),
        "warc": warc,
        "training_corpus": training,
    }


def _grouped_median(groups: np.ndarray, values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Median of values per group, for the groups in ``wanted`` (vectorised, for paper scale)."""
    order = np.lexsort((values, groups))
    sorted_groups, sorted_values = groups[order], values[order]
    starts = np.searchsorted(sorted_groups, wanted, side="left")
    ends = np.searchsorted(sorted_groups, wanted, side="right")
    low = sorted_values[starts + (ends - starts - 1) // 2]
    high = sorted_values[starts + (ends - starts) // 2]
    return 0.5 * (low + high)
