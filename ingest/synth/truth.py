"""``truth.json``: the planted parameters and what the draw realised, to check the warehouse by.

Realised values are computed here from the latent truth (true scores, not classifier output)
with plain numpy/scipy, so the warehouse's numbers can be compared to them.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from ingest.synth.config import (
    CLASSIFIERS,
    COVERAGE_QUALITY_SPEARMAN,
    CRAWLS,
    GRAPH_RELEASES,
    SAMPLE_CRAWL,
    TLDS,
    Scale,
)
from ingest.synth.model import (
    ROLE_DANGLING,
    ROLE_OTHER,
    ROLE_SAMPLE,
    ROLE_SMALL,
    Documents,
    Hosts,
    icc1_anova,
)

__all__ = ["build_truth", "coverage_summary"]

_QUALITY = next(i for i, spec in enumerate(CLASSIFIERS) if spec.name == "gneissweb_quality_demo")


def _rho(x: np.ndarray, y: np.ndarray) -> float | None:
    if len(x) < 3:
        return None
    return round(float(spearmanr(x, y).statistic), 4)


def coverage_summary(hosts: Hosts, counts: Any, harmonic: np.ndarray, annotated_pages: int) -> dict:
    """One crawl's planted and realised coverage figures (computed while its counts exist)."""
    crawled = (hosts.role != ROLE_DANGLING) & hosts.in_graph
    universe = crawled & (counts.known > 0) & (counts.fetch_200 > 0)
    ratio = np.minimum(counts.fetched / np.maximum(counts.known, 1), 1.0)
    known = counts.known[hosts.in_graph].astype(np.int64)
    fetched = counts.fetched[hosts.in_graph].astype(np.int64)
    return {
        "crawl": counts.crawl,
        "planted_spearman_coverage_vs_quality": COVERAGE_QUALITY_SPEARMAN[counts.crawl],
        "realised_spearman_coverage_vs_latent_quality": _rho(
            ratio[universe], hosts.effects[universe, _QUALITY]
        ),
        "spearman_coverage_vs_harmonic": _rho(ratio[universe], harmonic[universe]),
        "hosts_with_fetches": int(universe.sum()),
        "coverage_median": round(float(np.median(ratio[universe])), 4),
        "known_url_count": int(known.sum()),
        "fetched_url_count": int(fetched.sum()),
        "hosts_with_more_fetched_than_known": int((fetched > known).sum()),
        "annotated_page_count": annotated_pages,
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
