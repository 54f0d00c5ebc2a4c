"""Reference check of the crawl plan: plan_host_fetch_budget and plan_diversity against Python.

The plan is recomputed from its population (the rows of int_plan_hosts) by ``reference.plan``
(numpy and pandas, exact integers for the budgets and random orders), written from the contract
(plan_host_fetch_budget.yml's description) rather than from the SQL:

* Budget B = ``plan_budget_pages``, or floor(``plan_budget_share`` × Σ known URLs) with the
  share read as the decimal written. prior = Σ sampled HQ pages / Σ sampled pages over the
  ``known_quality`` hosts (0 without any).
* Exploration E = min(floor(B × ``plan_exploration_share``), Σ known of the
  ``unreliable_quality`` hosts). The water level c solves Σ min(known, c) = E (found by fixing
  saturated hosts one by one, not by cumulative spans); L = floor(c); each host gets
  min(known, L), and the whole pages left over go one each to the hosts above L in ascending
  random_order.
* The queue (budget B - E): segments in step order, each taken whole while the budget lasts and
  the last in part. Steps 1/3: k-page samples of the ``unknown_quality`` hosts in random order,
  step 1 while the running total of samples ≤ floor(B × ``plan_max_sample_share``); 2 and 5:
  whole ``known_quality`` hosts at or above / below the prior density (density desc, known desc,
  random order); 4: the rest of the unknown hosts; 6: the rest of the exploration hosts.
* Phase, hq_density_estimate and expected_hq per the column docs; plan_diversity is a pandas
  ``groupby`` of the reference plan.

The dbt runs (``@pytest.mark.warehouse``) happen in one subprocess that parses the project once
and runs every setting with ``dbtRunner`` on its own copy of the warehouse, its own
``HOSTAWARE_HOME`` (whose ``exports`` folder receives the Parquet and CSV) and the same file
name (dbt's manifest holds the database name, the file's stem):

* the tiny crawl's warehouse (``HOSTAWARE_TEST_WAREHOUSE``; skipped when unset) under a dozen
  var settings, running ``int_plan_hosts+``: int_plan_hosts is a table whose quality groups
  depend on ``plan_sample_size``, so ``plan_host_fetch_budget+`` alone would plan k = 1 or 5
  over groups drawn with the k the warehouse was built with. Its staging views hold the lake's
  absolute path (rendered when the tiny warehouse was built), so ``HOSTAWARE_HOME`` only moves
  the exports.
* hand-made adversarial populations (ties in density and size, densities equal to the prior,
  random orders beyond 64 bits, hosts with fewer known URLs than sampled pages, a population
  without known or unreliable hosts, budgets ending inside every queue step), written as
  int_plan_hosts into an otherwise empty warehouse and planned with
  ``plan_host_fetch_budget+``; one has random orders one apart (equal as float64).

The hand-computed rows of the model's yml unit tests, without dbt:
``test_plan_reference_hand_computed.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from hostaware.paths import PROJECT
from reference.compare import assert_rows_match
from reference.config import VARS
from reference.plan import (
    MART_COLUMNS,
    SCENARIOS,
    Plan,
    plan_changes,
    plan_constraint_costs,
    plan_diversity,
    plan_host_fetch_budget,
    population_query,
)

ATOL = 1e-9

# The plan's models that read only the population (dbt selects each of a spaced list): its
# steps that are tables too (int_plan_scenarios, ephemeral, is compiled into them).
PLAN_AND_READERS = (
    "int_plan_capacity int_plan_budget int_plan_exploration int_plan_queue_segments"
    " int_plan_floors int_plan_queue_taken int_plan_queue"
    " int_plan_allocations plan_host_fetch_budget plan_diversity plan_host_fetch_budget_csv"
    " plan_constraint_costs plan_changes"
)
# the plan's columns as the comparisons take them (keys, exact, integers, floats)
_, PLAN_STRINGS, PLAN_INTEGERS, PLAN_FLOATS = MART_COLUMNS["plan_host_fetch_budget"]

# ----------------------------------------------------------------------- comparison


# ----------------------------------------------------------------------- the dbt runs

NO_FLOORS = {"plan_language_floors": {}, "plan_tld_category_floors": {}}

# The tiny warehouse's settings; "known" stands for its Σ known URLs (read before the runs).
TINY_SETTINGS: dict[str, dict] = {
    "defaults": {},
    "budget_one_page": {"plan_budget_pages": 1},
    "budget_zero": {"plan_budget_pages": 0},
    "half_explore_quarter_sample_5pct": {
        "plan_budget_share": 0.5,
        "plan_exploration_share": 0.25,
        "plan_max_sample_share": 0.05,
    },
    "budget_all_known": {"plan_budget_pages": "known"},
    "budget_above_known": {"plan_budget_pages": "known+1000"},
    "sample_size_1": {"plan_sample_size": 1},
    "sample_size_5": {"plan_sample_size": 5},
    "exploration_0": {"plan_exploration_share": 0},
    # the whole budget to exploration leaves no room for floors (refused otherwise)
    "exploration_1": {"plan_exploration_share": 1, **NO_FLOORS},
    "exploration_1_capped_k5": {
        **NO_FLOORS,
        "plan_exploration_share": 1,
        "plan_budget_share": 0.3,
        "plan_sample_size": 5,
    },
    "samples_all_deferred": {"plan_max_sample_share": 0, "plan_budget_share": 0.3},
    # the constraints: none, a tight cap (in pages, and from a delay), heavy floors
    "no_constraints": SCENARIOS["unconstrained"],
    "cap_20_pages": {"plan_max_pages_per_host": 20, "plan_budget_share": 0.3},
    "cap_from_a_delay": {"plan_crawl_days": 1, "plan_min_crawl_delay_seconds": 3600},
    "floors_heavy": {
        "plan_language_floors": {"non_english": 0.3, "unknown": 0.2},
        "plan_tld_category_floors": {"country_code": 0.3},
        "plan_budget_share": 0.2,
    },
    "robots_exclude_refusals_allowed": {
        "plan_robots_constraint": "exclude",
        "plan_robots_refusal_fails": False,
    },
}


def _host(name: str, group: str, known: int, sampled: int = 0, hq: int = 0) -> dict:
    return {
        "surt_host_name": name,
        "quality_group": group,
        "known_url_count": known,
        "sampled_page_count": sampled,
        "sampled_hq_page_count": hq,
    }


# robots.txt requests (all, 5xx, 4xx other than 404/410) of some adversarial hosts: every
# one failed, some failed, refusals only, a host without known URLs whose requests failed
ROBOTS = {
    "com,alpha": (3, 3, 0),
    "org,delta": (4, 1, 1),
    "io,papa": (2, 0, 2),
    "kr,ares": (5, 2, 0),
    "cn,victor": (1, 0, 0),
    "gov,quebec": (3, 1, 0),
    "com,boreas": (2, 2, 0),
}


def _with_robots(frame: pd.DataFrame) -> pd.DataFrame:
    counts = [ROBOTS.get(name, (0, 0, 0)) for name in frame["surt_host_name"]]
    frame["robots_request_count"] = [count[0] for count in counts]
    frame["robots_unreachable_count"] = [count[1] for count in counts]
    frame["robots_refused_count"] = [count[2] for count in counts]
    return frame


def _adversarial_hosts(order_step: int = 2**80) -> pd.DataFrame:
    """Ties everywhere: the prior is exactly 1/3 (16 HQ of 48), and three hosts sit on it.

    The random orders are 2**120 + a permutation × ``order_step``: beyond 64 bits, so they
    must be read and compared as exact integers; with a step of 1 they are all one float64.
    """
    hosts = [
        # known quality (k = 3): densities 1/3 (three, two of the same size), 1, 1/2, 0, 1/5
        _host("com,alpha", "known_quality", 10, 3, 1),
        _host("com,bravo", "known_quality", 10, 6, 2),
        _host("com,charlie", "known_quality", 25, 3, 1),
        _host("org,delta", "known_quality", 7, 4, 4),
        _host("org,echo", "known_quality", 2, 6, 3),  # fewer known URLs than sampled pages
        _host("de,foxtrot", "known_quality", 12, 4, 0),
        _host("de,golf", "known_quality", 1, 3, 0),
        _host("fr,hotel", "known_quality", 9, 5, 1),
        _host("fr,india", "known_quality", 9, 10, 2),  # 1/5 again, same size as hotel
        _host("edu,juliett", "known_quality", 6, 4, 2),
        # unknown quality: smaller than k, exactly k, larger; some sampled below k
        _host("com,kilo", "unknown_quality", 1),
        _host("com,lima", "unknown_quality", 2, 1, 1),
        _host("net,mike", "unknown_quality", 3),
        _host("net,november", "unknown_quality", 4, 2, 2),
        _host("io,oscar", "unknown_quality", 5),
        _host("io,papa", "unknown_quality", 8),
        _host("gov,quebec", "unknown_quality", 30, 2, 0),
        _host("gov,romeo", "unknown_quality", 3, 1, 0),
        # unreliable: many equal sizes around the water level, one huge host
        _host("jp,sierra", "unreliable_quality", 1),
        _host("jp,tango", "unreliable_quality", 1),
        _host("cn,uniform", "unreliable_quality", 2),
        _host("cn,victor", "unreliable_quality", 2, 2, 1),
        _host("ru,whiskey", "unreliable_quality", 2),
        _host("ru,xray", "unreliable_quality", 5, 4, 3),
        _host("br,yankee", "unreliable_quality", 5),
        _host("br,zulu", "unreliable_quality", 7, 2, 0),
        _host("kr,ares", "unreliable_quality", 100),
        # no known URLs (one of them sampled)
        _host("com,boreas", "no_known_urls", 0, 3, 1),
        _host("com,chaos", "no_known_urls", 0),
    ]
    frame = pd.DataFrame(hosts)
    count = len(frame)
    rng = np.random.default_rng(20241010)
    orders = rng.permutation(count)
    frame["random_order"] = [str(2**120 + int(rank) * order_step) for rank in orders]
    frame["url_host_tld"] = frame["surt_host_name"].str.split(",").str[0]
    frame["tld_macro_category"] = np.where(
        frame["url_host_tld"].isin(["com", "net", "io"]), "commercial", "other_generic"
    )
    frame["language_stratum"] = np.select(
        [frame["quality_group"] == "unreliable_quality", frame["sampled_page_count"] > 0],
        ["non_english", "english"],
        "unknown",
    )
    return _with_robots(frame)


def _unknown_only_hosts() -> pd.DataFrame:
    """No known-quality host (prior 0) and no unreliable host (nothing to explore)."""
    frame = pd.DataFrame(
        [
            _host("com,one", "unknown_quality", 1),
            _host("com,two", "unknown_quality", 6, 2, 2),
            _host("com,three", "unknown_quality", 3),
            _host("com,four", "unknown_quality", 4),
            _host("com,none", "no_known_urls", 0),
        ]
    )
    # above 2**127: beyond a signed 128-bit integer, descending with the rows
    frame["random_order"] = [str(2**127 + (7 - rank) * 2**100) for rank in range(len(frame))]
    frame["url_host_tld"] = "com"
    frame["tld_macro_category"] = "commercial"
    frame["language_stratum"] = "unknown"
    return _with_robots(frame)


ADVERSARIAL_SETTINGS: dict[str, tuple[str, dict]] = {
    "adversarial_budget_40": (
        "ties",
        {"plan_budget_pages": 40, "plan_exploration_share": 0.3, "plan_max_sample_share": 0.2},
    ),
    "adversarial_budget_100": (
        "ties",
        {"plan_budget_pages": 100, "plan_exploration_share": 0.5, "plan_max_sample_share": 0.1},
    ),
    "adversarial_budget_share": (
        "ties",
        {"plan_budget_share": 0.37, "plan_exploration_share": 0.07, "plan_max_sample_share": 0},
    ),
    "adversarial_all_known": (
        "ties",
        {"plan_budget_pages": 272, "plan_exploration_share": 0.1, "plan_max_sample_share": 0.5},
    ),
    "adversarial_above_known": (
        "ties",
        {
            **NO_FLOORS,
            "plan_budget_pages": 1000,
            "plan_exploration_share": 1,
            "plan_max_sample_share": 0.5,
        },
    ),
    # budgets that end inside a sample (step 1), a host below the prior (5), an exploration
    # host's rest (6)
    "adversarial_cut_in_step_1": (
        "ties",
        {"plan_budget_pages": 13, "plan_exploration_share": 0.5, "plan_max_sample_share": 1},
    ),
    "adversarial_cut_in_step_5": (
        "ties",
        {"plan_budget_pages": 131, "plan_exploration_share": 0.1, "plan_max_sample_share": 0.5},
    ),
    "adversarial_cut_in_step_6": (
        "ties",
        {"plan_budget_pages": 166, "plan_exploration_share": 0.1, "plan_max_sample_share": 0.5},
    ),
    # The same rows with random orders one apart: the contract orders them exactly.
    "adversarial_float64_orders": (
        "ties_beyond_float64",
        {"plan_budget_share": 0.37, "plan_exploration_share": 0.07, "plan_max_sample_share": 0},
    ),
    "adversarial_unknown_only": (
        "unknown_only",
        {"plan_budget_pages": 7, "plan_exploration_share": 0.5, "plan_max_sample_share": 0.5},
    ),
    # the constraints on ties: none (budget ending inside step 5), a cap of 4 pages, floors
    # that overlap (a host in two), one no host can meet, robots refusals read as allowed
    "adversarial_unconstrained": (
        "ties",
        {
            **SCENARIOS["unconstrained"],
            "plan_budget_pages": 131,
            "plan_exploration_share": 0.1,
            "plan_max_sample_share": 0.5,
        },
    ),
    "adversarial_cap_4": (
        "ties",
        {"plan_max_pages_per_host": 4, "plan_robots_constraint": "off", "plan_budget_pages": 60},
    ),
    "adversarial_floors_overlapping": (
        "ties",
        {
            "plan_language_floors": {"english": 0.3, "non_english": 0.2},
            "plan_tld_category_floors": {"other_generic": 0.35},
            "plan_exploration_share": 0.1,
            "plan_budget_pages": 80,
        },
    ),
    "adversarial_floor_unmeetable": (
        "ties",
        {
            "plan_language_floors": {},
            "plan_tld_category_floors": {"country_code": 0.5},
            "plan_budget_pages": 50,
        },
    ),
    "adversarial_robots_exclude": (
        "ties",
        {
            "plan_robots_constraint": "exclude",
            "plan_robots_refusal_fails": False,
            "plan_budget_pages": 100,
        },
    ),
}
# Settings the plan refuses to compile, and a fragment of the error each must give.
REFUSED_SETTINGS: dict[str, tuple[dict, str]] = {
    "refused_floors_over_budget": (
        {"plan_language_floors": {"english": 0.6}, "plan_tld_category_floors": {"other": 0.5}},
        "add up to 1.2",
    ),
    "refused_negative_floor": (
        {"plan_language_floors": {"english": -0.1}},
        "is a share of the budget in [0, 1]",
    ),
    "refused_robots_policy": (
        {"plan_robots_constraint": "maybe"},
        "plan_robots_constraint is off, exclude or reduce",
    ),
    "refused_cap_below_a_page": (
        {"plan_max_pages_per_host": 0},
        "the politeness cap must allow a page per host",
    ),
}
ADVERSARIAL_POPULATIONS = {
    "ties": _adversarial_hosts,
    "ties_beyond_float64": lambda: _adversarial_hosts(order_step=1),
    "unknown_only": _unknown_only_hosts,
}
RUN_NAMES = [*TINY_SETTINGS, *ADVERSARIAL_SETTINGS]
# Random orders one apart (equal as float64) keep their order: the queue's order_in_step is
# a 128-bit integer in every step (a union with row_number()'s bigint once made it DOUBLE).
COMPARED_RUNS = RUN_NAMES

# Parses the project once and runs every setting in-process: a parse costs ~8 s, a run ~2 s.
DRIVER = """
import copy, json, os, sys
from dbt.cli.main import dbtRunner

