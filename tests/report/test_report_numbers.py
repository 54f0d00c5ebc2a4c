"""The report's helpers: number formatting, captions, the numbers computed from mart-shaped
frames, the classifiers' colours.

Plain unit tests: no warehouse (the one that reads a mart builds a one-table DuckDB file). The
report written from marts (figures, page, headline) is tested in tests/report/test_report_page.py.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from demo.config import CLASSIFIERS
from report import charts, paper
from report import numbers as nums
from report.formatting import (
    caption,
    fmt_count,
    fmt_interval,
    fmt_number,
    fmt_range,
    fmt_ratio,
    fmt_share,
    fmt_signed,
    text_table,
    versus,
)
from report.marts import Marts, MartUnavailableError
from report.sections.plan import expected_hq_error
from report.sections.rq1 import icc_caption
from report.sections.rq2 import hc_caption
from report.sections.rq3 import depth_caption, k_sample_text

# ----------------------------------------------------------------------- formatting


def test_numbers_format_with_a_fixed_number_of_decimals_and_missing_as_na():
    assert fmt_number(0.4567) == "0.46"
    assert fmt_number(0.4567, 3) == "0.457"
    assert fmt_number(None) == fmt_number(float("nan")) == fmt_number(pd.NA) == "n/a"
    assert fmt_signed(0.207, 3) == "+0.207"
    assert fmt_signed(-0.0862, 3) == "-0.086"
    assert fmt_ratio(1.834) == "1.83×"
    assert fmt_share(0.2149) == "21%"
    assert fmt_share(0.061, 1) == "6.1%"


def test_counts_group_thousands_and_shorten_millions():
    assert fmt_count(888.03) == "888"
    assert fmt_count(12.46) == "12.5"
    assert fmt_count(12) == "12"
    assert fmt_count(369_534) == "369,534"
    assert fmt_count(58_000_000) == "58M"
    assert fmt_count(1_254_000) == "1.25M"
    assert fmt_count(np.int64(7)) == "7"


def test_ranges_use_a_dash_between_positives_and_to_around_negatives():
    assert fmt_range([0.61, 0.45, 0.5]) == "0.45–0.61"
    assert fmt_range([0.7, 1.8], 1, "ratio") == "0.7–1.8×"
    assert fmt_range([0.21, 0.3], 0, "share") == "21–30%"
    assert fmt_range([-0.086, 0.207], 3, "signed") == "-0.086 to +0.207"
    assert fmt_range([-0.2, 0.1]) == "-0.20 to 0.10"
    assert fmt_range([0.5, float("nan"), None]) == "0.50"
    assert fmt_range([0.501, 0.499]) == "0.50"
    assert fmt_range([]) == fmt_range([None]) == "n/a"


def test_captions_put_ours_before_the_papers_and_end_in_a_full_stop():
    assert versus("0.44", "0.53") == "0.44 here, 0.53 in the paper"
    assert versus("0.44", None) == "0.44 here"
    assert caption("k-sample ρ", "k = 3: ρ = 0.44 here, 0.53 in the paper") == (
        "k-sample ρ: k = 3: ρ = 0.44 here, 0.53 in the paper."
    )
    assert caption("The plan.") == "The plan."
    assert caption("A", "b here", "c here") == "A: b here; c here."


def test_text_table_aligns_columns():
    table = text_table(("a", "bb"), [("xxx", "y"), ("z", "wwww")])
    lines = table.splitlines()
    assert lines[0] == "a    bb"
    assert lines[1] == "---  ----"
    assert lines[2] == "xxx  y"
    assert lines[3] == "z    wwww"


# ----------------------------------------------------------------------- numbers and captions


def test_classifier_families_are_found_by_the_registry_family():
    families = {
        "fineweb_edu_demo": "fineweb_edu",
        "dclm_demo": "dclm",
        "dclm_oh_eli5": "dclm",
        "nemotron_quality_demo": "nemotron",
        "gneissweb_quality": "gneissweb_quality",
        "fineweb2_hq": "fineweb2",
        "lid176_english": None,
    }
    names = ["fineweb_edu_demo", "dclm_demo", "nemotron_quality_demo", "gneissweb_quality"]
    assert nums.family_member(names, "dclm", families) == "dclm_demo"
    assert nums.family_member(names, "gneissweb_quality", families) == "gneissweb_quality"
    assert nums.family_member(["fineweb2_hq"], "fineweb_edu", families) is None
    # the first name (sorted) of the family; a name is never read for its family
    assert nums.family_member(["dclm_oh_eli5", "dclm_demo"], "dclm", families) == "dclm_demo"
    assert nums.family_member(["dclm_like_but_unlisted"], "dclm", families) is None


def test_the_rq4_crawl_is_the_builds_fullcrawl_crawl_whatever_its_name(tmp_path: Path):
    path = tmp_path / "w.duckdb"
    with duckdb.connect(str(path)) as connection:
        connection.execute(
            "create table rpt_build_settings as select 'CC-MAIN-2031-07' as fullcrawl_crawl"
        )
    crawls = pd.Series(["CC-MAIN-2021-04", paper.RQ4_CRAWL, "CC-MAIN-2031-07"])
    with Marts(path) as marts:
        assert marts.rq4_crawl("m", crawls) == "CC-MAIN-2031-07"  # not the paper's by name
        with pytest.raises(MartUnavailableError, match="m has no row for crawl CC-MAIN-2031-07"):
            marts.rq4_crawl("m", crawls[:2])


def test_tld_shares_add_public_suffixes_up_to_their_top_level_domain():
    missed = pd.DataFrame(
        {
            "crawl": ["c"] * 4 + ["other"],
            "url_host_tld": ["co.uk", "uk", "com", None, "uk"],
            "host_count": [2, 1, 6, 1, 9],
            "host_share": [0.2, 0.1, 0.6, 0.1, 1.0],
            "est_uncrawled_hq": [3.0, 1.0, 4.0, 0.0, 5.0],
            "missed_share": [0.375, 0.125, 0.5, 0.0, 1.0],
        }
    )
    shares = nums.tld_shares(missed, "c")
    assert list(shares["tld"]) == ["com", "uk", "(none)"]
    uk = shares[shares["tld"] == "uk"].iloc[0]
    assert uk["host_count"] == 3
    assert uk["host_share"] == pytest.approx(0.3)
    assert uk["missed_share"] == pytest.approx(0.5)


def test_ordering_ratios_match_the_budget_within_float_tolerance():
    ordering = pd.DataFrame(
        {
            "classifier": ["a", "b", "a"],
            "policy": ["hc", "hc", "hc"],
            "budget_share": [0.1 + 1e-12, 0.1, 0.2],
            "hq_ratio_vs_random": [0.8, 1.2, 9.0],
        }
    )
    assert nums.ordering_ratios(ordering, "hc").to_dict() == {"a": 0.8, "b": 1.2}


def test_strata_of_fewer_than_ten_hosts_are_masked_but_kept():
    correlations = pd.DataFrame(
        {
            "stratum": ["academic", "commercial", "network", "government"],
            "host_count": [2, 44, 10, None],
            "spearman_rho": [-1.0, -0.27, 0.31, 1.0],
        }
    )
    masked = nums.mask_small_strata(correlations)
    assert nums.MIN_STRATUM_HOSTS == 10
    assert masked["is_masked"].tolist() == [True, False, False, True]
    assert masked["spearman_rho"].tolist() == correlations["spearman_rho"].tolist()
    assert "is_masked" not in correlations.columns, "the mart's frame is not changed"
    assert nums.mask_small_strata(correlations, 3)["is_masked"].tolist() == [
        True,
        False,
        False,
        True,
    ]


def test_classifiers_keep_one_colour_in_every_figure():
    assert charts.classifier_colour("dclm_demo", "dclm") == (
        charts.classifier_colour("dclm_fasttext", "dclm")
    )
    assert charts.classifier_colour("gneissweb_quality_demo", "gneissweb_quality") == (
        charts.classifier_colour("gneissweb_quality", "gneissweb_quality")
    )
    demo = {spec.name: spec.family for spec in CLASSIFIERS}
    colours = [charts.classifier_colour(name, family) for name, family in demo.items()]
    assert len(set(colours)) == len(demo)
    assert charts.PAPER_COLOUR not in colours
    assert charts.classifier_colour("unheard_of", None) == (
        charts.classifier_colour("unheard_of", None)
    )


def test_depth_gains_skip_infeasible_budgets_and_stop_short_of_the_whole_crawl():
    budgets = [0.1, 0.2, 0.5, 0.9, 1.0]
    depth = pd.DataFrame(
        {
            "dataset": "fullcrawl",
            "classifier": "gneissweb_quality",
            "policy": "sample_then_deepen",
            "budget_share": budgets,
            "ratio_vs_uniform": [np.nan, 1.8, 2.2, 1.1, 1.0],
            "min_feasible_budget_share": 0.17,
        }
    )
    (gain,) = nums.depth_gains(depth)
    assert (gain.smallest_budget, gain.smallest_ratio) == (0.2, 1.8)
    assert (gain.largest_budget, gain.largest_ratio) == (0.9, 1.1)
    assert (gain.peak_budget, gain.peak_ratio) == (0.5, 2.2)
    assert gain.min_feasible_budget_share == 0.17
    text = depth_caption([gain], "0.98–1.04×")
    assert "1.83×" not in text
    assert "1.80× at its smallest feasible budget (20%) falling to 1.10× at 90%" in text
    assert "up to 7.8× at small budgets, falling to 1.7× in the paper" in text
    assert "HC depth 0.98–1.04× here, little or no gain in the paper" in text


def test_a_number_is_shown_with_its_interval_when_it_has_one():
    assert fmt_interval(0.4562, 0.3204, 0.5689, 3) == "0.456 [0.320, 0.569]"
    assert fmt_interval(0.4562, None, 0.5689, 3) == "0.456"  # intervals turned off
    assert fmt_interval(0.4562, float("nan"), float("nan")) == "0.46"
    assert fmt_interval(None, None, None) == "n/a"
    assert fmt_interval(-0.0812, -0.1204, 0.0431, 3, style="signed") == "-0.081 [-0.120, +0.043]"


def test_captions_quote_the_papers_numbers():
    assert icc_caption([0.45, 0.61]).endswith("0.45–0.61 here, 0.43–0.62 in the paper.")
    text = hc_caption([0.54, 1.16], [4.3, 6.28], 0.78)
    assert "0.54–1.16× here, 0.7–1.8× in the paper" in text
    assert "DCLM under HC 0.78× here, below 1× in the paper" in text
    assert "the oracle 4.30–6.28× here, 4.0–8.0× in the paper" in text
    sample_size = pd.DataFrame(
        {
            "dataset": ["fullcrawl", "classified", "classified"],
            "classifier": ["gneissweb_quality", "a", "b"],
            "sample_size": [3, 3, 3],
            "host_set": ["variable"] * 3,
            "spearman_rho": [0.44, 0.34, 0.57],
        }
    )
    assert k_sample_text(sample_size, 3) == (
        "k = 3: ρ = 0.44 (full crawl); 0.34–0.57 (classified sample) here, 0.53 in the paper"
    )


def test_the_plans_expected_hq_has_error_bars_only_where_every_scenario_has_an_interval():
    costs = pd.DataFrame(
        {
            "scenario": ["unconstrained", "plan"],
            "expected_hq": [5.0, 3.5],
            "expected_hq_ci_low": [0.1, 0.07],
            "expected_hq_ci_high": [9.9, 6.93],
        }
    )
    below, above = expected_hq_error(costs)
    assert below == pytest.approx([4.9, 3.43]) and above == pytest.approx([4.9, 3.43])
    assert expected_hq_error(costs.assign(expected_hq_ci_low=[0.1, None])) is None
    assert expected_hq_error(costs.drop(columns=["expected_hq_ci_low"])) is None
