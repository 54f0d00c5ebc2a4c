"""A1 host statistics, the host profiles and the host universe U_c (docs/definitions.md).

* A1: per host and classifier, pages n, the median, mean and sample variance of the score, HQ
  pages (score above the registry's threshold, docs/definitions.md §4.0) and HQ density.
* Host profiles (A3's strata): pages, the share of English pages (``seeds/language_strata``),
  the stratum (English-primary at ``english_doc_share_threshold``), the mode of the documents'
  TLD (last label) and public suffix, the suffix's macro category
  (``seeds/tld_macro_categories``: SQL LIKE patterns, the first match by priority), the graph
  release's HC and PR and the sample crawl's host-index counts.
* §4.0 host universe U_c: hosts with at least ``min_docs_per_host`` pages of the classifier
  that are graph nodes.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from reference.config import LANGUAGE_STRATA, TLD_CATEGORIES, VARS, hq_thresholds
from reference.lake import Inputs

__all__ = [
    "host_classifier_stats",
    "host_mode",
    "host_universe",
    "hosts_profiled",
    "scores_flagged",
    "suffix_categories",
    "suffix_category",
]

FALLBACK_CATEGORY = "other_generic"


def _like(pattern: str) -> re.Pattern:
    """SQL LIKE (``%`` any run, ``_`` one character) as an anchored regex."""
    wildcards = {"%": ".*", "_": "."}
    return re.compile("".join(wildcards.get(char, re.escape(char)) for char in pattern) + r"\Z")


_PATTERNS = [
    (row.match_priority, row.suffix_pattern, row.macro_category, _like(row.suffix_pattern))
    for row in TLD_CATEGORIES.itertuples()
]


def suffix_category(suffix: str | None) -> str:
    """The macro category of a public suffix: the first seed pattern it matches by priority."""
    if suffix is None or pd.isna(suffix):
        return FALLBACK_CATEGORY
    matches = [(p, pattern, c) for p, pattern, c, regex in _PATTERNS if regex.match(suffix)]
    return min(matches)[2] if matches else FALLBACK_CATEGORY


def suffix_categories(suffixes: pd.Series) -> pd.Series:
    """``suffix_category`` of each value (computed once per distinct suffix)."""
    distinct = pd.unique(suffixes.dropna())
    return suffixes.map({suffix: suffix_category(suffix) for suffix in distinct}).fillna(
        FALLBACK_CATEGORY
    )


def scores_flagged(inputs: Inputs) -> pd.DataFrame:
    """Scores of registered classifiers on committed documents, HQ strictly above threshold.

    Columns: doc_id, classifier, score, surt_host_name, language, is_hq.
    """
    thresholds = hq_thresholds()
    documents = inputs.documents[["doc_id", "surt_host_name", "language"]]
    scores = inputs.scores[inputs.scores["classifier"].isin(thresholds.index)]
    flagged = scores.merge(documents, on="doc_id", how="inner")
    flagged["score"] = flagged["score"].astype(float)
    flagged["is_hq"] = flagged["score"].to_numpy() > flagged["classifier"].map(thresholds).to_numpy(
        float
    )
    return flagged


def host_classifier_stats(inputs: Inputs, config: dict | None = None) -> pd.DataFrame:
    """A1: int_host_classifier_stats, one row per host and classifier with a score.

    Grouped on one integer per (host, classifier), numbered in name order.
    """
    flagged = scores_flagged(inputs)
    host, hosts = pd.factorize(flagged["surt_host_name"], sort=True)
    classifier, classifiers = pd.factorize(flagged["classifier"], sort=True)
    width = max(len(classifiers), 1)
    key = host.astype(np.int64) * width + classifier  # ascending: by host, then classifier
    groups = pd.Series(flagged["score"].to_numpy(float)).groupby(key, sort=True)
    result = groups.agg(["size", "median", "mean"]).set_axis(
        ["doc_count", "quality_score_median", "quality_score_mean"], axis=1
    )
    result["quality_score_var"] = groups.var(ddof=1)
    result["hq_doc_count"] = pd.Series(flagged["is_hq"].to_numpy(bool)).groupby(key).sum()
    keys = result.index.to_numpy()
    result.insert(0, "classifier", classifiers[keys % width])
    result.insert(0, "surt_host_name", hosts[keys // width])
    result = result.reset_index(drop=True)
    result["hq_density"] = result["hq_doc_count"] / result["doc_count"]
    return result


def host_mode(hosts: pd.Series, values: pd.Series) -> pd.Series:
    """Each host's most frequent non-null value (ties: the smallest); hosts with none absent."""
    pairs = pd.DataFrame({"host": hosts.to_numpy(), "value": values.to_numpy()}).dropna()
    counts = pairs.value_counts().rename("count").reset_index()
    counts = counts.sort_values(["host", "count", "value"], ascending=[True, False, True])
    return counts.drop_duplicates("host").set_index("host")["value"]


