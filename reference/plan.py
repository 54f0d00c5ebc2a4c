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
* Constraints. Each host may be given at most its plannable pages: its known URLs, less what
  its robots.txt answers rule out (``plan_robots_constraint``: a request failed when answered
  5xx, or a 4xx but 404/410 unless ``plan_robots_refusal_fails`` is false; ``exclude`` gives a
  host whose every request failed nothing, ``reduce`` also gives one with some failed
  floor(known × not failed / requests)), at most the politeness cap (``plan_max_pages_per_host``,
  else floor(``plan_crawl_days`` × 86,400 / ``plan_min_crawl_delay_seconds``), none at delay 0).
  The walk above reads plannable pages where it says known.
* Floors (``plan_language_floors``, ``plan_tld_category_floors``): each group's least pages
  floor(B × share), less what exploration gave its hosts, are reserved first: down the queue in
  its order, among the group's own segments, each segment whole while the reserve lasts and
  the last in part; a segment two floors reserve is reserved as the larger says. The walk then
  takes, with B − E − Σ reserved, what the reserves left of each segment.
* Phase, hq_density_estimate and expected_hq as the column docs say; plan_diversity groups the
  plan's hosts with known URLs by language stratum and by TLD category. plan_constraint_costs
  is the plan again with each constraint switched off by its vars (``SCENARIOS``);
  plan_changes compares the plan with the previous crawl's, planned from that crawl's rows of
  int_plan_hosts by the same function.

Random orders are integers beyond 64 bits: they are ranked exactly, on their two 64-bit halves.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from reference.bootstrap import normal_interval
from reference.config import VARS, decimal

__all__ = [
    "MART_COLUMNS",
    "SCENARIOS",
    "Plan",
    "Walk",
    "expected_hq_variance",
    "plan_changes",
    "plan_constraint_costs",
    "plan_diversity",
    "plan_host_fetch_budget",
    "population_query",
    "water_level",
]

_NO_ROBOTS = {"plan_robots_constraint": "off"}
_NO_CAP = {"plan_max_pages_per_host": None, "plan_min_crawl_delay_seconds": 0}
_NO_FLOORS = {"plan_language_floors": {}, "plan_tld_category_floors": {}}
# plan_constraint_costs' rows: the vars each way of planning overrides (the plan: none).
SCENARIOS: dict[str, dict] = {
    "plan": {},
    "unconstrained": {**_NO_ROBOTS, **_NO_CAP, **_NO_FLOORS},
    "robots_only": {**_NO_CAP, **_NO_FLOORS},
    "politeness_cap_only": {**_NO_ROBOTS, **_NO_FLOORS},
    "floors_only": {**_NO_ROBOTS, **_NO_CAP},
}

# int_plan_hosts' columns the plan is computed from (random_order apart: see _ranks)
POPULATION_COLUMNS = [
    "surt_host_name",
    "quality_group",
    "language_stratum",
    "tld_macro_category",
    "known_url_count",
    "sampled_page_count",
    "sampled_hq_page_count",
    "sampled_hq_density",
    "robots_request_count",
    "robots_unreachable_count",
    "robots_refused_count",
]


def population_query(role: str) -> str:
    """SQL for one crawl's population in int_plan_hosts (``role``: current or previous).

    The columns the functions here read, random_order as its two 64-bit halves
    (``random_order_high``, ``random_order_low``): exact, and DuckDB casts a 128-bit integer to
    text at ~28 s a million rows.
    """
    columns = ", ".join(POPULATION_COLUMNS)
    return (
        f"select {columns}, (random_order >> 64)::ubigint as random_order_high, "
        f"(random_order & {(1 << 64) - 1}::uhugeint)::ubigint as random_order_low "
        f"from int_plan_hosts where plan_role = '{role}'"
    )


