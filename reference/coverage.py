"""A7-A12 RQ4 coverage vs quality per crawl (docs/definitions.md A7-A12).

Per crawl and host-index row: coverage = least(fetched/known, 1) (known > 0 and fetched known);
uncrawled = greatest(known − fetched, 0); from the annotations (page level where the crawl has
page-level ones, HQ by the profile's rule; else each host-level annotation: density 1 in
GneissWeb, else 0, no page counts) the HQ density q. A host is analysed when its coverage is
known and it has ≥ ``rq4_min_annotated_pages`` annotated pages (a host-level annotation
counts); est. uncrawled HQ = uncrawled·q. Flags over the analysed hosts: low coverage
(< ``low_coverage_threshold``), below the crawl's median coverage, top-decile q (≥ the
``top_quality_quantile`` quantile), hidden gem = both. A7: Spearman of coverage against q and
against each classifier's host median; A8: the per-crawl summary; hidden gems by est.
uncrawled HQ; A9: per TLD (last label) its host share, missed share and their ratio; and
the uncrawled HQ per tenth of coverage. A null count is unknown, not zero.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from reference.bootstrap import normal_interval, spearman_influence
from reference.config import ANNOTATION_PROFILES, REGISTRY, VARS
from reference.hosts import host_classifier_stats
from reference.lake import HOST_CRAWL_COLUMNS, Inputs
from reference.samples import flag_values, pages_flagged
from reference.stats import quantile_cont, spearman

__all__ = [
    "ANNOTATION_SIGNAL",
    "FLAGS",
    "HIDDEN_GEM_COLUMNS",
    "coverage_quality_correlation",
    "hidden_gems",
    "host_crawl_annotations",
    "host_crawls",
    "missed_hq_by_tld",
    "uncrawled_hq_by_coverage_band",
    "uncrawled_hq_summary",
]

ANNOTATION_SIGNAL = ("annotations", "crawl_annotations")  # its signal and signal_source
FLAGS = ["is_low_coverage", "is_below_median_coverage", "is_top_decile_quality", "is_hidden_gem"]
HIDDEN_GEM_COLUMNS = [
    "crawl",
    "gem_rank",
    "surt_host_name",
    "url_host_tld",
    "known_url_count",
    "fetched_url_count",
    "coverage_rate",
    "annotated_page_count",
    "hq_page_count",
    "hq_density",
    "est_uncrawled_hq",
]
_ANNOTATED = ["annotation_level", "annotated_page_count", "hq_page_count", "hq_density"]


def host_crawl_annotations(
    inputs: Inputs, profile: str | None = VARS["annotation_profile"]
) -> pd.DataFrame:
    """Per (crawl, surt_host_name): annotation_level, annotated and HQ pages, HQ density.

    Raises:
        ValueError: a host-level row of a page-level profile, or two of one host and crawl.
    """
    pages = pages_flagged(inputs, profile)
    crawl, crawls = pd.factorize(pages["crawl"], sort=True)
    host, names = pd.factorize(pages["surt_host_name"], sort=True)
    width = max(len(names), 1)
    group, keys = pd.factorize(crawl.astype(np.int64) * width + host, sort=True)
    size = np.bincount(group, minlength=len(keys)).astype(float)
    hq = np.bincount(group, pages["is_hq"].to_numpy(float), len(keys))
    paged = pd.DataFrame(
        {
            "annotation_level": "page",
            "annotated_page_count": size,
            "hq_page_count": hq,
            "hq_density": hq / size,
        },
        index=pd.MultiIndex.from_arrays(
            [crawls[keys // width], names[keys % width]], names=["crawl", "surt_host_name"]
        ),
    )
    hosts = inputs.host_annotations
    levels = ANNOTATION_PROFILES.reindex(hosts["annotation_profile"])["annotation_level"]
    if not (levels == "host").all():
        raise ValueError("host annotations under a profile that is not host level")
    hosts = hosts[~hosts["crawl"].isin(crawls)]
    if hosts.duplicated(["crawl", "surt_host_name"]).any():
        raise ValueError("two host-level annotations of one host and crawl")
    flag = np.nan_to_num(flag_values(hosts["in_gneissweb"]), nan=0.0)  # no flag: not in it
    leveled = pd.DataFrame(
        {
            "annotation_level": "host",
            "annotated_page_count": np.nan,
            "hq_page_count": np.nan,
            "hq_density": flag,
        },
        index=pd.MultiIndex.from_frame(hosts[["crawl", "surt_host_name"]]),
    )
    return pd.concat([paged, leveled])[_ANNOTATED]


def host_crawls(
    inputs: Inputs, config: dict | None = None, annotated: pd.DataFrame | None = None
) -> pd.DataFrame:
    """fct_host_crawls: every host-index row, its annotations and the crawl-level flags.

    Besides the mart's columns: coverage_median and hq_density_top_cutoff of its crawl.
    ``annotated``, when given, is ``host_crawl_annotations(inputs, config's profile)``.
    """
    config = config or VARS
    fetched_column = config.get("rq4_fetched_count", "fetched_url_count")
    hosts = inputs.host_crawls[HOST_CRAWL_COLUMNS].copy()
    if fetched_column != "fetched_url_count":
        hosts["fetched_url_count"] = inputs.host_crawls[fetched_column]
    if annotated is None:
        annotated = host_crawl_annotations(inputs, config["annotation_profile"])
    hosts = hosts.join(annotated, on=["crawl", "surt_host_name"])
    hosts["annotated_page_count"] = hosts["annotated_page_count"].where(
        hosts["annotation_level"].notna(), 0.0
    )
    hosts["hq_page_count"] = hosts["hq_page_count"].where(hosts["annotation_level"].notna(), 0.0)
    hosts["annotation_level"] = hosts["annotation_level"].astype(object)
    hosts["annotation_level"] = hosts["annotation_level"].where(
        hosts["annotation_level"].notna(), None
    )
    known = hosts["known_url_count"].astype(float).to_numpy()
    fetched = hosts["fetched_url_count"].astype(float).to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        covered = (known > 0) & ~np.isnan(fetched)
        hosts["coverage_rate"] = np.where(covered, np.minimum(fetched / known, 1.0), np.nan)
        hosts["uncrawled_url_count"] = np.maximum(known - fetched, 0.0)  # NaN stays NaN
    enough = (hosts["annotation_level"] == "host") | (
        hosts["annotated_page_count"] >= config["rq4_min_annotated_pages"]
    )
    hosts["is_analysed"] = covered & enough.to_numpy()
    hosts["est_uncrawled_hq"] = np.where(
        hosts["is_analysed"], hosts["uncrawled_url_count"] * hosts["hq_density"], np.nan
    )
    hosts["coverage_median"] = np.nan
    hosts["hq_density_top_cutoff"] = np.nan
    for flag in FLAGS:
        hosts[flag] = None
    low = float(config["low_coverage_threshold"])
    for _, crawl_hosts in hosts.groupby("crawl", sort=True):
        analysed = crawl_hosts[crawl_hosts["is_analysed"]]
        median = quantile_cont(analysed["coverage_rate"].to_numpy(float), 0.5)
        cutoff = quantile_cont(
            analysed["hq_density"].to_numpy(float), float(config["top_quality_quantile"])
        )
        hosts.loc[crawl_hosts.index, ["coverage_median", "hq_density_top_cutoff"]] = (
            median,
            cutoff,
        )
        below = analysed["coverage_rate"] < median
        top = analysed["hq_density"] >= cutoff
        for flag, values in zip(
            FLAGS, (analysed["coverage_rate"] < low, below, top, below & top), strict=True
        ):
            hosts.loc[analysed.index, flag] = values.astype(object)
    return hosts.reset_index(drop=True)


def _share(part: float, total: float) -> float:
    return part / total if total else math.nan


def uncrawled_hq_summary(
    inputs: Inputs,
    hosts: pd.DataFrame,
    config: dict | None = None,
    annotated: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """rpt_uncrawled_hq_summary: one row per crawl of the host index.

    ``annotated``, when given, is ``host_crawl_annotations(inputs, config's profile)``. The
    intervals of the total and of the low-coverage share are the Poisson bootstrap's, exact:
    replicate b's total is sum_h w_hb x_h (``poisson_weights``), its share the low-coverage
    hosts' weighted sum over it.
    """
    config = config or VARS
    if annotated is None:
        annotated = host_crawl_annotations(inputs, config["annotation_profile"])
    annotated_crawl = annotated.index.get_level_values("crawl")
    annotated_host = annotated.index.get_level_values("surt_host_name")
    rows = []
    for crawl, crawl_hosts in hosts.groupby("crawl", sort=True):
        analysed = crawl_hosts[crawl_hosts["is_analysed"]]
        estimate = analysed["est_uncrawled_hq"]
        total = float(estimate.sum())  # no analysed host: nothing missed
        chosen = {flag: analysed[flag].astype(bool) for flag in FLAGS}
        with_hq = chosen["is_low_coverage"] & (analysed["hq_density"] > 0)
        of_crawl = pa.array(annotated_host[annotated_crawl == crawl])  # each host once
        indexed = pc.is_in(of_crawl, value_set=pa.array(crawl_hosts["surt_host_name"]))
        missing = len(of_crawl) - pc.sum(indexed, min_count=0).as_py()
        gems = int(chosen["is_hidden_gem"].sum())
        intervals = _uncrawled_hq_intervals(analysed, config)
        rows.append(
            {
                "crawl": crawl,
                "analysed_host_count": len(analysed),
                "total_est_uncrawled_hq": total,
                "coverage_median": crawl_hosts["coverage_median"].iloc[0],
                "hq_density_top_cutoff": crawl_hosts["hq_density_top_cutoff"].iloc[0],
                "low_coverage_host_count": int(chosen["is_low_coverage"].sum()),
                "low_coverage_hq_share": _share(estimate[chosen["is_low_coverage"]].sum(), total),
                "below_median_coverage_host_count": int(chosen["is_below_median_coverage"].sum()),
                "below_median_coverage_hq_share": _share(
                    estimate[chosen["is_below_median_coverage"]].sum(), total
                ),
                "hidden_gem_count": gems,
                "hidden_gem_host_share": gems / len(analysed) if len(analysed) else math.nan,
                "hidden_gem_hq_share": _share(estimate[chosen["is_hidden_gem"]].sum(), total),
                "low_coverage_with_hq_host_count": int(with_hq.sum()),
                "low_coverage_with_hq_hq_share": _share(estimate[with_hq].sum(), total),
                "annotated_hosts_missing_from_host_index": missing,
            }
            | intervals
        )
    return pd.DataFrame(rows)


def _uncrawled_hq_intervals(analysed: pd.DataFrame, config: dict) -> dict[str, float]:
    """The intervals of a crawl's total est. uncrawled HQ and of its low-coverage share.

    The first-order bootstrap's normal limit: a sum's variance is its terms' squares summed,
    the share L / T's the squares of psi_h = (x_h [low] - share x_h) / T.
    """
    estimate = analysed["est_uncrawled_hq"].to_numpy(float)
    low = np.where(analysed["is_low_coverage"].astype(bool), estimate, 0.0)
    total = float(estimate.sum())
    if not total:  # no estimate above 0: no interval
        squares = share = variance = math.nan
    else:
        squares = float(estimate @ estimate)
        share = float(low.sum()) / total
        psi = (low - share * estimate) / total
        variance = float(psi @ psi)
    return normal_interval(total, squares, "total_est_uncrawled_hq", config, (0, None)) | (
        normal_interval(share, variance, "low_coverage_hq_share", config, (0, 1))
    )


def hidden_gems(hosts: pd.DataFrame) -> pd.DataFrame:
    """rpt_hidden_gems: per crawl, the gems by est. uncrawled HQ (ties by host name)."""
    gems = hosts[hosts["is_hidden_gem"].eq(True)]
    gems = gems.sort_values(
        ["crawl", "est_uncrawled_hq", "surt_host_name"], ascending=[True, False, True]
    )
    gems = gems.assign(gem_rank=gems.groupby("crawl").cumcount() + 1)
    return gems[HIDDEN_GEM_COLUMNS].reset_index(drop=True)


def missed_hq_by_tld(hosts: pd.DataFrame) -> pd.DataFrame:
    """rpt_missed_hq_by_tld: per crawl and TLD (a null TLD is a group of its own)."""
    analysed = hosts[hosts["is_analysed"]]
    grouped = analysed.groupby(["crawl", "url_host_tld"], dropna=False, sort=True)
    result = grouped["est_uncrawled_hq"].agg(["size", "sum"]).reset_index()
    crawl_hosts = analysed.groupby("crawl").size()
    totals = analysed.groupby("crawl")["est_uncrawled_hq"].sum()
    result["host_share"] = result["size"] / result["crawl"].map(crawl_hosts)
    total = result["crawl"].map(totals)
    result["missed_share"] = (result["sum"] / total).where(total != 0)
    result["over_representation"] = result["missed_share"] / result["host_share"]
    result["url_host_tld"] = result["url_host_tld"].astype(object)
    result["url_host_tld"] = result["url_host_tld"].where(result["url_host_tld"].notna(), None)
    result = result.rename(columns={"size": "host_count", "sum": "est_uncrawled_hq"})
    columns = ["crawl", "url_host_tld", "host_count", "host_share", "est_uncrawled_hq"]
    return result[[*columns, "missed_share", "over_representation"]]


def uncrawled_hq_by_coverage_band(hosts: pd.DataFrame) -> pd.DataFrame:
    """rpt_uncrawled_hq_by_coverage_band: per crawl and tenth of coverage with a host."""
    analysed = hosts[hosts["is_analysed"] & hosts["coverage_rate"].notna()]
    band = np.minimum(np.floor(analysed["coverage_rate"].to_numpy(float) * 10), 9)
    grouped = analysed.assign(band=band).groupby(["crawl", "band"], sort=True)
    result = grouped["est_uncrawled_hq"].agg(["size", "sum"]).reset_index()
    totals = hosts[hosts["is_analysed"]].groupby("crawl")["est_uncrawled_hq"].sum()
    total = result["crawl"].map(totals)
    return pd.DataFrame(
        {
            "crawl": result["crawl"],
            "coverage_band_lower": result["band"] / 10,
            "coverage_band_upper": (result["band"] + 1) / 10,
            "host_count": result["size"],
            "est_uncrawled_hq": result["sum"],
            "hq_share": (result["sum"] / total).where(total != 0),
        }
    )


def coverage_quality_correlation(
    inputs: Inputs,
    hosts: pd.DataFrame,
    config: dict | None = None,
    stats: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """rpt_coverage_quality_correlation: per crawl, signal and minimum of annotated pages.

    A host annotated at host level counts as one annotated page; a signal without a host has
    no row. ``stats``, when given, is ``host_classifier_stats(inputs)``. The intervals
    (``spearman_rho_ci_low``, ``_ci_high``, ``_se``) are the first-order Poisson bootstrap's
    normal limit: rho -/+ z sqrt(sum_h psi_h^2) within [-1, 1] (``normal_interval``).
    """
    config = config or VARS
    stats = host_classifier_stats(inputs, config) if stats is None else stats
    stats = stats[stats["doc_count"] >= config["min_docs_per_host"]]
    columns = ["surt_host_name", "quality_score_median"]
    medians = {
        classifier: stats.loc[stats["classifier"] == classifier, columns]
        for classifier in sorted(REGISTRY["classifier"])
    }
    rows = []
    for crawl, crawl_hosts in hosts.groupby("crawl", sort=True):
        pages = crawl_hosts["annotated_page_count"].fillna(1).to_numpy(float)
        analysed = crawl_hosts["is_analysed"].to_numpy(bool)
        coverage = crawl_hosts["coverage_rate"].to_numpy(float)
        density = crawl_hosts["hq_density"].to_numpy(float)
        # each classifier's hosts as positions among the crawl's (-1: not in the host index)
        names = pd.Index(crawl_hosts["surt_host_name"])
        at = {c: names.get_indexer(m["surt_host_name"]) for c, m in medians.items()}
        for minimum in config["coverage_quality_min_annotated_pages"]:
            chosen = analysed & (pages >= minimum)
            pairs = {ANNOTATION_SIGNAL: (coverage[chosen], density[chosen])}
            for classifier, median in medians.items():
                found = at[classifier] >= 0
                found[found] = chosen[at[classifier][found]]
                pairs[(classifier, "classified_sample")] = (
                    coverage[at[classifier][found]],
                    median["quality_score_median"].to_numpy(float)[found],
                )
            for (signal, source), (x, y) in pairs.items():
                if not len(x):
                    continue
                row = {
                    "crawl": crawl,
                    "signal": signal,
                    "min_annotated_pages": minimum,
                    "signal_source": source,
                    "host_count": len(x),
                    "spearman_rho": spearman(x, y),
                }
                rho, influence = spearman_influence(x, y)
                rows.append(
                    row
                    | normal_interval(
                        rho, float(influence @ influence), "spearman_rho", config, (-1, 1)
                    )
                )
    return pd.DataFrame(rows)
