"""Reference checks: every statistic of the RQ1/RQ2 marts against ``reference``.

Each mart is recomputed from the raw inputs by the ``reference`` package (numpy, pandas and
scipy, written from docs/definitions.md; no SQL, no dbt macro) and compared number by number to
an absolute 1e-9, on two warehouses:

* ``adversarial``: a lake written by ``tests/fixtures/warehouse.py`` and built with
  ``dbt build`` here: ~60 hosts of 1 to 200 pages, scores on a 1/20 grid (tied scores and
  host medians), hosts outside the graph or the host index, uncommitted parts. Its inputs are
  the generated rows themselves.
* ``tiny``: the tiny crawl's warehouse that ``make dbt-test-build`` builds, named by
  ``HOSTAWARE_TEST_WAREHOUSE`` (skipped when unset). Its inputs are read back from its staging
  views (``reference.lake.read_staging``).

Independent of the reference: on a balanced sub-sample (hosts with >= 5 pages, the first 5 by
md5 of doc_id) the ICC formula must equal pingouin's ICC(1,1); the weighted Spearman with
equal weights must be scipy's Spearman. Besides, the adversarial build must pass its own dbt
data tests, and the correlation mart's compiled SQL, rerun with several threads (so DuckDB
sums in varying orders), must stay within [-1, 1].
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pingouin
import pytest
from scipy import stats

from reference.compare import ATOL, assert_matches
from reference.compare import budget_key as _budget_key
from reference.config import TLD_CATEGORIES, VARS
from reference.correlations import (
    centrality_quality_correlations,
    centrality_quality_spearman_intervals,
    classifier_agreement,
    graph_rank_stability,
    score_by_language,
    weighted_spearman,
)
from reference.hosts import (
    host_classifier_stats,
    host_universe,
    hosts_profiled,
    scores_flagged,
    suffix_category,
)
from reference.icc import host_quality_icc, host_quality_icc_intervals, one_way_anova
from reference.lake import DOCUMENT_COLUMNS, Inputs, read_staging
from reference.orderings import (
    host_ordering_at_budget,
    host_ordering_ratio_intervals,
    host_ordering_yield_curves,
    walk_budgets,
)
from tests.fixtures import warehouse as warehouse_fixture

# ----------------------------------------------------------------------- warehouses


@dataclass(frozen=True)
class Warehouse:
    """A built warehouse and the inputs its marts must be recomputed from."""

    name: str
    path: Path
    inputs: Inputs
    build: warehouse_fixture.Build | None = None  # when built here

    def table(self, relation: str) -> pd.DataFrame:
        with duckdb.connect(str(self.path), read_only=True) as connection:
            return connection.sql(f"select * from {relation}").df()


@pytest.fixture(scope="module")
def adversarial_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    lake = warehouse_fixture.adversarial_lake()
    home = tmp_path_factory.mktemp("adversarial-home")
    warehouse_fixture.write_lake(home, lake.files)
    build = warehouse_fixture.build_warehouse(home, warehouse_fixture.RQ12_MARTS)
    inputs = Inputs(
        documents=lake.documents[DOCUMENT_COLUMNS],
        scores=lake.document_scores[["doc_id", "classifier", "score"]],
        host_ranks=lake.host_ranks[["release", "surt_host_name", "hc_val", "pr_val"]],
        host_crawls=lake.host_index.rename(columns={"nutch_fetched": "fetched_url_count"})[
            ["crawl", "surt_host_name", "fetched_url_count"]
        ],
    )
    return Warehouse("adversarial", build.warehouse, inputs, build)


@pytest.fixture(scope="module")
def tiny_warehouse() -> Warehouse:
    path = warehouse_fixture.tiny_warehouse_or_skip()
    tables = ("documents", "scores", "host_ranks", "host_crawls")
    return Warehouse("tiny", path, read_staging(path, tables))


@pytest.fixture(
    scope="module",
    params=["adversarial", pytest.param("tiny", marks=pytest.mark.warehouse)],
)
def warehouse(request: pytest.FixtureRequest) -> Warehouse:
    return request.getfixturevalue(f"{request.param}_warehouse")


def balanced_subsample(inputs: Inputs, classifier: str, pages: int = 5) -> pd.DataFrame:
    """Hosts with >= ``pages`` pages, their first ``pages`` by md5(doc_id): host × position."""
    flagged = scores_flagged(inputs)
    scored = flagged[flagged["classifier"] == classifier].copy()
    scored["order"] = scored["doc_id"].map(lambda doc_id: hashlib.md5(doc_id.encode()).hexdigest())
    scored = scored.sort_values(["surt_host_name", "order"])
    scored["position"] = scored.groupby("surt_host_name").cumcount() + 1
    sizes = scored.groupby("surt_host_name")["doc_id"].transform("size")
    return scored[(sizes >= pages) & (scored["position"] <= pages)]


# ----------------------------------------------------------------------- the fixture itself


def test_adversarial_lake_commits_only_manifested_parts(adversarial_warehouse: Warehouse):
    inputs = adversarial_warehouse.inputs
    documents = adversarial_warehouse.table("stg_crawl__documents")
    scores = adversarial_warehouse.table("stg_crawl__document_scores")
    ranks = adversarial_warehouse.table("stg_webgraph__host_ranks")
    crawls = adversarial_warehouse.table("stg_host_index__host_crawls")
    assert sorted(documents["doc_id"]) == sorted(inputs.documents["doc_id"])
    assert len(scores) == len(inputs.scores)
    assert scores.merge(inputs.scores, on=["doc_id", "classifier", "score"]).shape[0] == len(
        inputs.scores
    )
    assert sorted(zip(ranks["release"], ranks["surt_host_name"], strict=True)) == sorted(
        zip(inputs.host_ranks["release"], inputs.host_ranks["surt_host_name"], strict=True)
    )
    assert len(crawls) == len(inputs.host_crawls)


def test_adversarial_build_passes_its_data_tests(adversarial_warehouse: Warehouse):
    build = adversarial_warehouse.build
    assert not build.failed_tests, "\n".join(build.failed_tests) + "\n" + build.log[-3000:]


def test_correlation_sql_stays_within_one_whatever_the_summation_order(
    adversarial_warehouse: Warehouse,
):
    """Rerun the mart's compiled SQL: DuckDB sums in a different order each time, with threads.

    A stratum whose ranks agree perfectly (rho = 1 exactly) must not come out as
    1.0000000000000002, which fails the mart's accepted_range test at random.
    """
    compiled = adversarial_warehouse.build.target / "compiled" / "hostaware" / "models"
    sql = (compiled / "marts" / "rq1" / "rpt_centrality_quality_correlations.sql").read_text()
    columns = ["spearman_rho", "kendall_tau_b", "weighted_spearman_rho", "weighted_tau"]
    outside: set[tuple] = set()
    config = {"threads": 8}
    with duckdb.connect(str(adversarial_warehouse.path), read_only=True, config=config) as db:
        for _ in range(60):
            result = db.sql(sql).df()
            for column in columns:
                rows = result[result[column].abs() > 1]
                outside |= {
                    (column, row.classifier, row.centrality_metric, row.stratum, row[column])
                    for _, row in rows.iterrows()
                }
    assert not outside, f"correlations outside [-1, 1]: {sorted(outside)}"


def test_adversarial_fixture_has_its_edge_cases(adversarial_warehouse: Warehouse):
    inputs = adversarial_warehouse.inputs
    host_stats = host_classifier_stats(inputs)
    sizes = inputs.documents.groupby("surt_host_name").size()
    assert sizes.min() == 1 and sizes.max() >= 200 and (sizes < 3).sum() >= 5
    profiled = hosts_profiled(inputs)
    assert (profiled["english_doc_share"] == 0.5).any()
    assert not profiled.loc[profiled["doc_count"] >= 3, "is_in_graph"].all()
    assert profiled["url_host_tld"].isna().any()
    assert set(profiled["tld_macro_category"]) == set(TLD_CATEGORIES["macro_category"])
    # suffixes whose category their last label would not give (uk is a country code)
    by_label = profiled["url_host_tld"].map(suffix_category)
    differs = profiled[by_label != profiled["tld_macro_category"]]
    assert set(differs["tld_macro_category"]) >= {"academic", "commercial", "government"}
    assert (profiled["url_host_registry_suffix"] == "uk").any()
    # several suffixes share a last label: the TLD counts see fewer TLDs than suffixes
    universe = host_universe(inputs)
    assert universe["url_host_tld"].nunique() < universe["url_host_registry_suffix"].nunique()
    in_scope = host_stats[host_stats["doc_count"] >= 3]
    tied_medians = in_scope.groupby("classifier")["quality_score_median"].agg(
        lambda medians: medians.duplicated().sum()
    )
    assert (tied_medians >= 10).all()
    assert (inputs.scores["score"] == 0.5).sum() > 50
    assert (in_scope["quality_score_var"] == 0).any()
    counts = host_stats.pivot(index="surt_host_name", columns="classifier", values="doc_count")
    assert (counts.nunique(axis=1) > 1).any()  # one classifier scored fewer of a host's pages
    graph = inputs.host_ranks[inputs.host_ranks["release"] == VARS["graph_release"]]
    assert graph["hc_val"].duplicated().sum() > 30 and graph["pr_val"].duplicated().sum() > 30
    fetched = profiled["fetched_url_count"]
    assert fetched.isna().sum() >= 5 and fetched.dropna().duplicated().any()


# ----------------------------------------------------------------------- A1, A2


def test_host_classifier_stats(warehouse: Warehouse):
    assert_matches(
        f"{warehouse.name} int_host_classifier_stats",
        warehouse.table("int_host_classifier_stats"),
        host_classifier_stats(warehouse.inputs),
        keys=["surt_host_name", "classifier"],
        numeric=[
            "doc_count",
            "quality_score_median",
            "quality_score_mean",
            "quality_score_var",
            "hq_doc_count",
            "hq_density",
        ],
    )


def test_hosts_profiled(warehouse: Warehouse):
    documents = warehouse.inputs.documents.groupby("surt_host_name")
    for column in ("url_host_tld", "url_host_registry_suffix"):
        distinct = documents[column].nunique()
        assert distinct.max() <= 1, f"a host with two {column}: its mode is ambiguous"
    assert_matches(
        f"{warehouse.name} int_hosts_profiled",
        warehouse.table("int_hosts_profiled"),
        hosts_profiled(warehouse.inputs),
        keys=["surt_host_name"],
        numeric=["doc_count", "english_doc_share", "hc_val", "pr_val", "fetched_url_count"],
        exact=(
            "url_host_tld",
            "url_host_registry_suffix",
            "tld_macro_category",
            "language_stratum",
            "is_in_graph",
        ),
    )


def test_host_quality_icc(warehouse: Warehouse):
    assert_matches(
        f"{warehouse.name} rpt_host_quality_icc",
        warehouse.table("rpt_host_quality_icc"),
        host_quality_icc(warehouse.inputs),
        keys=["classifier", "min_docs"],
        numeric=[
            "host_count",
            "doc_count",
            "grand_mean",
            "ssb",
            "ssw",
            "df_between",
            "df_within",
            "msb",
            "msw",
            "n0",
            "icc1",
            "f_stat",
            "icc_variance_ratio",
        ],
    )


def test_host_quality_icc_intervals(warehouse: Warehouse):
    """The Poisson bootstrap's interval and standard error: hosts repeated by their weights."""
    assert_matches(
        f"{warehouse.name} rpt_host_quality_icc intervals",
        warehouse.table("rpt_host_quality_icc"),
        host_quality_icc_intervals(warehouse.inputs),
        keys=["classifier", "min_docs"],
        numeric=["icc1_ci_low", "icc1_ci_high", "icc1_se"],
    )
    table = warehouse.table("rpt_host_quality_icc")
    spread = table.dropna(subset=["icc1_se"])
    assert len(spread) and (spread["icc1_ci_low"] <= spread["icc1_ci_high"]).all()


