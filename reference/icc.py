"""A2 ICC(1): a one-way random-effects ANOVA over hosts (docs/definitions.md A2).

Over hosts with n_i >= m (m in ``icc_min_docs``): N = Σn_i, k hosts, SSB = Σ n_i (ȳ_i − ȳ)²,
SSW = Σ (n_i − 1) s_i², MSB = SSB/(k − 1), MSW = SSW/(N − k), n0 = (N − Σn_i²/N)/(k − 1),
ICC1 = (MSB − MSW)/(MSB + (n0 − 1) MSW) (negative kept), F = MSB/MSW and the variance ratio
SSB/(SSB + SSW). Computed from each host's count, mean and sample variance (A1).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reference.bootstrap import interval, poisson_weights
from reference.config import VARS
from reference.hosts import host_classifier_stats
from reference.lake import Inputs

__all__ = ["anova", "host_quality_icc", "host_quality_icc_intervals", "one_way_anova"]


def anova(sizes: np.ndarray, means: np.ndarray, variances: np.ndarray) -> dict[str, float]:
    """The ANOVA of groups given by their sizes, means and sample variances (NaN if n = 1)."""
    sizes = np.asarray(sizes, dtype=float)
    count, total = len(sizes), float(sizes.sum())
    grand_mean = float(np.sum(sizes * means) / total)
    ssb = float(np.sum(sizes * (means - grand_mean) ** 2))
    ssw = float(np.sum(np.where(sizes > 1, (sizes - 1) * np.nan_to_num(variances), 0.0)))
    msb = ssb / (count - 1) if count > 1 else math.nan
    msw = ssw / (total - count) if total > count else math.nan
    n0 = (total - float(np.sum(sizes**2)) / total) / (count - 1) if count > 1 else math.nan
    denominator = msb + (n0 - 1) * msw
    return {
        "host_count": count,
        "doc_count": total,
        "grand_mean": grand_mean,
        "ssb": ssb,
        "ssw": ssw,
        "df_between": count - 1,
        "df_within": total - count,
        "msb": msb,
        "msw": msw,
        "n0": n0,
        "icc1": (msb - msw) / denominator if denominator else math.nan,
        "f_stat": msb / msw if msw else math.nan,
        "icc_variance_ratio": ssb / (ssb + ssw) if ssb + ssw else math.nan,
    }


def one_way_anova(groups: pd.Series, ratings: pd.Series) -> dict[str, float]:
    """The ANOVA of ``ratings`` grouped by ``groups`` (one value per rating)."""
    by_group = pd.Series(ratings.to_numpy(float)).groupby(groups.to_numpy())
    return anova(by_group.size().to_numpy(), by_group.mean().to_numpy(), by_group.var().to_numpy())


def host_quality_icc(
    inputs: Inputs, config: dict | None = None, stats: pd.DataFrame | None = None
) -> pd.DataFrame:
    """rpt_host_quality_icc: one row per classifier and minimum host size with a host.

    ``stats``, when given, is ``host_classifier_stats(inputs)``.
    """
    config = config or VARS
    stats = host_classifier_stats(inputs, config) if stats is None else stats
    rows = []
    for classifier, hosts in stats.groupby("classifier", sort=True):
        for min_docs in config["icc_min_docs"]:
            kept = hosts[hosts["doc_count"] >= min_docs]
            if len(kept):
                result = anova(
                    kept["doc_count"].to_numpy(),
                    kept["quality_score_mean"].to_numpy(float),
                    kept["quality_score_var"].to_numpy(float),
                )
                rows.append({"classifier": classifier, "min_docs": int(min_docs), **result})
    return pd.DataFrame(rows)


def host_quality_icc_intervals(
    inputs: Inputs, config: dict | None = None, stats: pd.DataFrame | None = None
) -> pd.DataFrame:
    """rpt_host_quality_icc's icc1_ci_low, icc1_ci_high, icc1_se: the Poisson bootstrap.

    Each replicate is the ANOVA of the hosts repeated by their weights (a host of weight 2 is
    two hosts, weight 0 none); NaN replicates (fewer than two hosts) are left out, as SQL's
    quantiles leave nulls out.
    """
    config = config or VARS
    stats = host_classifier_stats(inputs, config) if stats is None else stats
    replicates = int(config["bootstrap_replicates"])
    hosts = sorted(stats["surt_host_name"].unique())
    weights = dict(zip(hosts, poisson_weights(hosts, replicates), strict=True))
    rows = []
    for classifier, by_classifier in stats.groupby("classifier", sort=True):
        for min_docs in config["icc_min_docs"]:
            kept = by_classifier[by_classifier["doc_count"] >= min_docs]
            if not len(kept):
                continue
            host_weights = np.array([weights[host] for host in kept["surt_host_name"]])
            values = []
            for b in range(1, replicates + 1):
                repeat = host_weights[:, b]
                icc1 = anova(
                    np.repeat(kept["doc_count"].to_numpy(), repeat),
                    np.repeat(kept["quality_score_mean"].to_numpy(float), repeat),
                    np.repeat(kept["quality_score_var"].to_numpy(float), repeat),
                )["icc1"]
                if not math.isnan(icc1):
                    values.append(icc1)
            low, high, se = interval(np.array(values), float(config["bootstrap_level"]))
            rows.append(
                {
                    "classifier": classifier,
                    "min_docs": int(min_docs),
                    "icc1_ci_low": low,
                    "icc1_ci_high": high,
                    "icc1_se": se,
                }
            )
    return pd.DataFrame(rows)