# Each mart's columns as its comparison with the warehouse takes them: the keys, the columns
# compared exactly (strings, flags, nullable integers), the integers, the floats.
MART_COLUMNS: dict[str, tuple[list[str], list[str], list[str], list[str]]] = {
    "plan_host_fetch_budget": (
        ["surt_host_name"],
        [
            "phase",
            "robots_constraint",
            "quality_group",
            "language_stratum",
            "tld_macro_category",
            "robots_status",
            "is_politeness_capped",
        ],
        [
            "known_url_count",
            "robots_request_count",
            "robots_failed_count",
            "plannable_page_count",
            "sampled_page_count",
            "pages_sampled",
            "pages_deepened",
            "pages_explored",
            "pages_reserved",
            "pages_to_fetch",
        ],
        ["sampled_hq_density", "hq_density_estimate", "crawl_delay_seconds", "expected_hq"],
    ),
    "plan_diversity": (
        ["dimension", "dimension_value"],
        ["floor_page_count", "is_floor_met"],
        ["population_host_count", "known_url_count", "plan_host_count", "plan_page_count"],
        [
            "population_host_share",
            "plan_host_share",
            "host_coverage",
            "plan_page_share",
            "expected_hq",
            "expected_hq_share",
            "representation_ratio",
            "floor_share",
        ],
    ),
    "plan_constraint_costs": (
        ["scenario"],
        ["page_cap"],
        [
            "budget_pages",
            "plannable_page_count",
            "plan_host_count",
            "plan_page_count",
            "robots_excluded_host_count",
            "robots_reduced_host_count",
            "robots_removed_page_count",
            "capped_host_count",
            "capped_page_count",
            "floor_reserved_page_count",
        ],
        [
            "page_cap_crawl_delay_seconds",
            "expected_hq",
            "expected_hq_ci_low",
            "expected_hq_ci_high",
            "expected_hq_se",
            "expected_hq_share",
            "expected_hq_cost",
        ],
    ),
    "plan_changes": (
        ["surt_host_name"],
        ["change_reason", "phase_before", "phase_after"],
        [
            "known_url_count_before",
            "known_url_count_after",
            "pages_before",
            "pages_after",
            "page_change",
        ],
        ["expected_hq_before", "expected_hq_after"],
    ),
}


@dataclass
class Walk:
    """What a plan's walk reached, to check that settings cover every branch."""

    budget: int
    exploration: int
    exploration_left_over: int  # whole pages handed out one each above the level
    queue_budget: int
    reserved: int = 0  # pages the floors reserved
    page_cap: int | None = None
    crawl_seconds: Fraction = Fraction(0)
    steps_taken: set[int] = field(default_factory=set)  # steps with a page taken
    partial_step: int | None = None  # the step of the segment the budget ends inside
    prior_pages: int = 0  # S, the pages sampled on the hosts of known quality
    prior_variance: float = math.nan  # the prior's bootstrap variance over those hosts


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


def _ranks(population: pd.DataFrame) -> np.ndarray:
    """Each host's position in ascending random_order, exactly (ties in input order).

    The order is an integer beyond 64 bits: given as ``random_order`` (Python integers or their
    decimal strings) or as its two 64-bit halves (``random_order_high``, ``random_order_low``,
    as ``population_query`` reads them); it is ranked on the halves.
    """
    if "random_order" in population:
        values = [int(value) for value in population["random_order"]]
        high = np.array([value >> 64 for value in values], dtype=np.uint64)
        low = np.array([value & ((1 << 64) - 1) for value in values], dtype=np.uint64)
    else:
        high = population["random_order_high"].to_numpy(np.uint64)
        low = population["random_order_low"].to_numpy(np.uint64)
    order = np.lexsort((low, high))
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


def _robots(population: pd.DataFrame, plan_vars: dict) -> tuple[np.ndarray, ...]:
    """Each host's robots.txt requests, failed requests, status and the pages they allow."""
    known = population["known_url_count"].to_numpy(np.int64)

    def column(name: str) -> np.ndarray:
        if name not in population:
            return np.zeros(len(population), dtype=np.int64)
        return population[name].fillna(0).to_numpy(np.int64)

    requests = column("robots_request_count")
    failed = column("robots_unreachable_count")
    if plan_vars["plan_robots_refusal_fails"]:
        failed = failed + column("robots_refused_count")
    status = np.select(
        [requests == 0, failed == 0, failed == requests],
        ["not_requested", "ok", "failed"],
        "partly_failed",
    )
    policy = plan_vars["plan_robots_constraint"]
    if policy not in ("off", "exclude", "reduce"):
        raise ValueError(f"plan_robots_constraint: {policy!r}")
    allowed = known.copy()
    if policy != "off":
        allowed[status == "failed"] = 0
    if policy == "reduce":
        partly = status == "partly_failed"
        allowed[partly] = known[partly] * (requests[partly] - failed[partly]) // requests[partly]
    return requests, failed, status, allowed


def _page_cap(plan_vars: dict) -> tuple[int | None, Fraction]:
    """The politeness cap in pages (None without one) and the crawl's seconds."""
    seconds = decimal(plan_vars["plan_crawl_days"]) * 86400
    if plan_vars["plan_max_pages_per_host"] is not None:
        return int(plan_vars["plan_max_pages_per_host"]), seconds
    delay = decimal(plan_vars["plan_min_crawl_delay_seconds"])
    return (math.floor(seconds / delay) if delay > 0 else None), seconds