def test_icc_formula_is_pingouins_icc1_on_a_balanced_subsample(warehouse: Warehouse):
    classifiers = sorted(scores_flagged(warehouse.inputs)["classifier"].unique())
    checked = 0
    for classifier in classifiers:
        sample = balanced_subsample(warehouse.inputs, classifier)
        if sample["surt_host_name"].nunique() < 3:
            continue
        anova = one_way_anova(sample["surt_host_name"], sample["score"])
        assert anova["n0"] == pytest.approx(5, abs=ATOL)
        table = pingouin.intraclass_corr(
            data=sample, targets="surt_host_name", raters="position", ratings="score"
        ).set_index("Type")
        row = table.loc["ICC1"] if "ICC1" in table.index else table.loc["ICC(1,1)"]
        assert math.isclose(anova["icc1"], row["ICC"], rel_tol=0, abs_tol=ATOL), classifier
        assert math.isclose(anova["f_stat"], row["F"], rel_tol=0, abs_tol=ATOL), classifier
        assert (row["df1"], row["df2"]) == (anova["df_between"], anova["df_within"])
        print(
            f"{warehouse.name} {classifier}: balanced ICC1 {anova['icc1']:.6f} on "
            f"{anova['host_count']} hosts, |numpy - pingouin| {abs(anova['icc1'] - row['ICC']):.2e}"
            f" (F: {abs(anova['f_stat'] - row['F']):.2e})"
        )
        checked += 1
    assert checked >= 1