spec = json.loads(open(sys.argv[1]).read())
os.environ.update(spec["env"])
runs = spec["runs"]
os.environ.update(HOSTAWARE_HOME=runs[0]["home"], WAREHOUSE_PATH=runs[0]["warehouse"])
parsed = dbtRunner().invoke(["parse", "--project-dir", spec["project"], "--quiet"])
results = {"parse": parsed.success and "ok" or repr(parsed.exception)}
for run in runs if parsed.success else []:
    os.environ.update(HOSTAWARE_HOME=run["home"], WAREHOUSE_PATH=run["warehouse"])
    # a copy each run: dbt marks the ephemeral steps it inlined in the manifest it is given
    result = dbtRunner(manifest=copy.deepcopy(parsed.result)).invoke(
        ["run", "--project-dir", spec["project"], "--select", run["select"],
         "--vars", json.dumps(run["vars"]), "--quiet"]
    )
    nodes = [(node.node.name, str(node.status), str(node.message))
             for node in (result.result or [])]
    results[run["name"]] = {"success": result.success, "error": repr(result.exception),
                            "nodes": nodes}
json.dump(results, open(spec["out"], "w"))
"""


@dataclass(frozen=True)
class PlanRun:
    name: str
    vars: dict
    population: pd.DataFrame  # int_plan_hosts after the run
    parquet: pd.DataFrame  # exports/plan_host_fetch_budget.parquet
    csv: pd.DataFrame  # exports/plan_host_fetch_budget_csv.csv.gz
    diversity: pd.DataFrame  # plan_diversity
    costs: pd.DataFrame  # plan_constraint_costs
    changes: pd.DataFrame  # plan_changes
    reference: Plan
    previous: pd.DataFrame  # the reference plan of the previous crawl's population


def _tiny_vars(overrides: dict, known: int) -> dict:
    resolved = {}
    for name, value in overrides.items():
        if value == "known":
            value = known
        elif value == "known+1000":
            value = known + 1000
        resolved[name] = value
    return resolved


def _previous_crawl(current: pd.DataFrame) -> pd.DataFrame:
    """The previous crawl's population of ``current``: its plan knew no host's quality (the
    sample came after), two hosts were not in its index, one knew no URL, the robots.txt
    answers and some known URL counts differ."""
    previous = current[~current["surt_host_name"].isin(["io,oscar", "com,kilo"])].copy()
    previous["quality_group"] = np.where(
        previous["known_url_count"] > 0, "unknown_quality", "no_known_urls"
    )
    previous[["sampled_page_count", "sampled_hq_page_count"]] = 0
    previous["language_stratum"] = "unknown"
    previous.loc[previous["surt_host_name"] == "com,chaos", "known_url_count"] = 6
    previous.loc[previous["surt_host_name"] == "com,chaos", "quality_group"] = "unknown_quality"
    previous.loc[previous["surt_host_name"] == "de,golf", "known_url_count"] = 0
    previous.loc[previous["surt_host_name"] == "de,golf", "quality_group"] = "no_known_urls"
    previous.loc[previous["surt_host_name"] == "com,charlie", "known_url_count"] = 40
    robots = ["robots_request_count", "robots_unreachable_count", "robots_refused_count"]
    previous.loc[previous["surt_host_name"] == "com,alpha", robots] = 0  # blocked only now
    previous.loc[previous["surt_host_name"] == "net,mike", robots] = (2, 2, 0)  # unblocked now
    return previous


def _write_population(warehouse: Path, population: pd.DataFrame) -> None:
    """int_plan_hosts with its contract's types, alone in a new warehouse: the population as
    plan_crawl's (`current`) and a previous crawl's made from it (`previous`)."""
    both = pd.concat(
        [
            population.assign(plan_role="current", crawl="CC-MAIN-2024-10"),
            _previous_crawl(population).assign(plan_role="previous", crawl="CC-MAIN-2023-50"),
        ],
        ignore_index=True,
    )
    with duckdb.connect(str(warehouse)) as connection:
        connection.register("population", both)
        connection.execute(
            """
            create table int_plan_hosts as
            select
                plan_role::varchar as plan_role,
                crawl::varchar as crawl,
                surt_host_name::varchar as surt_host_name,
                -- numbered in an order unrelated to the names': the plan's steps key rows
                -- by the number, which must decide nothing
                dense_rank() over (order by md5(surt_host_name))::bigint as plan_host_id,
                null::varchar as url_host_registered_domain,
                url_host_tld::varchar as url_host_tld,
                tld_macro_category::varchar as tld_macro_category,
                language_stratum::varchar as language_stratum,
                quality_group::varchar as quality_group,
                known_url_count::bigint as known_url_count,
                sampled_page_count::bigint as sampled_page_count,
                sampled_hq_page_count::bigint as sampled_hq_page_count,
                case when sampled_page_count > 0
                    then sampled_hq_page_count / sampled_page_count end as sampled_hq_density,
                robots_request_count::bigint as robots_request_count,
                robots_unreachable_count::bigint as robots_unreachable_count,
                robots_refused_count::bigint as robots_refused_count,
                random_order::uhugeint as random_order
            from population
            """
        )


def _read_run(name: str, overrides: dict, home: Path) -> PlanRun:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as connection:
        populations = {
            role: connection.sql(population_query(role)).df() for role in ("current", "previous")
        }
        diversity = connection.sql("select * from plan_diversity").df()
        costs = connection.sql("select * from plan_constraint_costs").df()
        changes = connection.sql("select * from plan_changes").df()
    population = populations["current"]
    previous = plan_host_fetch_budget(populations["previous"], overrides).plan
    exports = home / "exports"
    parquet = pd.read_parquet(exports / "plan_host_fetch_budget.parquet")
    csv = pd.read_csv(
        exports / "plan_host_fetch_budget_csv.csv.gz", keep_default_na=False, na_values=[""]
    )
    reference = plan_host_fetch_budget(population, overrides)
    return PlanRun(
        name, overrides, population, parquet, csv, diversity, costs, changes, reference, previous
    )


@pytest.fixture(scope="module")
def plan_driver(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict], dict]:
    """Every setting run by dbt (tiny ones only with HOSTAWARE_TEST_WAREHOUSE): the runs and
    what dbt said of each, the refused settings' failures included."""
    root = tmp_path_factory.mktemp("plan-reference")
    runs: list[dict] = []
    tiny = os.environ.get("HOSTAWARE_TEST_WAREHOUSE")
    if tiny and Path(tiny).is_file():
        with duckdb.connect(tiny, read_only=True) as connection:
            (known,) = connection.execute(
                "select sum(known_url_count) from int_plan_hosts"
            ).fetchone()
        for name, overrides in TINY_SETTINGS.items():
            home = root / name
            (home / "exports").mkdir(parents=True)
            shutil.copyfile(tiny, home / "warehouse.duckdb")
            runs.append(
                {"name": name, "vars": _tiny_vars(overrides, int(known)), "home": str(home)}
                | {"select": "int_plan_hosts+", "warehouse": str(home / "warehouse.duckdb")}
            )
    settings = {**ADVERSARIAL_SETTINGS}
    settings |= {name: ("ties", overrides) for name, (overrides, _) in REFUSED_SETTINGS.items()}
    for name, (population, overrides) in settings.items():
        home = root / name
        (home / "exports").mkdir(parents=True)
        _write_population(home / "warehouse.duckdb", ADVERSARIAL_POPULATIONS[population]())
        runs.append(
            {"name": name, "vars": overrides, "home": str(home)}
            # the plan and what reads it alone (its queue keys need the URLs a lake has)
            | {"select": PLAN_AND_READERS, "warehouse": str(home / "warehouse.duckdb")}
        )
    spec = {
        "project": str(PROJECT),
        "out": str(root / "results.json"),
        "runs": runs,
        "env": {
            "DBT_PROFILES_DIR": str(PROJECT),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "DBT_TARGET_PATH": str(root / "target"),
            "DBT_LOG_PATH": str(root / "logs"),
        },
    }
    (root / "spec.json").write_text(json.dumps(spec))
    process = subprocess.run(
        [sys.executable, "-c", DRIVER, str(root / "spec.json")],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=False,
    )
    log = f"{process.stdout[-6000:]}\n{process.stderr[-6000:]}"
    assert process.returncode == 0, f"the dbt driver failed\n{log}"
    results = json.loads((root / "results.json").read_text())
    assert results["parse"] == "ok", f"dbt parse failed: {results['parse']}\n{log}"
    failed = {name: result for name, result in results.items() if name != "parse"}
    failed = {
        name: result
        for name, result in failed.items()
        if not result["success"] and name not in REFUSED_SETTINGS
    }
    dbt_log = root / "logs" / "dbt.log"
    tail = dbt_log.read_text()[-8000:] if dbt_log.exists() else log
    assert not failed, f"dbt runs failed: {failed}\n{tail}"
    return runs, results