def _floors(plan_vars: dict) -> list[tuple[str, str, Fraction]]:
    return [
        (dimension, value, decimal(share))
        for dimension, name in (
            ("language_stratum", "plan_language_floors"),
            ("tld_macro_category", "plan_tld_category_floors"),
        )
        for value, share in sorted((plan_vars[name] or {}).items())
    ]


def plan_host_fetch_budget(population: pd.DataFrame, overrides: dict | None = None) -> Plan:
    """The plan of ``population`` (int_plan_hosts rows) under the vars and ``overrides``."""
    plan_vars = {**VARS, **(overrides or {})}
    k = int(plan_vars["plan_sample_size"])
    group = population["quality_group"].to_numpy(object)
    known_urls = population["known_url_count"].to_numpy(np.int64)
    requests, failed, robots_status, allowed = _robots(population, plan_vars)
    page_cap, crawl_seconds = _page_cap(plan_vars)
    # the walk reads what each host may be given where the contract says known URLs
    known = allowed if page_cap is None else np.minimum(allowed, page_cap)
    sampled = population["sampled_page_count"].to_numpy(np.int64)
    sampled_hq = population["sampled_hq_page_count"].to_numpy(np.int64)
    rank = _ranks(population)
    with np.errstate(invalid="ignore", divide="ignore"):
        density = np.where(sampled > 0, sampled_hq / np.maximum(sampled, 1), np.nan)
    if plan_vars["plan_budget_pages"] is not None:
        budget = int(plan_vars["plan_budget_pages"])
    else:
        budget = math.floor(decimal(plan_vars["plan_budget_share"]) * int(known_urls.sum()))
    is_known, is_unknown = group == "known_quality", group == "unknown_quality"
    prior_pages, prior_hq = int(sampled[is_known].sum()), int(sampled_hq[is_known].sum())
    prior = Fraction(prior_hq, prior_pages) if prior_pages > 0 else Fraction(0)
    # the prior's Poisson bootstrap over the hosts of known quality, to first order
    prior_influence = (sampled_hq[is_known] - float(prior) * sampled[is_known]) / prior_pages
    prior_variance = float(prior_influence @ prior_influence) if prior_pages > 0 else math.nan

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

    # The floors' reserves, each down the queue among its group's segments.
    reserved = np.zeros(len(pages), dtype=np.int64)
    strata = {
        column: population[column].to_numpy(object) if column in population else None
        for column in ("language_stratum", "tld_macro_category")
    }
    for dimension, value, share in _floors(plan_vars):
        values = strata[dimension]
        in_group = values == value if values is not None else np.zeros(len(group), dtype=bool)
        reserve = max(math.floor(budget * share) - int(explored[in_group].sum()), 0)
        segments = np.flatnonzero(in_group[host])
        before = np.cumsum(pages[segments]) - pages[segments]
        reserved[segments] = np.maximum(
            reserved[segments], np.clip(reserve - before, 0, pages[segments])
        )
    rest = pages - reserved
    left = budget - exploration - int(reserved.sum()) - (np.cumsum(rest) - rest)
    take = reserved + np.clip(left, 0, rest)
    walk = Walk(budget, exploration, left_over, budget - exploration, int(reserved.sum()))
    walk.prior_pages, walk.prior_variance = prior_pages, prior_variance
    walk.page_cap, walk.crawl_seconds = page_cap, crawl_seconds
    walk.steps_taken = {int(s) for s in step[take > 0]}
    partial = step[(take > 0) & (take < pages)]
    walk.partial_step = int(partial[-1]) if len(partial) else None
    taken = {
        name: np.bincount(host[kind == name], take[kind == name], len(population)).astype(int)
        for name in ("sample", "deepen", "explore")
    }
    pages_reserved = np.bincount(host, reserved, len(population)).astype(int)
    pages_explored = explored + taken["explore"]
    to_fetch = taken["sample"] + taken["deepen"] + pages_explored
    own = is_known | ((group == "unreliable_quality") & ~np.isnan(density))
    estimate = np.where(own, density, float(prior))
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = np.where(own, density * (1 - density) / sampled, np.nan)
    phase = np.select(
        [to_fetch == 0, group == "unreliable_quality", taken["deepen"] > 0],
        ["skip", "explore", "deepen"],
        "sample",
    )
    with np.errstate(divide="ignore"):
        delay = np.where(to_fetch > 0, float(crawl_seconds) / np.maximum(to_fetch, 1), np.nan)
    robots_constraint = np.full(len(population), None, dtype=object)
    robots_constraint[allowed < known_urls] = "robots_reduced"
    robots_constraint[(robots_status == "failed") & (allowed == 0) & (known_urls > 0)] = (
        "robots_failed"
    )
    plan = pd.DataFrame(
        {
            "surt_host_name": population["surt_host_name"].to_numpy(),
            "phase": phase,
            "robots_constraint": robots_constraint,
            "quality_group": group,
            "language_stratum": strata["language_stratum"],
            "tld_macro_category": strata["tld_macro_category"],
            "robots_status": robots_status,
            "known_url_count": known_urls,
            "robots_request_count": requests,
            "robots_failed_count": failed,
            "robots_allowed_page_count": allowed,
            "plannable_page_count": known,
            "sampled_page_count": sampled,
            "sampled_hq_density": density,
            "hq_density_estimate": estimate,
            "hq_density_variance": variance,
            "is_prior_estimate": ~own,
            "pages_sampled": taken["sample"],
            "pages_deepened": taken["deepen"],
            "pages_explored": pages_explored,
            "pages_reserved": pages_reserved,
            "pages_to_fetch": to_fetch,
            "crawl_delay_seconds": delay,
            "expected_hq": to_fetch * estimate,
            "is_politeness_capped": known < allowed,
        }
    )
    return Plan(plan, walk)


