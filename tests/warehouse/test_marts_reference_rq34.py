"""Reference checks: every number of the RQ3/RQ4 marts against ``reference``.

Each mart is recomputed from the raw rows by the ``reference`` package (``reference.samples``,
``reference.depth``, ``reference.coverage``: numpy, pandas and scipy written from
docs/definitions.md A5-A12, with the annotation profiles of ``seeds/annotation_profiles.csv``;
no SQL, no dbt macro) and compared row by row (keys exact, nulls equal) to an absolute 1e-9, on
the adversarial lake of ``tests/fixtures/warehouse.py`` (built by ``dbt build`` here), on the
same lake with the URL-keyed crawl as the full crawl, and on the tiny crawl's warehouse named by
``HOSTAWARE_TEST_WAREHOUSE`` (marker ``warehouse``; inputs read back from its staging views),
as ``test_marts_reference.py`` does for RQ1/RQ2. The reference's own hand-checked cases are in
``test_reference_rq34_hand_checked.py``.

Where docs/definitions.md is silent, the reference assumes (see ``reference.coverage``):

* a null count is unknown, not zero: coverage_rate is null unless known > 0 and fetched is
  known, uncrawled_url_count is null when either count is, and a host whose fetched count is
  null is not analysed;
* sample mean scores (sample_then_deepen's second key) are means of the scores rounded to 15
  decimals, so means equal in decimals tie and the md5 of the host orders them;
* rows of rpt_coverage_quality_correlation exist per crawl, signal and
  coverage_quality_min_annotated_pages with at least one host; coverage bands without a host
  have no row; total_est_uncrawled_hq of a crawl without analysed hosts is 0;
* a host of a host-level crawl without a host-level annotation has 0 annotated pages, a host
  with one has null page counts; annotated_hosts_missing_from_host_index counts the hosts whose
  annotations the crawl reads (page level, else host level).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from reference.compare import assert_matches, budget_key
from reference.config import VARS
from reference.coverage import (
    ANNOTATION_SIGNAL,
    coverage_quality_correlation,
    hidden_gems,
    host_crawls,
    missed_hq_by_tld,
    uncrawled_hq_by_coverage_band,
    uncrawled_hq_summary,
)
from reference.depth import depth_policy_curves
from reference.lake import (
    ANNOTATION_COLUMNS,
    DOCUMENT_COLUMNS,
    HOST_ANNOTATION_COLUMNS,
    HOST_CRAWL_COLUMNS,
    Inputs,
    read_staging,
)
from reference.samples import (
    dataset_pages,
    pages_flagged,
    sample_pages,
    sample_size_correlation,
    sampled_datasets,
)
from tests.fixtures import warehouse as warehouse_fixture

# ----------------------------------------------------------------------- warehouses


@dataclass(frozen=True)
class Warehouse:
    name: str
    path: Path
    inputs: Inputs
    build: warehouse_fixture.Build | None = None

    def table(self, relation: str) -> pd.DataFrame:
        with duckdb.connect(str(self.path), read_only=True) as connection:
            return connection.sql(f"select * from {relation}").df()


def dpk_pages(source: pd.DataFrame) -> pd.DataFrame:
    """The pages a data-prep-kit source file holds, by the profile's definition.

    The transform writes the predicted label (``hq`` or ``cc``, perhaps as ``__label__hq``)
    and that label's probability: P(hq) is the score for ``hq`` and 1 - score for ``cc``. A
    score below 0.5 is not a binary model's top probability: not a page. The key is the id.
    """
    labels = source["cosmo_fastText_label"].str.removeprefix("__label__").str.lower()
    assert labels.isin(["hq", "cc"]).all()
    scores = source["cosmo_fastText_score"].astype(float)
    kept = scores >= 0.5
    probability = np.where(labels == "hq", scores, 1.0 - scores)
    return pd.DataFrame(
        {
            "crawl": source["dump"],
            "page_key": source["id"],
            "surt_host_name": source["surt_host_name"],
            "annotation_profile": "dpk_gneissweb",
            "quality_score": probability,
            "quality_int_score": None,
            "in_gneissweb": None,
        }
    )[kept.to_numpy()]


@pytest.fixture(scope="module")
def adversarial_lake() -> warehouse_fixture.AdversarialLake:
    return warehouse_fixture.adversarial_lake()


def adversarial_inputs(lake: warehouse_fixture.AdversarialLake) -> Inputs:
    host_crawls = lake.host_index.rename(
        columns={
            "hcrank": "hc_val",
            "nutch_num_records": "known_url_count",
            "nutch_fetched": "fetched_url_count",
        }
    )[HOST_CRAWL_COLUMNS]
    annotations = pd.concat(
        [lake.page_annotations[ANNOTATION_COLUMNS], dpk_pages(lake.dpk_source)], ignore_index=True
    )
    return Inputs(
        documents=lake.documents[DOCUMENT_COLUMNS],
        scores=lake.document_scores[["doc_id", "classifier", "score"]],
        host_ranks=lake.host_ranks[["release", "surt_host_name", "hc_val", "pr_val"]],
        host_crawls=host_crawls,
        annotations=annotations,
        host_annotations=lake.host_annotations[HOST_ANNOTATION_COLUMNS],
    )


@pytest.fixture(scope="module")
def adversarial_home(
    tmp_path_factory: pytest.TempPathFactory, adversarial_lake: warehouse_fixture.AdversarialLake
) -> Path:
    home = tmp_path_factory.mktemp("adversarial-rq34-home")
    warehouse_fixture.write_lake(home, adversarial_lake.files)
    return home


@pytest.fixture(scope="module")
def adversarial_warehouse(
    adversarial_home: Path, adversarial_lake: warehouse_fixture.AdversarialLake
) -> Warehouse:
    build = warehouse_fixture.build_warehouse(adversarial_home, warehouse_fixture.RQ34_MARTS)
    return Warehouse("adversarial", build.warehouse, adversarial_inputs(adversarial_lake), build)


@pytest.fixture(scope="module")
def url_keyed_fullcrawl_warehouse(
    adversarial_home: Path, adversarial_lake: warehouse_fixture.AdversarialLake
) -> Warehouse:
    """The RQ3 marts of the same lake with the other crawl as the full crawl: Common Crawl's
    URL-level annotations, pages keyed by SURT key and fetch time, scores the 0/1 flags."""
    build = warehouse_fixture.build_warehouse(
        adversarial_home,
        ("rpt_sample_size_correlation", "rpt_depth_policy_curves"),
        dbt_vars={"fullcrawl_crawl": warehouse_fixture.OTHER_CRAWL},
        name="url-keyed-fullcrawl",
        indirect_selection="buildable",  # not the seed's tests on host annotations
    )
    inputs = adversarial_inputs(adversarial_lake)
    return Warehouse("adversarial, URL-keyed full crawl", build.warehouse, inputs, build)


@pytest.fixture(scope="module")
def tiny_warehouse() -> Warehouse:
    path = warehouse_fixture.tiny_warehouse_or_skip()
    return Warehouse("tiny", path, read_staging(path))


@pytest.fixture(
    scope="module",
    params=["adversarial", pytest.param("tiny", marks=pytest.mark.warehouse)],
)
def warehouse(request: pytest.FixtureRequest) -> Warehouse:
    return request.getfixturevalue(f"{request.param}_warehouse")


@pytest.fixture(scope="module")
def samples(warehouse: Warehouse) -> dict:
    return sampled_datasets(dataset_pages(warehouse.inputs))


@pytest.fixture(scope="module")
def reference_host_crawls(warehouse: Warehouse) -> pd.DataFrame:
    return host_crawls(warehouse.inputs)


# ----------------------------------------------------------------------- the fixture


def test_adversarial_lake_commits_only_manifested_annotations(adversarial_warehouse: Warehouse):
    inputs = adversarial_warehouse.inputs
    staged = adversarial_warehouse.table("stg_annotations__pages")
    staged = staged.rename(columns={"is_in_gneissweb": "in_gneissweb"})
    keys = ["crawl", "page_key"]
    merged = staged.merge(inputs.annotations, on=keys, how="outer", suffixes=("", "_"))
    assert len(merged) == len(staged) == len(inputs.annotations)
    assert merged["annotation_profile"].equals(merged["annotation_profile_"])
    assert np.allclose(
        merged["quality_score"].astype(float),
        merged["quality_score_"].astype(float),
        rtol=0,
        atol=1e-15,
        equal_nan=True,
    )
    flags = merged["in_gneissweb"].astype(object).where(merged["in_gneissweb"].notna(), None)
    truth = merged["in_gneissweb_"].astype(object).where(merged["in_gneissweb_"].notna(), None)
    assert list(flags) == list(truth)
    hosts = adversarial_warehouse.table("stg_annotations__hosts")
    assert sorted(
        zip(hosts["crawl"], hosts["surt_host_name"], hosts["is_in_gneissweb"], strict=True)
    ) == sorted(
        zip(
            inputs.host_annotations["crawl"],
            inputs.host_annotations["surt_host_name"],
            inputs.host_annotations["in_gneissweb"],
            strict=True,
        )
    )
    crawls = adversarial_warehouse.table("stg_host_index__host_crawls")
    merged = crawls.merge(inputs.host_crawls, on=["crawl", "surt_host_name"], suffixes=("", "_"))
    assert len(merged) == len(crawls) == len(inputs.host_crawls)
    for column in ("hc_val", "known_url_count", "fetched_url_count"):
        assert merged[column].equals(merged[f"{column}_"].astype(merged[column].dtype)), column
    for column in ("url_host_tld", "url_host_registry_suffix"):
        assert merged[column].fillna("-").equals(merged[f"{column}_"].fillna("-")), column


def test_adversarial_build_passes_its_rq34_data_tests(adversarial_warehouse: Warehouse):
    build = adversarial_warehouse.build
    assert not build.failed_tests, "\n".join(build.failed_tests) + "\n" + build.log[-3000:]


def test_adversarial_fixture_has_its_rq34_edge_cases(adversarial_warehouse: Warehouse):
    inputs = adversarial_warehouse.inputs
    annotations = pages_flagged(inputs)
    sample, other = warehouse_fixture.SAMPLE_CRAWL, warehouse_fixture.OTHER_CRAWL
    level_crawl = warehouse_fixture.HOST_LEVEL_CRAWL
    assert set(annotations.groupby("crawl")["annotation_profile"].first().items()) == {
        (sample, "dpk_gneissweb"),
        (other, "cc_gneissweb_urls"),
    }
    scores = annotations.loc[annotations["crawl"] == sample, "quality_score"]
    assert (scores == 0.5).sum() > 20 and scores.notna().all()
    # two captures of a URL: two pages, some with different verdicts, two a microsecond apart
    urls = annotations[annotations["crawl"] == other].assign(
        url_surtkey=lambda pages: pages["page_key"].str.rsplit(" ", n=1).str[0]
    )
    captures = urls.groupby("url_surtkey")["is_hq"].agg(["size", "nunique"])
    assert (captures["size"] == 2).sum() >= 20 and (captures["nunique"] == 2).sum() >= 5
    seconds = urls["page_key"].str.slice(0, -8)  # the key without its microseconds
    assert seconds.duplicated().any()
    every_host = host_crawls(inputs)
    for crawl in (sample, other):
        pages = annotations[annotations["crawl"] == crawl].groupby("surt_host_name")["is_hq"]
        sizes, hq = pages.size(), pages.sum()
        assert (sizes == 1).sum() >= 3 and (sizes >= 21).sum() >= 8
        assert sizes.between(2, 25).sum() >= 40
        assert ((hq == sizes) & (sizes >= 3)).sum() >= 3  # all HQ
        assert ((hq == 0) & (sizes >= 3)).sum() >= 3  # all low quality
        hosts = every_host[every_host["crawl"] == crawl]
        assert set(sizes.index) - set(hosts["surt_host_name"])  # annotated, not indexed
        analysed = hosts[hosts["is_analysed"]]
        assert analysed["coverage_rate"].duplicated().sum() >= 10
        assert analysed["hq_density"].duplicated().sum() >= 10
        known, fetched = hosts["known_url_count"], hosts["fetched_url_count"]
        assert (known < fetched).sum() >= 2 and (known == 0).sum() >= 1 and known.isna().any()
        assert ((hosts["annotated_page_count"] == 0) & known.gt(0)).any()
        # the crawl's host-level flags, to be ignored, contradict its all-HQ hosts, and some
        # flag indexed hosts without page annotations
        flags = inputs.host_annotations[inputs.host_annotations["crawl"] == crawl]
        flags = flags.set_index("surt_host_name")["in_gneissweb"]
        all_hq = sizes.index[(hq == sizes) & (sizes >= 3)]
        assert not flags.reindex(all_hq).fillna(True).any()
        unpaged = hosts.loc[hosts["annotated_page_count"].eq(0), "surt_host_name"]
        assert flags.reindex(unpaged).fillna(False).sum() >= 5
    hosts = every_host[every_host["crawl"] == level_crawl]
    analysed = hosts[hosts["is_analysed"]]
    assert set(hosts["annotation_level"].dropna()) == {"host"}
    assert (analysed["hq_density"] == 1).sum() >= 5 and (analysed["hq_density"] == 0).sum() >= 5
    assert (hosts["annotation_level"].isna() & hosts["known_url_count"].gt(0)).sum() >= 2
    annotated = hosts[hosts["annotation_level"].notna()]
    assert (annotated["known_url_count"] == 0).any() and annotated["known_url_count"].isna().any()
    assert (annotated["known_url_count"] < annotated["fetched_url_count"]).any()
    levels = inputs.host_annotations[inputs.host_annotations["crawl"] == level_crawl]
    assert set(levels["surt_host_name"]) - set(hosts["surt_host_name"])  # not indexed
    index = inputs.host_crawls
    index = index[index["crawl"] == VARS["fullcrawl_crawl"]]
    assert (index["hc_val"] == 0).any() and index["hc_val"].isna().any()
    assert index["hc_val"].dropna().duplicated().sum() > 10
    assert (index["fetched_url_count"].isna() & index["known_url_count"].gt(0)).any()
    sample_hosts = every_host[every_host["crawl"] == sample]
    assert sample_hosts["coverage_rate"].isin([1 / 5, 3 / 10, 1.0]).sum() >= 4
    # rpt_missed_hq_by_tld's groups: the last label gathers several public suffixes
    suffixes = index.dropna(subset=["url_host_tld"]).groupby("url_host_tld")
    assert suffixes["url_host_registry_suffix"].nunique()["uk"] >= 3


def test_a_data_prep_kit_cc_page_at_0987_is_not_hq(
    adversarial_warehouse: Warehouse, adversarial_lake: warehouse_fixture.AdversarialLake
):
    """P(hq) is the score of an `hq` label and 1 - score of a `cc` one, through the ingest."""
    source = adversarial_lake.dpk_source
    flagged = adversarial_warehouse.table("int_page_annotations_flagged").set_index("page_key")
    labels = source["cosmo_fastText_label"].str.removeprefix("__label__")
    checked = 0
    for page_key, label, score in zip(
        source["id"], labels, source["cosmo_fastText_score"], strict=True
    ):
        if score < 0.5:  # not a predicted label's probability: rejected at ingest
            assert page_key not in flagged.index
            continue
        page = flagged.loc[page_key]
        expected = score if label == "hq" else 1 - score
        assert page["quality_score"] == pytest.approx(expected, abs=1e-12), page_key
        assert bool(page["is_hq"]) is (expected > 0.5), (page_key, label, score)
        if (label, score) == ("cc", 0.987):
            assert page["quality_score"] == pytest.approx(0.013, abs=1e-12)
            assert not page["is_hq"]
            checked += 1
    assert checked == 3  # one per source host
    # on the all-HQ host, the cc pages at 0.987 pull its density below 1
    all_hq_host = adversarial_lake.notes["dpk_source_hosts"][0]
    mart = adversarial_warehouse.table("fct_host_crawls").set_index(["crawl", "surt_host_name"])
    assert mart.loc[(warehouse_fixture.SAMPLE_CRAWL, all_hq_host), "hq_density"] < 1


def test_the_host_level_crawl_reads_host_flags(adversarial_warehouse: Warehouse):
    """HOST_LEVEL_CRAWL's hosts take their GneissWeb flag; the other crawls ignore theirs."""
    inputs = adversarial_warehouse.inputs
    mart = adversarial_warehouse.table("fct_host_crawls")
    level_crawl = warehouse_fixture.HOST_LEVEL_CRAWL
    flags = inputs.host_annotations.set_index(["crawl", "surt_host_name"])["in_gneissweb"]
    at_host_level = mart[mart["annotation_level"] == "host"]
    assert set(at_host_level["crawl"]) == {level_crawl}
    assert len(at_host_level) >= 40
    for row in at_host_level.itertuples():
        assert row.hq_density == float(flags.loc[(row.crawl, row.surt_host_name)]), row
        assert pd.isna(row.annotated_page_count) and pd.isna(row.hq_page_count), row
    page_level = mart[mart["crawl"] != level_crawl]
    assert set(page_level["annotation_level"].dropna()) == {"page"}
    correlation = adversarial_warehouse.table("rpt_coverage_quality_correlation")
    of_level = correlation[correlation["crawl"] == level_crawl]
    # a host-level row counts as one annotated page: above a minimum of 1, no host is left
    assert set(of_level["min_annotated_pages"]) == {1}
    assert ANNOTATION_SIGNAL[0] in set(of_level["signal"])