@pytest.fixture(scope="module")
def plan_runs(plan_driver: tuple[list[dict], dict]) -> dict[str, PlanRun]:
    """Every setting the plan accepts, planned by dbt and by the reference."""
    runs, _ = plan_driver
    return {
        run["name"]: _read_run(run["name"], run["vars"], Path(run["home"]))
        for run in runs
        if run["name"] not in REFUSED_SETTINGS
    }


@pytest.mark.warehouse
@pytest.mark.parametrize("name", list(REFUSED_SETTINGS))
def test_impossible_constraints_are_refused_with_a_clear_error(
    plan_driver: tuple[list[dict], dict], name: str
) -> None:
    _, results = plan_driver
    result = results[name]
    assert not result["success"]
    messages = " ".join(message for _, status, message in result["nodes"] if status == "error")
    assert REFUSED_SETTINGS[name][1] in messages, result


def _run(plan_runs: dict[str, PlanRun], name: str) -> PlanRun:
    if name not in plan_runs:
        pytest.skip("HOSTAWARE_TEST_WAREHOUSE is not set (make dbt-test-build builds it)")
    return plan_runs[name]


@pytest.mark.warehouse
@pytest.mark.parametrize("name", COMPARED_RUNS)
def test_plan_matches_the_reference_row_by_row(plan_runs: dict[str, PlanRun], name: str) -> None:
    run = _run(plan_runs, name)
    largest = assert_rows_match(
        name,
        run.parquet,
        run.reference.plan,
        ["surt_host_name"],
        PLAN_STRINGS,
        PLAN_INTEGERS,
        PLAN_FLOATS,
    )
    walk = run.reference.walk
    print(f"{name}: {len(run.reference.plan)} rows, {walk}, largest differences {largest}")


