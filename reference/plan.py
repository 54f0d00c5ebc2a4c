"""The crawl plan: plan_host_fetch_budget and plan_diversity, from the plan's population.

Written from the contract (models/marts/plan/plan_host_fetch_budget.yml's description, see
docs/warehouse.md), over the rows of int_plan_hosts:

* Budget B = ``plan_budget_pages``, or floor(``plan_budget_share`` × Σ known URLs), the share
  read as the decimal written. prior = Σ sampled HQ pages / Σ sampled pages of the
  ``known_quality`` hosts (0 without any).
* Exploration E = min(floor(B × ``plan_exploration_share``), Σ known of the
  ``unreliable_quality`` hosts). The water level c solves Σ min(known, c) = E; L = floor(c);
  each such host gets min(known, L), and the whole pages left over go one each to the hosts
  above L in ascending random order.
* The queue (budget B − E): segments in step order, each taken whole while the budget lasts and
  the last in part. Steps 1/3: k-page samples of the ``unknown_quality`` hosts in random order,
  step 1 while the running total of samples ≤ floor(B × ``plan_max_sample_share``); 2 and 5:
  whole ``known_quality`` hosts at or above / below the prior density (density desc, known
  desc, random order); 4: the rest of the unknown hosts; 6: the rest of the exploration hosts.
* Phase, hq_density_estimate and expected_hq as the column docs say; plan_diversity groups the
  plan's hosts with known URLs by language stratum and by TLD category.

Random orders are integers beyond 64 bits: they are ordered as Python integers, exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from reference.config import VARS, decimal

__all__ = ["Plan", "Walk", "plan_diversity", "plan_host_fetch_budget", "water_level"]


@dataclass
class Walk:
    """What a plan's walk reached, to check that settings cover every branch."""

    budget: int
    exploration: int
    exploration_left_over: int  # whole pages handed out one each above the level
    queue_budget: int
    steps_taken: set[int] = field(default_factory=set)  # steps with a page taken
    partial_step: int | None = None  # the step of the segment the budget ends inside


@dataclass
class Plan:
    """The plan's rows (plan_host_fetch_budget's columns) and its walk."""

    plan: pd.DataFrame
    walk: Walk


def water_level(capacities: Sequence[int], pages: int) -> Fraction:
    """The real level c with Σ min(capacity, c) = pages (0 when there is nothing to spend).

    Raises:
        ValueError: pages below 0 or above Σ capacities.
    """
    ordered = np.sort(np.asarray(capacities, dtype=np.int64))
    if not 0 <= pages <= int(ordered.sum()):
        raise ValueError(f"{pages} pages for a capacity of {int(ordered.sum())}")
    if pages == 0:
        return Fraction(0)
    filled = np.r_[0, np.cumsum(ordered)[:-1]]
    hosts_left = len(ordered) - np.arange(len(ordered))
    # the first host the level (pages - filled) / hosts_left does not saturate
    first = int(np.argmax(pages - filled <= ordered * hosts_left))
    return Fraction(int(pages - filled[first]), int(hosts_left[first]))