def test_the_full_crawl_signal_is_named_by_its_profile(adversarial_warehouse: Warehouse):
    for mart in ("rpt_sample_size_correlation", "rpt_depth_policy_curves"):
        rows = adversarial_warehouse.table(mart)
        assert set(rows.loc[rows["dataset"] == "fullcrawl", "classifier"]) == {"dpk_gneissweb"}


# ----------------------------------------------------------------------- A5, A6


def test_sample_size_correlation(warehouse: Warehouse, samples):
    assert_matches(
        f"{warehouse.name} rpt_sample_size_correlation",
        warehouse.table("rpt_sample_size_correlation"),
        sample_size_correlation(samples),
        keys=["dataset", "classifier", "sample_size", "host_set"],
        numeric=[
            "host_count",
            "seed_count",
            "spearman_rho",
            "spearman_rho_sd",
            "spearman_rho_min",
            "spearman_rho_max",
            *(f"spearman_rho_{end}" for end in ("ci_low", "ci_high", "se")),
        ],
    )


def _assert_depth_policy_curves(warehouse: Warehouse, expected: pd.DataFrame) -> None:
    """rpt_depth_policy_curves of a warehouse against its reference rows."""
    assert_matches(
        f"{warehouse.name} rpt_depth_policy_curves",
        budget_key(warehouse.table("rpt_depth_policy_curves")),
        budget_key(expected),
        keys=["dataset", "classifier", "policy", "budget_share"],
        numeric=[
            "host_count",
            "total_page_count",
            "total_hq_page_count",
            "budget_pages",
            "pages_fetched",
            "hq_expected",
            *(f"hq_expected_{end}" for end in ("ci_low", "ci_high", "se")),
            "hq_expected_sd",
            "yield_per_fetch",
            "ratio_vs_uniform",
            *(f"ratio_vs_uniform_{end}" for end in ("ci_low", "ci_high", "se")),
            "min_feasible_budget_share",
            "seed_count",
        ],
        exact=("is_feasible",),
    )