@pytest.mark.warehouse
@pytest.mark.parametrize("name", RUN_NAMES)
def test_plan_spends_exactly_its_budget_within_each_host(
    plan_runs: dict[str, PlanRun], name: str
) -> None:
    run = _run(plan_runs, name)
    plan = run.parquet
    budget = run.reference.walk.budget
    assert plan["pages_to_fetch"].sum() == min(budget, plan["plannable_page_count"].sum())
    assert (plan["pages_to_fetch"] >= 0).all()
    assert (plan["pages_to_fetch"] <= plan["plannable_page_count"]).all()
    assert (plan["plannable_page_count"] <= plan["known_url_count"]).all()
    assert sorted(plan["surt_host_name"]) == sorted(run.population["surt_host_name"])


@pytest.mark.warehouse
@pytest.mark.parametrize("name", RUN_NAMES)
def test_csv_export_holds_the_parquet_rows(plan_runs: dict[str, PlanRun], name: str) -> None:
    run = _run(plan_runs, name)
    assert list(run.csv.columns) == list(run.parquet.columns)
    assert len(run.csv) == len(run.parquet)
    assert_rows_match(
        f"{name} csv",
        run.csv,
        run.parquet,
        ["surt_host_name"],
        [*PLAN_STRINGS, "reason"],
        PLAN_INTEGERS,
        PLAN_FLOATS,
    )


