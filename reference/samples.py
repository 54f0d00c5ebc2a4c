"""The RQ3 pages, their within-host sample order, and A5 k-sample predictiveness.

docs/definitions.md A5 and §4.0:

* Pages: ``classified`` = the sample's documents with a score of the classifier (HQ = score
  above the registry threshold); ``fullcrawl`` = the page-level annotations of
  ``fullcrawl_crawl``, HQ and score by their annotation profile's rule
  (``seeds/annotation_profiles.csv``: ``in_gneissweb``, ``quality_score_above`` or
  ``int_score_at_least``; the score is the quality score, else the flag as 0/1), the dataset's
  classifier named by the profile. A crawl under two page-level profiles is refused.
* Sample order within a host and seed s: md5_number(key || ':' || s), then the key (the doc_id,
  or the annotation's page key).
* A5: for k = 1 … ``sample_size_max`` and host set ``variable`` (n_h ≥ k + 1) or ``fixed``
  (n_h ≥ ``fixed_host_set_min_pages``), the Spearman over hosts of the sample's HQ density
  against the remaining pages', per seed; the mean, sd, min and max over the seeds where it is
  defined, and the mean's bootstrap interval over hosts (the normal limit, each host's
  influence averaged over the seeds: ``seed_mean_spearman_influence``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from reference.bootstrap import normal_interval, seed_mean_spearman_influence
from reference.config import ANNOTATION_PROFILES, VARS
from reference.hosts import scores_flagged
from reference.lake import Inputs
from reference.stats import md5_order, spearman, summary

__all__ = [
    "SCORE_UNITS",
    "Sampled",
    "dataset_pages",
    "flag_values",
    "pages_flagged",
    "sample_pages",
    "sample_ranks",
    "sample_size_correlation",
    "sampled_datasets",
]

# sample_then_deepen's second key, the sample's mean score, is the mean of the scores rounded
# to 15 decimals (in units of 1e-15 the sums are exact integers, so means equal in decimals tie)
SCORE_UNITS = 1e15


def flag_values(flags: pd.Series) -> np.ndarray:
    """A nullable flag column as floats: 1.0 true, 0.0 false, NaN null."""
    known = flags.notna().to_numpy()
    values = np.full(len(flags), np.nan)
    values[known] = flags[known].astype(bool).to_numpy(float)
    return values


def pages_flagged(inputs: Inputs, profile: str | None = VARS["annotation_profile"]) -> pd.DataFrame:
    """Page-level annotations with ``is_hq`` by their profile's rule and ``signal_score``.

    Only those of ``profile`` (the ``annotation_profile`` var) when it is set. Each rule is
    applied once to the pages of its profiles (a handful of profiles, millions of pages).

    Raises:
        ValueError: a page of a host-level profile, a page without its rule's signal, or a crawl
            annotated under two profiles.
    """
    pages = inputs.annotations
    if profile is not None:
        chosen = (pages["annotation_profile"] == profile).to_numpy(bool)
        pages = pages if chosen.all() else pages[chosen]
    codes, profiles = pd.factorize(pages["annotation_profile"])
    rules = ANNOTATION_PROFILES.reindex(profiles)
    if (codes < 0).any() or not (rules["annotation_level"] == "page").all():
        raise ValueError("page annotations under a profile that is not page level")
    quality = pd.to_numeric(pages["quality_score"], errors="coerce").to_numpy(float)
    int_score = pd.to_numeric(pages["quality_int_score"], errors="coerce").to_numpy(float)
    signals = {
        "in_gneissweb": lambda: flag_values(pages["in_gneissweb"]),
        "quality_score_above": lambda: quality,
        "int_score_at_least": lambda: int_score,
    }
    is_hq = np.full(len(pages), np.nan)
    for code, (rule, threshold) in enumerate(rules[["hq_rule", "hq_threshold"]].itertuples(False)):
        if rule not in signals:
            continue  # its pages stay without a signal
        mine = codes == code
        signal = signals[rule]()[mine]
        if rule == "quality_score_above":
            signal = np.where(np.isnan(signal), np.nan, signal > threshold)
        elif rule == "int_score_at_least":
            signal = np.where(np.isnan(signal), np.nan, signal >= threshold)
        is_hq[mine] = signal
    if np.isnan(is_hq).any():
        raise ValueError(f"{int(np.isnan(is_hq).sum())} pages without their profile's signal")
    crawl, crawls = pd.factorize(pages["crawl"])
    pairs = np.unique(crawl.astype(np.int64) * max(len(profiles), 1) + codes)
    per_crawl = np.bincount(pairs // max(len(profiles), 1), minlength=len(crawls))
    if (per_crawl > 1).any():
        raise ValueError(f"crawls annotated under two profiles: {list(crawls[per_crawl > 1])}")
    return pages.assign(is_hq=is_hq > 0, signal_score=np.where(np.isnan(quality), is_hq, quality))


def dataset_pages(
    inputs: Inputs, fullcrawl: str = VARS["fullcrawl_crawl"], config: dict | None = None
) -> dict[tuple[str, str], pd.DataFrame]:
    """(dataset, classifier) → pages: doc_id, surt_host_name, score, is_hq."""
    pages = {}
    flagged = scores_flagged(inputs)
    for classifier, group in flagged.groupby("classifier", sort=True):
        pages[("classified", classifier)] = group[["doc_id", "surt_host_name", "score", "is_hq"]]
    annotated = pages_flagged(inputs, (config or VARS)["annotation_profile"])
    chosen = (annotated["crawl"] == fullcrawl).to_numpy(bool)
    of_crawl = annotated if chosen.all() else annotated[chosen]  # no copy of 28.8M page keys
    of_crawl = of_crawl.rename(columns={"page_key": "doc_id", "signal_score": "score"})
    profiles = sorted(of_crawl["annotation_profile"].unique())
    for profile in profiles:
        mine = of_crawl["annotation_profile"] == profile
        group = of_crawl if len(profiles) == 1 else of_crawl[mine]
        pages[("fullcrawl", profile)] = group[["doc_id", "surt_host_name", "score", "is_hq"]]
    return pages


def sample_ranks(doc_ids: pd.Series, seeds: int = VARS["sample_seeds"]) -> np.ndarray:
    """Per seed s, each page's rank in md5_number(doc_id || ':' || s) order, then doc_id.

    Computed once over a dataset's pages, it orders every subset of them (one classifier's
    pages, one host's) as the subset's own md5 order would: ``ranks[s - 1, i]``. The doc_id
    decides only between equal digests (the same doc_id twice, or an md5 collision), so it is
    sorted only when two digests are equal.
    """
    ranks = np.empty((seeds, len(doc_ids)), dtype=np.int32)
    for seed in range(1, seeds + 1):
        order = md5_order(doc_ids, f":{seed}", ties=lambda: pd.factorize(doc_ids, sort=True)[0])
        ranks[seed - 1, order] = np.arange(len(doc_ids), dtype=np.int32)
    return ranks


@dataclass(frozen=True)
class Sampled:
    """One dataset × classifier's pages by host, with each page's sample position per seed.

    ``position[s, i]`` is page i's 0-based position in its host's sample order of seed s + 1.
    """

    host_names: np.ndarray  # the hosts, by name
    host: np.ndarray  # each page's host (its index in host_names)
    is_hq: np.ndarray
    score: np.ndarray
    position: np.ndarray
    page_count: np.ndarray  # per host
    hq_count: np.ndarray  # per host

    def sample_hq(self, seed: int, size: int | np.ndarray) -> np.ndarray:
        """Per host, the HQ pages among its first ``size`` pages (per host, or one size)."""
        limit = np.broadcast_to(size, self.page_count.shape)[self.host]
        head = self.position[seed - 1] < limit
        return np.bincount(self.host[head], self.is_hq[head], len(self.host_names)).astype(int)

    def sample_score_mean(self, seed: int, size: int | np.ndarray) -> np.ndarray:
        """Per host, the mean score of its first min(n, size) pages, rounded to 15 decimals."""
        limit = np.broadcast_to(size, self.page_count.shape)[self.host]
        head = self.position[seed - 1] < limit
        units = np.round(self.score[head] * SCORE_UNITS)
        total = np.bincount(self.host[head], units, len(self.host_names))
        taken = np.bincount(self.host[head], minlength=len(self.host_names))
        with np.errstate(invalid="ignore", divide="ignore"):
            return total / taken


def sample_pages(
    pages: pd.DataFrame, seeds: int = VARS["sample_seeds"], ranks: np.ndarray | None = None
) -> Sampled:
    """``Sampled`` of a pages frame (doc_id, surt_host_name, score, is_hq).

    ``ranks``, when given, is ``ranks[s - 1, i]``: page i's rank in the seed's order among a
    superset of the pages (``sample_ranks`` of them, taken at these pages), so that several
    classifiers' pages share one md5 per page.
    """
    host, names = pd.factorize(pages["surt_host_name"], sort=True)
    page_ranks = sample_ranks(pages["doc_id"], seeds) if ranks is None else ranks
    position = np.empty((seeds, len(pages)), dtype=np.int32)
    width = np.int64(page_ranks.max(initial=-1)) + 1  # ranks are below it
    for seed in range(1, seeds + 1):
        # by host, then rank: one sort of a single 64-bit key
        order = np.argsort(host * width + page_ranks[seed - 1], kind="stable")
        sorted_host = host[order]
        starts = np.r_[0, np.flatnonzero(sorted_host[1:] != sorted_host[:-1]) + 1]
        lengths = np.diff(np.r_[starts, len(order)])
        position[seed - 1, order] = np.arange(len(order)) - np.repeat(starts, lengths)
    is_hq = pages["is_hq"].to_numpy(bool)
    return Sampled(
        host_names=np.asarray(names, dtype=object),
        host=host,
        is_hq=is_hq,
        score=pages["score"].to_numpy(float),
        position=position,
        page_count=np.bincount(host, minlength=len(names)),
        hq_count=np.bincount(host, is_hq, len(names)).astype(int),
    )


def sample_size_correlation(
    samples: dict[tuple[str, str], Sampled], config: dict | None = None
) -> pd.DataFrame:
    """rpt_sample_size_correlation: one row per dataset, classifier, k and host set."""
    config = config or VARS
    largest = int(config["sample_size_max"])
    fixed_minimum = int(config["fixed_host_set_min_pages"])
    seeds = int(config["sample_seeds"])
    rows = []
    for (dataset, classifier), sampled in samples.items():
        n, hq = sampled.page_count, sampled.hq_count
        # per seed: hosts × k, the HQ pages among the first k
        cumulative = np.zeros((seeds, len(n), largest), dtype=np.int32)
        for seed in range(seeds):
            head = sampled.position[seed] < largest  # one page per (host, position)
            cumulative[seed, sampled.host[head], sampled.position[seed][head]] = sampled.is_hq[head]
        np.cumsum(cumulative, axis=2, out=cumulative)
        for size in range(1, largest + 1):
            for host_set, minimum in (("variable", size + 1), ("fixed", fixed_minimum)):
                eligible = n >= minimum
                if not eligible.any():
                    continue
                rhos, pairs = [], []
                for seed in range(seeds):
                    s = cumulative[seed, eligible, size - 1]
                    remaining = (hq[eligible] - s) / (n[eligible] - size)
                    pairs.append((s / size, remaining))
                    rho = spearman(s / size, remaining)
                    if not np.isnan(rho):
                        rhos.append(rho)
                result = summary(rhos)
                # the bootstrap's normal limit for the mean over seeds (docs/definitions.md B)
                _, influence = seed_mean_spearman_influence(pairs)
                rows.append(
                    {
                        "dataset": dataset,
                        "classifier": classifier,
                        "sample_size": size,
                        "host_set": host_set,
                        "host_count": int(eligible.sum()),
                        "seed_count": len(rhos),
                        "spearman_rho": result["mean"],
                        "spearman_rho_sd": result["sd"],
                        "spearman_rho_min": result["min"],
                        "spearman_rho_max": result["max"],
                    }
                    | normal_interval(
                        result["mean"],
                        float(influence @ influence),
                        "spearman_rho",
                        config,
                        (-1, 1),
                    )
                )
    return pd.DataFrame(rows)


def sampled_datasets(
    pages: dict[tuple[str, str], pd.DataFrame], seeds: int = VARS["sample_seeds"]
) -> dict[tuple[str, str], Sampled]:
    """``sample_pages`` of every dataset × classifier, one md5 per page and seed per dataset."""
    result = {}
    for dataset in sorted({dataset for dataset, _ in pages}):
        keys = [key for key in pages if key[0] == dataset]
        codes, doc_ids = pd.factorize(pd.concat([pages[key]["doc_id"] for key in keys]))
        ranks = sample_ranks(pd.Series(doc_ids), seeds)
        bounds = np.cumsum([0, *(len(pages[key]) for key in keys)])
        for key, start, stop in zip(keys, bounds[:-1], bounds[1:], strict=True):
            result[key] = sample_pages(pages[key], seeds, ranks[:, codes[start:stop]])
    return result
