"""The numbers the captions and the headline quote, computed from mart rows.

Pure functions of DataFrames shaped as the marts are (their columns as the marts' yml
documents them), so they are tested without a warehouse. Classifiers are recognised by their
registry ``family`` (``rpt_classifiers``: ``dclm_demo`` and ``dclm_oh_eli5`` are both ``dclm``),
never by their names.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from report import paper

FULLCRAWL = "fullcrawl"
# rpt_coverage_quality_correlation's source of the crawl annotations' signal
ANNOTATION_SOURCE = "crawl_annotations"
# A rank correlation within a stratum of fewer hosts than this is not shown (Table 6's cells).
MIN_STRATUM_HOSTS = 10
CLASSIFIED = "classified"


def family_member(
    names: Iterable[str], family: str, families: Mapping[str, str | None]
) -> str | None:
    """The first name (sorted) among ``names`` whose registry family is ``family``.

    ``families`` maps classifier to family (``Marts.families``, from ``rpt_classifiers``).
    """
    matches = sorted(name for name in set(names) if families.get(name) == family)
    return matches[0] if matches else None


def at_budget(frame: pd.DataFrame, budget_share: float) -> pd.DataFrame:
    """The rows of ``frame`` at ``budget_share`` (floats compared with a tolerance)."""
    return frame[np.isclose(frame["budget_share"].astype(float), budget_share)]


def top_level_domain(tld: object) -> str:
    """The last label of a TLD or public suffix (``co.uk`` → ``uk``); ``(none)`` without one."""
    if not isinstance(tld, str) or not tld:
        return "(none)"
    return tld.rsplit(".", 1)[-1]


# ----------------------------------------------------------------------- RQ1 / RQ2


def icc_values(icc: pd.DataFrame, min_docs: int = paper.ICC_MIN_DOCS) -> pd.Series:
    """ICC(1) per classifier at ``min_docs`` (rpt_host_quality_icc)."""
    rows = icc[icc["min_docs"] == min_docs]
    return rows.set_index("classifier")["icc1"].sort_index()


def ordering_ratios(
    ordering: pd.DataFrame,
    policy: str,
    budget_share: float = paper.TABLE3_BUDGET_SHARE,
    column: str = "hq_ratio_vs_random",
) -> pd.Series:
    """``column`` per classifier of ``policy`` at ``budget_share`` (host ordering at budget)."""
    rows = at_budget(ordering, budget_share)
    rows = rows[rows["policy"] == policy]
    return rows.set_index("classifier")[column].sort_index()


def pooled_spearman(correlations: pd.DataFrame) -> pd.DataFrame:
    """Pooled rows of rpt_centrality_quality_correlations."""
    return correlations[correlations["stratum_type"] == "pooled"]


def stratum_rho(
    correlations: pd.DataFrame, classifier: str | None, stratum: str, metric: str = "hc"
) -> float | None:
    """Spearman's rho of ``classifier`` and ``metric`` within ``stratum`` (``all`` = pooled)."""
    if classifier is None:
        return None
    rows = correlations[
        (correlations["classifier"] == classifier)
        & (correlations["centrality_metric"] == metric)
        & (correlations["stratum"] == stratum)
    ]
    return None if rows.empty else float(rows["spearman_rho"].iloc[0])


def mask_small_strata(correlations: pd.DataFrame, minimum: int = MIN_STRATUM_HOSTS) -> pd.DataFrame:
    """``correlations`` with ``is_masked``: the stratum has fewer than ``minimum`` hosts.

    A Spearman's rho over two hosts is ±1 whatever the hosts; such cells are greyed out, not
    shown. A row without a host count is masked too. The values themselves are kept.
    """
    masked = correlations.copy()
    counts = pd.to_numeric(masked["host_count"], errors="coerce")
    masked["is_masked"] = (counts.isna() | (counts < minimum)).astype(bool)
    return masked


def language_medians(scores: pd.DataFrame, classifier: str | None) -> dict[str, float]:
    """Median host median score per language stratum of ``classifier`` (rpt_score_by_language)."""
    if classifier is None:
        return {}
    rows = scores[scores["classifier"] == classifier]
    return dict(
        zip(rows["language_stratum"], rows["host_median_score_p50"].astype(float), strict=True)
    )


def pair_rho(agreement: pd.DataFrame, first: str | None, second: str | None) -> float | None:
    """Spearman's rho between two classifiers (rpt_classifier_agreement, either order)."""
    if first is None or second is None:
        return None
    rows = agreement[
        (agreement["classifier_a"] == first) & (agreement["classifier_b"] == second)
        | (agreement["classifier_a"] == second) & (agreement["classifier_b"] == first)
    ]
    return None if rows.empty else float(rows["spearman_rho"].iloc[0])


# ----------------------------------------------------------------------- RQ3


def k_sample_rho(
    sample_size: pd.DataFrame,
    dataset: str,
    k: int,
    host_set: str = "variable",
    column: str = "spearman_rho",
) -> pd.Series:
    """Mean Spearman's rho per classifier of ``dataset`` at k (rpt_sample_size_correlation).

    ``column`` another of its columns (an interval's end), in the same order.
    """
    rows = sample_size[
        (sample_size["dataset"] == dataset)
        & (sample_size["sample_size"] == k)
        & (sample_size["host_set"] == host_set)
    ]
    return rows.set_index("classifier")[column].sort_index()