def test_depth_policy_curves(warehouse: Warehouse, samples):
    _assert_depth_policy_curves(warehouse, depth_policy_curves(warehouse.inputs, samples))


def test_rq3_of_a_url_keyed_full_crawl(url_keyed_fullcrawl_warehouse: Warehouse):
    """Pages keyed by url_surtkey + fetch_time (two captures are two pages), sampled by md5
    of the key, HQ by GneissWeb membership, scored 0/1; the signal named cc_gneissweb_urls."""
    warehouse = url_keyed_fullcrawl_warehouse
    build = warehouse.build
    assert not build.failed_tests, "\n".join(build.failed_tests) + "\n" + build.log[-3000:]
    other = warehouse_fixture.OTHER_CRAWL
    pages = dataset_pages(warehouse.inputs, other)
    assert ("fullcrawl", "cc_gneissweb_urls") in pages
    samples = {key: sample_pages(frame) for key, frame in pages.items()}
    sizes = warehouse.table("rpt_sample_size_correlation")
    assert set(sizes.loc[sizes["dataset"] == "fullcrawl", "classifier"]) == {"cc_gneissweb_urls"}
    assert_matches(
        f"{warehouse.name} rpt_sample_size_correlation",
        sizes,
        sample_size_correlation(samples),
        keys=["dataset", "classifier", "sample_size", "host_set"],
        numeric=[
            "host_count",
            "seed_count",
            "spearman_rho",
            "spearman_rho_sd",
            "spearman_rho_min",
            "spearman_rho_max",
        ],
    )
    _assert_depth_policy_curves(warehouse, depth_policy_curves(warehouse.inputs, samples, other))