# ----------------------------------------------------------------------- A3


@pytest.mark.parametrize("metric", ["hc", "pr"])
def test_centrality_quality_correlations(warehouse: Warehouse, metric: str):
    mart = warehouse.table("rpt_centrality_quality_correlations")
    reference = centrality_quality_correlations(warehouse.inputs)
    assert_matches(
        f"{warehouse.name} rpt_centrality_quality_correlations[{metric}]",
        mart[mart["centrality_metric"] == metric],
        reference[reference["centrality_metric"] == metric],
        keys=["classifier", "centrality_metric", "stratum_type", "stratum"],
        numeric=[
            "host_count",
            "spearman_rho",
            "kendall_tau_b",
            "weighted_spearman_rho",
            "weighted_tau",
        ],
    )


def test_centrality_quality_spearman_intervals(warehouse: Warehouse):
    """Spearman's bootstrap intervals: rho shifted by its hosts' weighted influences."""
    mart = warehouse.table("rpt_centrality_quality_correlations")
    assert_matches(
        f"{warehouse.name} rpt_centrality_quality_correlations intervals",
        mart,
        centrality_quality_spearman_intervals(warehouse.inputs),
        keys=["classifier", "centrality_metric", "stratum_type", "stratum"],
        numeric=["spearman_rho_ci_low", "spearman_rho_ci_high", "spearman_rho_se"],
    )
    spread = mart.dropna(subset=["spearman_rho_se"])
    assert len(spread) and (spread["spearman_rho_se"] > 0).any()
    assert (spread["spearman_rho_ci_low"] <= spread["spearman_rho"] + 1e-12).mean() > 0.9