@dataclass(frozen=True)
class DepthGain:
    """Sample-then-deepen against uniform breadth for one dataset and classifier.

    Attributes:
        dataset: ``classified`` or ``fullcrawl``.
        classifier: the signal.
        smallest_budget: the smallest budget share of the grid where it is feasible.
        smallest_ratio: its ratio to uniform breadth there.
        largest_budget: the largest budget share below 1 (at 1 every ratio is 1 by definition).
        largest_ratio: the ratio there.
        peak_budget: the budget share of the largest ratio.
        peak_ratio: the largest ratio.
        min_feasible_budget_share: the sample's cost as a share of all pages.
        smallest_interval: the bootstrap interval of smallest_ratio (NaN, NaN without one).
        largest_interval: that of largest_ratio.
    """

    dataset: str
    classifier: str
    smallest_budget: float
    smallest_ratio: float
    largest_budget: float
    largest_ratio: float
    peak_budget: float
    peak_ratio: float
    min_feasible_budget_share: float
    smallest_interval: tuple[float, float] = (math.nan, math.nan)
    largest_interval: tuple[float, float] = (math.nan, math.nan)


def depth_gains(depth: pd.DataFrame, policy: str = "sample_then_deepen") -> list[DepthGain]:
    """``policy``'s ratio to uniform breadth at its smallest feasible, largest and best budget.

    Args:
        depth: rows of rpt_depth_policy_curves.
        policy: the depth policy.
    """
    gains = []
    rows = depth[(depth["policy"] == policy) & depth["ratio_vs_uniform"].notna()]
    for (dataset, classifier), group in rows.groupby(["dataset", "classifier"], sort=True):
        group = group.sort_values("budget_share")
        below_all = group[group["budget_share"] < 1 - 1e-9]
        last = below_all.iloc[-1] if not below_all.empty else group.iloc[-1]
        first = group.iloc[0]
        peak = group.loc[group["ratio_vs_uniform"].idxmax()]
        gains.append(
            DepthGain(
                dataset=str(dataset),
                classifier=str(classifier),
                smallest_budget=float(first["budget_share"]),
                smallest_ratio=float(first["ratio_vs_uniform"]),
                largest_budget=float(last["budget_share"]),
                largest_ratio=float(last["ratio_vs_uniform"]),
                peak_budget=float(peak["budget_share"]),
                peak_ratio=float(peak["ratio_vs_uniform"]),
                min_feasible_budget_share=float(group["min_feasible_budget_share"].iloc[0]),
                smallest_interval=_ratio_interval(first),
                largest_interval=_ratio_interval(last),
            )
        )
    return gains


def _ratio_interval(row: pd.Series) -> tuple[float, float]:
    """A depth row's ratio_vs_uniform interval; NaN where the build has none."""
    return tuple(  # type: ignore[return-value]
        float(row.get(f"ratio_vs_uniform_ci_{end}", math.nan)) for end in ("low", "high")
    )


def hc_depth_ratios(depth: pd.DataFrame) -> pd.Series:
    """HC depth's ratios to uniform breadth at every budget below 1."""
    rows = depth[(depth["policy"] == "hc_depth") & (depth["budget_share"] < 1 - 1e-9)]
    return rows["ratio_vs_uniform"].dropna()


def hc_depth_intervals_holding_one(depth: pd.DataFrame) -> tuple[int, int]:
    """Of HC depth's ratio intervals at budgets below 1, how many hold 1× and how many there are.

    (0, 0) when the mart has no intervals (the build turned them off).
    """
    bounds = ["ratio_vs_uniform_ci_low", "ratio_vs_uniform_ci_high"]
    if not set(bounds) <= set(depth.columns):
        return 0, 0
    rows = depth[(depth["policy"] == "hc_depth") & (depth["budget_share"] < 1 - 1e-9)]
    rows = rows.dropna(subset=bounds)
    holding = (rows[bounds[0]] <= 1) & (rows[bounds[1]] >= 1)
    return int(holding.sum()), len(rows)


# ----------------------------------------------------------------------- RQ4


def coverage_rho(
    coverage: pd.DataFrame, crawl: str | None, signal: str, min_pages: int
) -> float | None:
    """Spearman's rho of coverage vs ``signal`` on hosts with >= ``min_pages`` annotated pages."""
    rows = coverage[
        (coverage["crawl"] == crawl)
        & (coverage["signal"] == signal)
        & (coverage["min_annotated_pages"] == min_pages)
    ]
    return None if rows.empty else float(rows["spearman_rho"].iloc[0])


def annotation_signal(coverage: pd.DataFrame) -> str | None:
    """The crawl annotations' signal of rpt_coverage_quality_correlation."""
    annotated = coverage[coverage["signal_source"] == ANNOTATION_SOURCE]
    names = sorted(annotated["signal"].unique())
    return names[0] if names else None


def tld_shares(missed: pd.DataFrame, crawl: str | None) -> pd.DataFrame:
    """Missed-HQ and host shares of a crawl by top-level domain (``co.uk`` counts as ``uk``).

    Returns:
        One row per top-level domain: ``tld``, ``host_count``, ``host_share``,
        ``est_uncrawled_hq``, ``missed_share``, sorted by ``missed_share`` descending.
    """
    rows = missed[missed["crawl"] == crawl].copy()
    rows["tld"] = rows["url_host_tld"].map(top_level_domain)
    grouped = rows.groupby("tld", as_index=False)[
        ["host_count", "host_share", "est_uncrawled_hq", "missed_share"]
    ].sum(min_count=1)
    return grouped.sort_values(["missed_share", "tld"], ascending=[False, True]).reset_index(
        drop=True
    )