# ----------------------------------------------------------------------- A7-A12


def test_host_crawls(warehouse: Warehouse, reference_host_crawls: pd.DataFrame):
    assert_matches(
        f"{warehouse.name} fct_host_crawls",
        warehouse.table("fct_host_crawls"),
        reference_host_crawls,
        keys=["crawl", "surt_host_name"],
        numeric=[
            "hc_val",
            "known_url_count",
            "fetched_url_count",
            "coverage_rate",
            "uncrawled_url_count",
            "annotated_page_count",
            "hq_page_count",
            "hq_density",
            "est_uncrawled_hq",
        ],
        exact=(
            "url_host_tld",
            "url_host_registry_suffix",
            "url_host_registered_domain",
            "annotation_level",
            "is_analysed",
            "is_low_coverage",
            "is_below_median_coverage",
            "is_top_decile_quality",
            "is_hidden_gem",
        ),
    )


def test_coverage_quality_correlation(warehouse: Warehouse, reference_host_crawls: pd.DataFrame):
    """rho and its bootstrap interval (rho shifted by its hosts' weighted influences)."""
    mart = warehouse.table("rpt_coverage_quality_correlation")
    assert_matches(
        f"{warehouse.name} rpt_coverage_quality_correlation",
        mart,
        coverage_quality_correlation(warehouse.inputs, reference_host_crawls),
        keys=["crawl", "signal", "min_annotated_pages"],
        numeric=[
            "host_count",
            "spearman_rho",
            "spearman_rho_ci_low",
            "spearman_rho_ci_high",
            "spearman_rho_se",
        ],
        exact=("signal_source",),
    )
    spread = mart.dropna(subset=["spearman_rho_se"])
    assert len(spread) and (spread["spearman_rho_se"] > 0).all()
    inside = spread["spearman_rho_ci_low"] <= spread["spearman_rho"] + 1e-12
    assert (
        inside & (spread["spearman_rho"] <= spread["spearman_rho_ci_high"] + 1e-12)
    ).mean() > 0.9