def expected_hq_variance(plan: pd.DataFrame, walk: Walk) -> float:
    """The variance of the plan's expected HQ, the plan fixed (docs/definitions.md B).

    E = Σ_own a d + A·prior: the prior's bootstrap over the hosts of known quality (A² var),
    each own estimate's binomial variance (a² d (1 − d) / s), and twice their covariance
    through the known hosts' samples, in both (A / S Σ_known a d (1 − d)). NaN without hosts
    of known quality when some pages take the prior.
    """
    own = ~plan["is_prior_estimate"].to_numpy(bool)
    pages = plan["pages_to_fetch"].to_numpy(float)
    variance = plan["hq_density_variance"].to_numpy(float)
    sampled = plan["sampled_page_count"].to_numpy(float)
    variance_sum = float(pages[own] ** 2 @ variance[own])
    prior_pages = float(pages[~own].sum())
    if prior_pages:
        if not walk.prior_pages:
            return math.nan
        known = (plan["quality_group"] == "known_quality").to_numpy(bool)
        variance_sum += prior_pages**2 * walk.prior_variance
        # a known host's d (1 - d) is its variance times its pages sampled
        binomial = float(pages[known] @ (variance[known] * sampled[known]))
        variance_sum += 2 * prior_pages / walk.prior_pages * binomial
    return variance_sum


def plan_constraint_costs(population: pd.DataFrame, overrides: dict | None = None) -> pd.DataFrame:
    """plan_constraint_costs: the plan under each of ``SCENARIOS``, totalled."""
    rows = []
    for scenario, switched_off in SCENARIOS.items():
        result = plan_host_fetch_budget(population, {**(overrides or {}), **switched_off})
        plan, walk = result.plan, result.walk
        cap = walk.page_cap
        rows.append(
            {
                "scenario": scenario,
                "budget_pages": walk.budget,
                "page_cap": cap,
                "page_cap_crawl_delay_seconds": float(walk.crawl_seconds / cap) if cap else None,
                "plannable_page_count": int(plan["plannable_page_count"].sum()),
                "plan_host_count": int((plan["pages_to_fetch"] > 0).sum()),
                "plan_page_count": int(plan["pages_to_fetch"].sum()),
                "expected_hq": float(plan["expected_hq"].sum()),
                "robots_excluded_host_count": int(
                    ((plan["robots_allowed_page_count"] == 0) & (plan["known_url_count"] > 0)).sum()
                ),
                "robots_reduced_host_count": int(
                    (
                        (plan["robots_allowed_page_count"] > 0)
                        & (plan["robots_allowed_page_count"] < plan["known_url_count"])
                    ).sum()
                ),
                "robots_removed_page_count": int(
                    (plan["known_url_count"] - plan["robots_allowed_page_count"]).sum()
                ),
                "capped_host_count": int(plan["is_politeness_capped"].sum()),
                "capped_page_count": int(
                    (plan["robots_allowed_page_count"] - plan["plannable_page_count"]).sum()
                ),
                "floor_reserved_page_count": walk.reserved,
            }
            | normal_interval(
                float(plan["expected_hq"].sum()),
                expected_hq_variance(plan, walk),
                "expected_hq",
                {**VARS, **(overrides or {})},
                (0, None),
            )
        )
    costs = pd.DataFrame(rows)
    pages = costs["plan_page_count"].where(costs["plan_page_count"] > 0)
    costs["expected_hq_share"] = costs["expected_hq"] / pages
    unconstrained = costs.loc[costs["scenario"] == "unconstrained", "expected_hq"].iloc[0]
    costs["expected_hq_cost"] = unconstrained - costs["expected_hq"]
    return costs


