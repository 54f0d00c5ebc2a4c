"""The demo crawl's planted parameters, recovered by the warehouse (issue: "planted truth").

Run by ``make demo`` after the build (``pytest -m demo``), against ``$HOSTAWARE_HOME``: the
warehouse the demo built and the ``truth.json`` the generator wrote. Skipped when they are
missing. Each check prints the planted value beside the recovered one.

* ICC(1) at n >= 3 within ±0.05 of the planted value. The scores pass through real fastText
  models trained on the demo's labelled corpus, whose noise (Pearson 0.986-0.988 with the true
  scores on the demo) adds within-host variance: the recovered ICC sits 0.01-0.02 below.
* Host ordering at a 10% budget (SPEC A4, the paper's Table 3): HC and PR near random
  (0.5-2x), below random for the DCLM-style classifier, the oracle several times random (> 3x).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import duckdb
import pytest

pytestmark = pytest.mark.demo

HOME = Path(os.environ.get("HOSTAWARE_HOME", "data"))
WAREHOUSE = Path(os.environ.get("WAREHOUSE_PATH", HOME / "warehouse.duckdb"))
TRUTH = HOME / "raw" / "truth.json"
DCLM = "dclm_demo"


@pytest.fixture(scope="module")
def warehouse() -> duckdb.DuckDBPyConnection:
    if not WAREHOUSE.is_file() or not TRUTH.is_file():
        pytest.skip(f"no demo warehouse and truth.json under {HOME}: run `make demo`")
    connection = duckdb.connect(str(WAREHOUSE), read_only=True)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def truth() -> dict:
    return json.loads(TRUTH.read_text())


def test_recovered_icc_is_within_005_of_the_planted_value(warehouse, truth):
    recovered = dict(
        warehouse.sql(
            "select classifier, icc1 from rpt_host_quality_icc where min_docs = 3"
        ).fetchall()
    )
    planted = {entry["name"]: entry["icc"] for entry in truth["classifiers"]}
    assert set(recovered) == set(planted)
    for name in sorted(planted):
        print(f"ICC(1) {name:28s} planted {planted[name]:.3f} recovered {recovered[name]:.3f}")
    assert all(abs(recovered[name] - planted[name]) <= 0.05 for name in planted)


def test_centrality_orders_are_near_random_and_the_oracle_far_above(warehouse):
    rows = warehouse.sql(
        """
        select classifier, policy, hq_ratio_vs_random, tld_ratio_vs_random
        from rpt_host_ordering_at_budget
        where budget_share = 0.1 and policy in ('hc', 'pr', 'oracle')
        order by all
        """
    ).fetchall()
    ratios = {(classifier, policy): (hq, tld) for classifier, policy, hq, tld in rows}
    for (classifier, policy), (hq, tld) in sorted(ratios.items()):
        print(f"10% budget {classifier:28s} {policy:7s} HQ x{hq:.2f} random, TLDs x{tld:.2f}")
    for (classifier, policy), (hq, _) in ratios.items():
        if policy == "oracle":
            assert hq > 3, (classifier, hq)
        else:
            assert 0.5 < hq < 2, (classifier, policy, hq)
    assert ratios[(DCLM, "hc")][0] < 1
    assert ratios[(DCLM, "pr")][0] < 1