def test_uncrawled_hq_summary(warehouse: Warehouse, reference_host_crawls: pd.DataFrame):
    reference = uncrawled_hq_summary(warehouse.inputs, reference_host_crawls)
    mart = warehouse.table("rpt_uncrawled_hq_summary")
    assert_matches(
        f"{warehouse.name} rpt_uncrawled_hq_summary",
        mart,
        reference,
        keys=["crawl"],
        numeric=[column for column in reference.columns if column != "crawl"],
    )


def test_hidden_gems(warehouse: Warehouse, reference_host_crawls: pd.DataFrame):
    reference = hidden_gems(reference_host_crawls)
    assert_matches(
        f"{warehouse.name} rpt_hidden_gems",
        warehouse.table("rpt_hidden_gems"),
        reference,
        keys=["crawl", "gem_rank"],
        numeric=[
            "known_url_count",
            "fetched_url_count",
            "coverage_rate",
            "annotated_page_count",
            "hq_page_count",
            "hq_density",
            "est_uncrawled_hq",
        ],
        exact=("surt_host_name", "url_host_tld"),
    )


def test_missed_hq_by_tld(warehouse: Warehouse, reference_host_crawls: pd.DataFrame):
    mart = warehouse.table("rpt_missed_hq_by_tld")
    reference = missed_hq_by_tld(reference_host_crawls)
    # a null TLD is a group of its own: key it by a marker that no suffix spells
    for frame in (mart, reference):
        frame["url_host_tld"] = (
            frame["url_host_tld"].astype(object).where(frame["url_host_tld"].notna(), "<null>")
        )
    assert_matches(
        f"{warehouse.name} rpt_missed_hq_by_tld",
        mart,
        reference,
        keys=["crawl", "url_host_tld"],
        numeric=[
            "host_count",
            "host_share",
            "est_uncrawled_hq",
            "missed_share",
            "over_representation",
        ],
    )


def test_uncrawled_hq_by_coverage_band(warehouse: Warehouse, reference_host_crawls: pd.DataFrame):
    mart = warehouse.table("rpt_uncrawled_hq_by_coverage_band")
    reference = uncrawled_hq_by_coverage_band(reference_host_crawls)
    for frame in (mart, reference):
        frame["coverage_band_lower"] = frame["coverage_band_lower"].astype(float).round(12)
    assert_matches(
        f"{warehouse.name} rpt_uncrawled_hq_by_coverage_band",
        mart,
        reference,
        keys=["crawl", "coverage_band_lower"],
        numeric=["coverage_band_upper", "host_count", "est_uncrawled_hq", "hq_share"],
    )