def test_weighted_spearman_with_equal_weights_is_spearman():
    rng = np.random.default_rng(7)
    x, y = rng.integers(0, 5, 40).astype(float), rng.integers(0, 4, 40).astype(float)
    expected = stats.spearmanr(x, y).statistic
    assert math.isclose(weighted_spearman(x, y, np.full(40, 3.0)), expected, abs_tol=ATOL)


def test_score_by_language(warehouse: Warehouse):
    assert_matches(
        f"{warehouse.name} rpt_score_by_language",
        warehouse.table("rpt_score_by_language"),
        score_by_language(warehouse.inputs),
        keys=["classifier", "language_stratum"],
        numeric=[
            "host_count",
            "host_median_score_p25",
            "host_median_score_p50",
            "host_median_score_p75",
            "host_median_score_mean",
        ],
    )


def test_classifier_agreement(warehouse: Warehouse):
    assert_matches(
        f"{warehouse.name} rpt_classifier_agreement",
        warehouse.table("rpt_classifier_agreement"),
        classifier_agreement(warehouse.inputs),
        keys=["classifier_a", "classifier_b"],
        numeric=["doc_count", "spearman_rho"],
    )


@pytest.mark.parametrize("metric", ["hc", "pr"])
def test_graph_rank_stability(warehouse: Warehouse, metric: str):
    mart = warehouse.table("rpt_graph_rank_stability")
    reference = graph_rank_stability(warehouse.inputs)
    assert_matches(
        f"{warehouse.name} rpt_graph_rank_stability[{metric}]",
        mart[mart["centrality_metric"] == metric],
        reference[reference["centrality_metric"] == metric],
        keys=["centrality_metric", "reference_release", "later_release"],
        numeric=["host_count", "spearman_rho"],
    )


