"""The crawl plan's reference without dbt: the model's hand-computed unit tests, the water level.

``reference.plan`` must give the rows the yml unit tests of int_plan_allocations (the plan's
pages per host) computed by hand, and its water level must split evenly below the saturated
hosts.
"""

from __future__ import annotations

from fractions import Fraction

import duckdb
import pandas as pd
import yaml

from hostaware.paths import PROJECT
from reference.compare import assert_rows_match
from reference.plan import plan_host_fetch_budget, water_level

PLAN_YML = PROJECT / "models" / "intermediate" / "plan" / "int_plan_allocations.yml"


def test_reference_reproduces_the_hand_computed_unit_tests() -> None:
    """The reference gives the rows the model's yml unit tests computed by hand."""
    unit_tests = yaml.safe_load(PLAN_YML.read_text())["unit_tests"]
    assert unit_tests
    for unit_test in unit_tests:
        # the population: the hosts of the mocked int_plan_capacity step (a DuckDB query),
        # read in DuckDB; the other steps are mocked beside it
        (given,) = [g for g in unit_test["given"] if g["input"] == "ref('int_plan_capacity')"]
        query = f"select * replace (random_order::varchar as random_order) from ({given['rows']})"
        population = duckdb.sql(query).df()
        population["sampled_hq_page_count"] = (
            (population["sampled_hq_density"] * population["sampled_page_count"])
            .round()
            .fillna(0)
            .astype(int)
        )
        reference = plan_host_fetch_budget(population, unit_test["overrides"]["vars"]).plan
        expected = pd.DataFrame(unit_test["expect"]["rows"])
        columns = [column for column in expected.columns if column != "surt_host_name"]
        assert_rows_match(
            unit_test["name"],
            reference[["surt_host_name", *columns]],
            expected,
            ["surt_host_name"],
            strings=[],
            integers=[column for column in columns if column.startswith("pages_")],
            floats=[
                column for column in columns if column in ("expected_hq", "crawl_delay_seconds")
            ],
        )


def test_water_level_splits_evenly_below_the_saturated_hosts() -> None:
    assert water_level([1, 3, 10], 6) == Fraction(5, 2)
    assert water_level([1, 1, 2, 2, 2, 5, 5, 7, 100], 12) == Fraction(10, 7)
    assert water_level([4, 4], 8) == 4
    assert water_level([], 0) == 0