@pytest.mark.warehouse
@pytest.mark.parametrize("name", COMPARED_RUNS)
def test_plan_diversity_matches_a_groupby_of_the_reference(
    plan_runs: dict[str, PlanRun], name: str
) -> None:
    run = _run(plan_runs, name)
    assert_rows_match(
        f"{name} diversity",
        run.diversity,
        plan_diversity(run.reference.plan, run.reference.walk.budget, run.vars),
        *MART_COLUMNS["plan_diversity"],
    )


@pytest.mark.warehouse
@pytest.mark.parametrize("name", COMPARED_RUNS)
def test_plan_constraint_costs_match_the_plan_without_each_constraint(
    plan_runs: dict[str, PlanRun], name: str
) -> None:
    """Each scenario is the reference plan with its constraints switched off by their vars."""
    run = _run(plan_runs, name)
    costs = plan_constraint_costs(run.population, run.vars)
    assert_rows_match(
        f"{name} constraint costs",
        run.costs,
        costs,
        *MART_COLUMNS["plan_constraint_costs"],
    )
    plan = run.costs.set_index("scenario").loc["plan"]
    assert plan["plan_page_count"] == run.parquet["pages_to_fetch"].sum()
    assert plan["expected_hq"] == pytest.approx(run.parquet["expected_hq"].sum(), abs=ATOL)