# ----------------------------------------------------------------------- A4


@pytest.fixture(scope="module")
def reference_curves(warehouse: Warehouse) -> pd.DataFrame:
    return host_ordering_yield_curves(warehouse.inputs)


def test_yield_curves_collect_the_reference_hq_pages(
    warehouse: Warehouse, reference_curves: pd.DataFrame
):
    assert_matches(
        f"{warehouse.name} rpt_host_ordering_yield_curves (HQ)",
        _budget_key(warehouse.table("rpt_host_ordering_yield_curves")),
        _budget_key(reference_curves),
        keys=["classifier", "policy", "budget_share"],
        numeric=[
            "pages_fetched",
            "hq_collected",
            "hq_collected_sd",
            "hq_share",
            "host_count",
            "ordering_count",
        ],
    )


def test_yield_curves_count_the_reference_tlds(
    warehouse: Warehouse, reference_curves: pd.DataFrame
):
    assert_matches(
        f"{warehouse.name} rpt_host_ordering_yield_curves (TLDs)",
        _budget_key(warehouse.table("rpt_host_ordering_yield_curves")),
        _budget_key(reference_curves),
        keys=["classifier", "policy", "budget_share"],
        numeric=["tld_count"],
    )


def test_host_ordering_at_budget(warehouse: Warehouse, reference_curves: pd.DataFrame):
    assert_matches(
        f"{warehouse.name} rpt_host_ordering_at_budget",
        _budget_key(warehouse.table("rpt_host_ordering_at_budget")),
        _budget_key(host_ordering_at_budget(reference_curves)),
        keys=["classifier", "policy", "budget_share"],
        numeric=[
            "hq_collected",
            "random_hq_collected",
            "hq_ratio_vs_random",
            "oracle_hq_collected",
            "tld_count",
            "random_tld_count",
            "tld_ratio_vs_random",
        ],
    )


def test_host_ordering_ratio_intervals(warehouse: Warehouse, reference_curves: pd.DataFrame):
    """The ratios' bootstrap intervals: the first-order yields over random's expectation."""
    mart = _budget_key(warehouse.table("rpt_host_ordering_at_budget"))
    reference = host_ordering_ratio_intervals(warehouse.inputs, curves=reference_curves)
    assert_matches(
        f"{warehouse.name} rpt_host_ordering_at_budget intervals",
        mart[mart["policy"] != "random"],
        _budget_key(reference),
        keys=["classifier", "policy", "budget_share"],
        numeric=[
            "hq_ratio_vs_random_ci_low",
            "hq_ratio_vs_random_ci_high",
            "hq_ratio_vs_random_se",
        ],
    )
    assert mart.loc[mart["policy"] == "random", "hq_ratio_vs_random_ci_low"].isna().all()
    seeds = mart[mart["policy"] != "random"]
    expected = (
        seeds["hq_ratio_vs_random"]
        * seeds["random_hq_collected_sd"]
        / (seeds["random_hq_collected"] * np.sqrt(int(VARS["random_seeds"])))
    )
    assert np.allclose(seeds["hq_ratio_seed_se"], expected, equal_nan=True)


def test_suffix_categories_follow_the_public_suffix():
    assert suffix_category("ac.uk") == "academic" and suffix_category("uk") == "country_code"
    assert suffix_category("co.uk") == "commercial" and suffix_category("com.au") == "commercial"
    assert suffix_category("gov.uk") == suffix_category("gouv.fr") == "government"
    assert suffix_category("org.uk") == "organisation" and suffix_category("edu") == "academic"
    assert suffix_category("info") == "other_generic" and suffix_category(None) == "other_generic"


def test_reference_walk_takes_whole_hosts_then_part_of_the_boundary_host():
    pages, hq, tlds = np.array([4, 3, 6]), np.array([2, 3, 3]), np.array([0, -1, 1])  # com, -, de
    collected, hosts, reached = walk_budgets(pages, hq, tlds, [Fraction(4), Fraction(9), 13])
    assert (collected[0], hosts[0], reached[0]) == (Fraction(2), 1, 1)
    assert (collected[1], hosts[1], reached[1]) == (Fraction(2 + 3 + 1), 3, 2)
    assert (collected[2], hosts[2], reached[2]) == (Fraction(8), 3, 2)
