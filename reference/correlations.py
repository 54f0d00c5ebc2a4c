"""A3 centrality vs quality, A3b score by language, A3c agreement, A3d rank stability.

docs/definitions.md A3: over U_c, x = HC or PR, y = the host median score, per stratum
(pooled; language; TLD category): Spearman (Pearson of mid-ranks), Kendall tau-b
(``scipy.stats.kendalltau``), the weighted Spearman (weighted Pearson of the unweighted
mid-ranks, weights = pages) and ``scipy.stats.weightedtau`` (both Kendall statistics from
reference.kendall's O(n log n) count, held to scipy's by its tests). A host without the centrality
value is not a pair. A3b: quartiles (linear) and mean of host medians per classifier and
language stratum (hosts with >= ``min_docs_per_host`` pages). A3c: page-level Spearman over
the pages two classifiers both scored. A3d: Spearman of HC and PR values between two
releases (ordered by the graph_releases seed's last crawl) over the hosts in both.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reference.bootstrap import normal_interval, spearman_influence
from reference.config import GRAPH_RELEASES, VARS
from reference.hosts import host_classifier_stats, host_universe, hosts_profiled
from reference.kendall import grouped_kendall
from reference.lake import Inputs
from reference.stats import bounded, group_pearson, group_ranks, midranks, pearson, spearman

__all__ = [
    "STRATA",
    "centrality_quality_correlations",
    "centrality_quality_spearman_intervals",
    "classifier_agreement",
    "graph_rank_stability",
    "score_by_language",
    "weighted_spearman",
]

# stratum_type -> the host column that names the stratum (None: every host, stratum "all")
STRATA = {"pooled": None, "language": "language_stratum", "tld_category": "tld_macro_category"}


def weighted_spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    """Weighted Pearson correlation of the (unweighted) mid-ranks (docs/definitions.md A3)."""
    groups = np.zeros(len(x), dtype=np.int64)
    return float(group_pearson(midranks(x), midranks(y), groups, np.asarray(weights, float))[0])


def centrality_quality_correlations(
    inputs: Inputs, config: dict | None = None, universe: pd.DataFrame | None = None
) -> pd.DataFrame:
    """rpt_centrality_quality_correlations: per classifier, metric and stratum with a pair.

    ``universe``, when given, is ``host_universe(inputs)``.
    """
    universe = host_universe(inputs, config) if universe is None else universe
    frames = []
    for metric in ("hc", "pr"):
        pairs = universe[
            universe[f"{metric}_val"].notna() & universe["quality_score_median"].notna()
        ]
        for stratum_type, column in STRATA.items():
            stratum = pairs[column] if column else pd.Series("all", index=pairs.index)
            keys = pd.MultiIndex.from_arrays([pairs["classifier"], stratum])
            codes, groups = pd.factorize(keys, sort=True)
            x = pairs[f"{metric}_val"].to_numpy(float)
            y = pairs["quality_score_median"].to_numpy(float)
            w = pairs["doc_count"].to_numpy(float)
            rx, ry = group_ranks(x, codes), group_ranks(y, codes)
            frame = pd.DataFrame(
                {
                    "classifier": groups.get_level_values(0),
                    "centrality_metric": metric,
                    "stratum_type": stratum_type,
                    "stratum": groups.get_level_values(1),
                    "host_count": np.bincount(codes, minlength=len(groups)),
                    "spearman_rho": group_pearson(rx, ry, codes),
                    "weighted_spearman_rho": group_pearson(rx, ry, codes, w),
                }
            )
            # Kendall's statistics: every stratum in one O(n log n) count (reference.kendall)
            tau_b, weighted_tau = grouped_kendall(x, y, codes)
            frames.append(frame.assign(kendall_tau_b=tau_b, weighted_tau=weighted_tau))
    columns = ["classifier", "centrality_metric", "stratum_type", "stratum", "host_count"]
    columns += ["spearman_rho", "kendall_tau_b", "weighted_spearman_rho", "weighted_tau"]
    return pd.concat(frames, ignore_index=True)[columns]


def score_by_language(
    inputs: Inputs,
    config: dict | None = None,
    stats: pd.DataFrame | None = None,
    profiles: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """rpt_score_by_language: host-median quartiles per classifier and language stratum.

    ``stats`` and ``profiles``, when given, are those of ``inputs``.
    """
    config = config or VARS
    stats = host_classifier_stats(inputs, config) if stats is None else stats
    profiles = hosts_profiled(inputs, config) if profiles is None else profiles
    hosts = stats[stats["doc_count"] >= config["min_docs_per_host"]].merge(
        profiles[["surt_host_name", "language_stratum"]], on="surt_host_name"
    )
    medians = hosts.groupby(["classifier", "language_stratum"], sort=True)["quality_score_median"]
    return pd.DataFrame(
        {
            "host_count": medians.size(),
            "host_median_score_p25": medians.quantile(0.25),
            "host_median_score_p50": medians.quantile(0.5),
            "host_median_score_p75": medians.quantile(0.75),
            "host_median_score_mean": medians.mean(),
        }
    ).reset_index()


def centrality_quality_spearman_intervals(
    inputs: Inputs, config: dict | None = None, universe: pd.DataFrame | None = None
) -> pd.DataFrame:
    """rpt_centrality_quality_correlations' spearman_rho_ci_low, _ci_high, _se.

    The first-order Poisson bootstrap's normal limit (docs/definitions.md B, "Rank
    statistics"): rho -/+ z sqrt(sum_h psi_h^2) over the stratum's hosts, within [-1, 1]
    (``spearman_influence``, ``normal_interval``). NaN where rho is.
    """
    config = config or VARS
    universe = host_universe(inputs, config) if universe is None else universe
    rows = []
    for metric in ("hc", "pr"):
        pairs = universe[
            universe[f"{metric}_val"].notna() & universe["quality_score_median"].notna()
        ]
        for stratum_type, column in STRATA.items():
            stratum = pairs[column] if column else pd.Series("all", index=pairs.index)
            for (classifier, name), group in pairs.groupby([pairs["classifier"], stratum]):
                rho, influence = spearman_influence(
                    group[f"{metric}_val"].to_numpy(float),
                    group["quality_score_median"].to_numpy(float),
                )
                rows.append(
                    {
                        "classifier": classifier,
                        "centrality_metric": metric,
                        "stratum_type": stratum_type,
                        "stratum": name,
                    }
                    | normal_interval(
                        rho, float(influence @ influence), "spearman_rho", config, (-1, 1)
                    )
                )
    return pd.DataFrame(rows)


def classifier_agreement(inputs: Inputs) -> pd.DataFrame:
    """rpt_classifier_agreement: both orders of every pair of classifiers with common pages."""
    wide = inputs.scores.pivot_table(
        index="doc_id", columns="classifier", values="score", aggfunc="first"
    ).astype(float)
    names = sorted(wide.columns)
    values = {name: wide[name].to_numpy() for name in names}
    rows = []
    for position, first in enumerate(names):
        for second in names[position + 1 :]:
            common = ~(np.isnan(values[first]) | np.isnan(values[second]))
            if not common.any():
                continue
            rho = spearman(values[first][common], values[second][common])
            for a, b in ((first, second), (second, first)):
                rows.append(
                    {
                        "classifier_a": a,
                        "classifier_b": b,
                        "doc_count": int(common.sum()),
                        "spearman_rho": rho,
                    }
                )
    return pd.DataFrame(rows, columns=["classifier_a", "classifier_b", "doc_count", "spearman_rho"])


def graph_rank_stability(inputs: Inputs) -> pd.DataFrame:
    """rpt_graph_rank_stability: every earlier/later pair of releases, per metric."""
    last_crawl = GRAPH_RELEASES.set_index("release")["last_crawl"]
    releases = sorted(
        inputs.host_ranks["release"].unique(),
        key=lambda release: (release not in last_crawl, last_crawl.get(release, ""), release),
    )
    by_release = {
        release: group.drop_duplicates("surt_host_name").set_index("surt_host_name")
        for release, group in inputs.host_ranks.groupby("release")
    }
    rows = []
    for position, earlier in enumerate(releases):
        for later in releases[position + 1 :]:
            common = by_release[earlier].merge(
                by_release[later],
                left_index=True,
                right_index=True,
                suffixes=("_earlier", "_later"),
            )
            for metric in ("hc", "pr"):
                x = common[f"{metric}_val_earlier"].to_numpy(float)
                y = common[f"{metric}_val_later"].to_numpy(float)
                keep = ~(np.isnan(x) | np.isnan(y))
                if not keep.any():
                    continue
                rows.append(
                    {
                        "centrality_metric": metric,
                        "reference_release": earlier,
                        "later_release": later,
                        "host_count": int(keep.sum()),
                        "spearman_rho": bounded(pearson(midranks(x[keep]), midranks(y[keep]))),
                    }
                )
    return pd.DataFrame(rows)