def hosts_profiled(inputs: Inputs, config: dict | None = None) -> pd.DataFrame:
    """int_hosts_profiled: one row per host of the committed documents."""
    config = config or VARS
    documents = inputs.documents
    strata = LANGUAGE_STRATA.set_index("language")["language_stratum"]
    is_english = documents["language"].map(strata).eq("english").to_numpy()
    groups = pd.Series(is_english).groupby(documents["surt_host_name"].to_numpy(), sort=True)
    hosts = pd.DataFrame({"doc_count": groups.size(), "english_doc_share": groups.mean()})
    hosts.index.name = "surt_host_name"
    for column in ("url_host_tld", "url_host_registry_suffix"):
        mode = host_mode(documents["surt_host_name"], documents[column])
        hosts[column] = hosts.index.map(mode).astype(object)
        hosts[column] = hosts[column].where(hosts[column].notna(), None)
    hosts = hosts.reset_index()
    hosts["tld_macro_category"] = suffix_categories(hosts["url_host_registry_suffix"])
    hosts["language_stratum"] = np.where(
        hosts["english_doc_share"] >= config["english_doc_share_threshold"],
        "english",
        "non_english",
    )
    ranks = inputs.host_ranks[inputs.host_ranks["release"] == config["graph_release"]]
    ranks = ranks.drop_duplicates("surt_host_name").set_index("surt_host_name")
    crawls = inputs.host_crawls[inputs.host_crawls["crawl"] == config["sample_crawl"]]
    crawls = crawls.drop_duplicates("surt_host_name").set_index("surt_host_name")
    names = hosts["surt_host_name"]
    hosts["is_in_graph"] = names.isin(ranks.index)
    hosts["hc_val"] = names.map(ranks["hc_val"]).astype(float)
    hosts["pr_val"] = names.map(ranks["pr_val"]).astype(float)
    for column in ("known_url_count", "fetched_url_count"):
        if column in crawls.columns:
            hosts[column] = names.map(crawls[column]).astype(float)
    return hosts


def host_universe(
    inputs: Inputs,
    config: dict | None = None,
    stats: pd.DataFrame | None = None,
    profiles: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """§4.0 U_c: host statistics of hosts with >= min_docs_per_host pages that are graph nodes.

    One row per host and classifier, with the host's profile (``hosts_profiled``). ``stats``
    and ``profiles``, when given, are those of ``inputs`` (computed once by a caller).
    """
    config = config or VARS
    stats = host_classifier_stats(inputs, config) if stats is None else stats
    stats = stats[stats["doc_count"] >= config["min_docs_per_host"]]
    profiles = hosts_profiled(inputs, config) if profiles is None else profiles
    profiles = profiles.drop(columns=["doc_count"])
    universe = stats.merge(profiles, on="surt_host_name")
    return universe[universe["is_in_graph"]].reset_index(drop=True)