def plan_diversity(plan: pd.DataFrame, budget: int, overrides: dict | None = None) -> pd.DataFrame:
    """plan_diversity: the plan's hosts with known URLs by language stratum and TLD category.

    Each group's floor, where the vars with ``overrides`` set one, beside it: its share, its
    pages (floor(``budget`` × share)) and whether the plan gives the group that many.
    """
    floors = {
        (dimension, value): share
        for dimension, value, share in _floors({**VARS, **(overrides or {})})
    }
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
        shares = [floors.get((dimension, value)) for value in grouped.index]
        grouped["floor_share"] = [float(share) if share is not None else None for share in shares]
        grouped["floor_page_count"] = pd.array(
            [math.floor(budget * share) if share is not None else None for share in shares],
            dtype="Int64",
        )
        grouped["is_floor_met"] = pd.array(
            [
                None if share is None else bool(pages >= math.floor(budget * share))
                for share, pages in zip(shares, grouped["plan_page_count"], strict=True)
            ],
            dtype="boolean",
        )
        frames.append(grouped.reset_index(names="dimension_value").assign(dimension=dimension))
    return pd.concat(frames, ignore_index=True)


def plan_changes(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """plan_changes: two plans (plan_host_fetch_budget's columns) host by host, and why.

    ``before`` is the previous crawl's plan, ``after`` plan_crawl's; a host either lacks is
    absent from its index (no phase, 0 pages). The reason is the first rule that holds, in the
    order of the model's column doc.
    """
    columns = [
        "surt_host_name",
        "phase",
        "quality_group",
        "known_url_count",
        "plannable_page_count",
        "robots_status",
        "robots_allowed_page_count",
        "pages_to_fetch",
        "expected_hq",
    ]
    hosts = before[columns].merge(
        after[columns], on="surt_host_name", how="outer", suffixes=("_before", "_after")
    )

    def side(name: str, which: str, default: object = 0) -> np.ndarray:
        """A column of one plan, the default where the host is absent from it."""
        values = hosts[f"{name}_{which}"]
        if default is None:
            return values.astype(object).where(values.notna(), None).to_numpy(object)
        return values.fillna(default).to_numpy()

    blocked, known, pages, phase = {}, {}, {}, {}
    for which in ("before", "after"):
        blocked[which] = (side("robots_status", which, "") == "failed") & (
            side("robots_allowed_page_count", which) == 0
        )
        known[which] = side("known_url_count", which).astype(np.int64)
        pages[which] = side("pages_to_fetch", which).astype(np.int64)
        phase[which] = side("phase", which, None)
    measured = (side("quality_group", "after", "") == "known_quality") & (
        side("quality_group", "before", "") != "known_quality"
    )
    # the first rule that holds, in the order of the model's column doc
    reason = np.select(
        [
            pages["before"] == pages["after"],
            blocked["after"] & ~blocked["before"],
            blocked["before"] & ~blocked["after"],
            (known["before"] == 0) & (known["after"] > 0),
            (known["before"] > 0) & (known["after"] == 0),
            measured & (phase["after"] == "deepen"),
            measured,
            (phase["after"] == "sample") & (phase["before"] != "sample"),
            side("plannable_page_count", "before") != side("plannable_page_count", "after"),
        ],
        [
            "unchanged",
            "blocked",
            "unblocked",
            "newly_known",
            "no_longer_known",
            "deepened",
            "sampled_not_deepened",
            "sampled",
            "known_urls_changed",
        ],
        "reallocated",
    )
    return pd.DataFrame(
        {
            "surt_host_name": hosts["surt_host_name"].to_numpy(object),
            "change_reason": reason.astype(object),
            "phase_before": phase["before"],
            "phase_after": phase["after"],
            "known_url_count_before": known["before"],
            "known_url_count_after": known["after"],
            "pages_before": pages["before"],
            "pages_after": pages["after"],
            "page_change": pages["after"] - pages["before"],
            "expected_hq_before": side("expected_hq", "before").astype(float),
            "expected_hq_after": side("expected_hq", "after").astype(float),
        }
    )