def _ranks(values: Sequence[int]) -> np.ndarray:
    """Each value's position in ascending order (exact on Python integers of any size)."""
    order = np.argsort(np.array(list(values), dtype=object), kind="stable")
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def plan_host_fetch_budget(population: pd.DataFrame, overrides: dict | None = None) -> Plan:
    """The plan of ``population`` (int_plan_hosts rows) under the vars and ``overrides``."""
    plan_vars = {**VARS, **(overrides or {})}
    k = int(plan_vars["plan_sample_size"])
    group = population["quality_group"].to_numpy(object)
    known = population["known_url_count"].to_numpy(np.int64)
    sampled = population["sampled_page_count"].to_numpy(np.int64)
    sampled_hq = population["sampled_hq_page_count"].to_numpy(np.int64)
    rank = _ranks(int(value) for value in population["random_order"])
    with np.errstate(invalid="ignore", divide="ignore"):
        density = np.where(sampled > 0, sampled_hq / np.maximum(sampled, 1), np.nan)
    if plan_vars["plan_budget_pages"] is not None:
        budget = int(plan_vars["plan_budget_pages"])
    else:
        budget = math.floor(decimal(plan_vars["plan_budget_share"]) * int(known.sum()))
    is_known, is_unknown = group == "known_quality", group == "unknown_quality"
    prior_pages, prior_hq = int(sampled[is_known].sum()), int(sampled_hq[is_known].sum())
    prior = Fraction(prior_hq, prior_pages) if prior_pages > 0 else Fraction(0)

    # Exploration: water-filling over the unreliable hosts, then the whole pages left over.
    explorers = (group == "unreliable_quality") & (known > 0)
    exploration = min(
        math.floor(budget * decimal(plan_vars["plan_exploration_share"])),
        int(known[explorers].sum()),
    )
    level = math.floor(water_level(known[explorers], exploration))
    explored = np.where(explorers, np.minimum(known, level), 0)
    left_over = exploration - int(explored.sum())
    above = np.flatnonzero(explorers & (known > level))
    explored[above[np.argsort(rank[above])][:left_over]] += 1

    # The queue: segments (step, density key, known key, random order, host, kind, pages).
    unknown = np.flatnonzero(is_unknown & (known > 0))
    unknown = unknown[np.argsort(rank[unknown])]
    samples = np.minimum(known[unknown], k)
    cap = math.floor(budget * decimal(plan_vars["plan_max_sample_share"]))
    sample_step = np.where(np.cumsum(samples) <= cap, 1, 3)
    deep = unknown[known[unknown] > k]
    judged = np.flatnonzero(is_known & (known > 0))
    at_prior = sampled_hq[judged] * prior.denominator >= prior.numerator * sampled[judged]
    rest = np.flatnonzero(explorers & (known - explored > 0))
    parts = [  # (step, hosts, kind, pages)
        (sample_step, unknown, "sample", samples),
        (np.full(len(deep), 4), deep, "deepen", known[deep] - k),
        (np.where(at_prior, 2, 5), judged, "deepen", known[judged]),
        (np.full(len(rest), 6), rest, "explore", known[rest] - explored[rest]),
    ]
    step = np.concatenate([p[0] for p in parts]).astype(np.int64)
    host = np.concatenate([p[1] for p in parts]).astype(np.int64)
    kind = np.concatenate([np.full(len(p[1]), p[2]) for p in parts])
    pages = np.concatenate([p[3] for p in parts]).astype(np.int64)
    by_density = np.isin(step, (2, 5))
    order = np.lexsort(
        (
            rank[host],
            np.where(by_density, -known[host], 0),
            np.where(by_density, -np.nan_to_num(density[host]), 0.0),
            step,
        )
    )
    step, host, kind, pages = step[order], host[order], kind[order], pages[order]
    left = budget - exploration - (np.cumsum(pages) - pages)
    take = np.clip(left, 0, pages)
    walk = Walk(budget, exploration, left_over, budget - exploration)
    walk.steps_taken = {int(s) for s in step[take > 0]}
    partial = step[(take > 0) & (take < pages)]
    walk.partial_step = int(partial[-1]) if len(partial) else None
    taken = {
        name: np.bincount(host[kind == name], take[kind == name], len(population)).astype(int)
        for name in ("sample", "deepen", "explore")
    }
    pages_explored = explored + taken["explore"]
    to_fetch = taken["sample"] + taken["deepen"] + pages_explored
    estimate = np.where(
        is_known | ((group == "unreliable_quality") & ~np.isnan(density)), density, float(prior)
    )
    phase = np.select(
        [to_fetch == 0, group == "unreliable_quality", taken["deepen"] > 0],
        ["skip", "explore", "deepen"],
        "sample",
    )
    strata = {
        column: population[column].to_numpy() if column in population else None
        for column in ("language_stratum", "tld_macro_category")
    }
    plan = pd.DataFrame(
        {
            "surt_host_name": population["surt_host_name"].to_numpy(),
            "phase": phase,
            "quality_group": group,
            "language_stratum": strata["language_stratum"],
            "tld_macro_category": strata["tld_macro_category"],
            "known_url_count": known,
            "sampled_page_count": sampled,
            "sampled_hq_density": density,
            "hq_density_estimate": estimate,
            "pages_sampled": taken["sample"],
            "pages_deepened": taken["deepen"],
            "pages_explored": pages_explored,
            "pages_to_fetch": to_fetch,
            "expected_hq": to_fetch * estimate,
        }
    )
    return Plan(plan, walk)


def plan_diversity(plan: pd.DataFrame) -> pd.DataFrame:
    """plan_diversity: the plan's hosts with known URLs by language stratum and TLD category."""
    population = plan[plan["known_url_count"] > 0].assign(
        is_planned=lambda frame: frame["pages_to_fetch"] > 0
    )
    frames = []
    for dimension in ("language_stratum", "tld_macro_category"):
        grouped = population.groupby(dimension, dropna=False).agg(
            population_host_count=("surt_host_name", "size"),
            plan_host_count=("is_planned", "sum"),
            known_url_count=("known_url_count", "sum"),
            plan_page_count=("pages_to_fetch", "sum"),
            expected_hq=("expected_hq", "sum"),
        )
        totals = grouped.sum()

        def share(column: str, totals: pd.Series = totals, grouped: pd.DataFrame = grouped):
            total = totals[column]
            return grouped[column] / total if total != 0 else np.nan

        grouped["population_host_share"] = share("population_host_count")
        grouped["plan_host_share"] = share("plan_host_count")
        grouped["host_coverage"] = grouped["plan_host_count"] / grouped["population_host_count"]
        grouped["plan_page_share"] = share("plan_page_count")
        grouped["expected_hq_share"] = share("expected_hq")
        grouped["representation_ratio"] = (
            grouped["plan_host_share"] / grouped["population_host_share"]
        )
        frames.append(grouped.reset_index(names="dimension_value").assign(dimension=dimension))
    return pd.concat(frames, ignore_index=True)
