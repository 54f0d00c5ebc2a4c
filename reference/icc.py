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

from reference.config import VARS
from reference.hosts import host_classifier_stats
from reference.lake import Inputs

__all__ = ["anova", "host_quality_icc", "one_way_anova"]


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