@pytest.mark.warehouse
@pytest.mark.parametrize("name", list(TINY_SETTINGS))
def test_population_quality_groups_follow_the_sample_size(
    plan_runs: dict[str, PlanRun], name: str
) -> None:
    """int_plan_hosts' contract: known_quality iff at least k sampled pages (k of the run)."""
    run = _run(plan_runs, name)
    k = int({**VARS, **run.vars}["plan_sample_size"])
    judged = run.population[
        run.population["quality_group"].isin(["known_quality", "unknown_quality"])
    ]
    is_known = judged["quality_group"] == "known_quality"
    assert (is_known == (judged["sampled_page_count"] >= k)).all()
    assert (judged["known_url_count"] > 0).all()


@pytest.mark.warehouse
def test_settings_reach_every_branch_of_the_plan(plan_runs: dict[str, PlanRun]) -> None:
    """The settings exercise left-over exploration pages, every step, and partial segments."""
    if not os.environ.get("HOSTAWARE_TEST_WAREHOUSE"):  # some branches only the tiny runs reach
        pytest.skip("HOSTAWARE_TEST_WAREHOUSE is not set (make dbt-test-build builds it)")
    walks = [run.reference.walk for run in plan_runs.values()]
    assert any(walk.exploration_left_over > 0 for walk in walks)
    assert set().union(*(walk.steps_taken for walk in walks)) == {1, 2, 3, 4, 5, 6}
    partial_steps = {walk.partial_step for walk in walks} - {None}
    assert partial_steps == {1, 2, 3, 4, 5, 6}
    # the constraints: floors that reserve and one unmet, the cap, every robots status, and
    # hosts the robots constraint removes or reduces
    assert any(walk.reserved > 0 for walk in walks)
    assert any((run.diversity["is_floor_met"] == False).any() for run in plan_runs.values())  # noqa: E712
    plans = pd.concat([run.reference.plan for run in plan_runs.values()])
    assert plans["is_politeness_capped"].any()
    assert set(plans["robots_status"]) == {"not_requested", "ok", "partly_failed", "failed"}
    assert set(plans["robots_constraint"].dropna()) == {"robots_failed", "robots_reduced"}


@pytest.mark.warehouse
@pytest.mark.parametrize("name", COMPARED_RUNS)
def test_plan_changes_match_the_two_reference_plans(
    plan_runs: dict[str, PlanRun], name: str
) -> None:
    """plan_changes: the plan against the previous crawl's, each planned by the reference."""
    run = _run(plan_runs, name)
    assert_rows_match(
        f"{name} changes",
        run.changes,
        plan_changes(run.previous, run.reference.plan),
        *MART_COLUMNS["plan_changes"],
    )


@pytest.mark.warehouse
def test_plan_changes_reach_every_reason(plan_runs: dict[str, PlanRun]) -> None:
    reasons = set().union(*(set(run.changes["change_reason"]) for run in plan_runs.values()))
    assert reasons == {
        "unchanged",
        "blocked",
        "unblocked",
        "newly_known",
        "no_longer_known",
        "deepened",
        "sampled_not_deepened",
        "sampled",
        "known_urls_changed",
        "reallocated",
    }
