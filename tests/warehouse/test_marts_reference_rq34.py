"""Reference checks: every number of the RQ3/RQ4 marts against an independent computation.

Each mart is recomputed here from the raw rows in Python (plain loops over exact
``fractions.Fraction``s, ``scipy.stats.spearmanr``, ``hashlib.md5``; no SQL, no dbt macro) and
compared row by row (keys exact, nulls equal) to an absolute 1e-9, on the adversarial lake of
``tests/fixtures/warehouse.py`` (built by ``dbt build`` here) and on the tiny crawl's warehouse
named by ``HOSTAWARE_TEST_WAREHOUSE`` (marker ``warehouse``; inputs read back from its staging
views), as ``test_marts_reference.py`` does for RQ1/RQ2.

The definitions are SPEC §4 A5-A12 as issue 6's contract freezes them, with the annotation
profiles of issue 16 (``ingest/annotation_profiles.py``, ``seeds/annotation_profiles.csv``):

* Annotations: every page-level row is read under its annotation profile, whose rule says
  whether the page is HQ: ``in_gneissweb`` (``cc_gneissweb_urls``), ``quality_score >
  threshold`` (``dpk_gneissweb``, where quality_score is P(hq): the predicted label's
  probability for ``hq``, one minus it for ``cc``; 0.5) or ``quality_int_score >= threshold``
  (``fineweb_edu``, 3). A page's score is its quality_score, else its flag as 0/1. A crawl
  annotated under two page-level profiles is refused. A crawl without page-level
  annotations takes its host-level ones (``cc_gneissweb_hosts``): a host's HQ density is 1
  when it is in GneissWeb, else 0, with no page counts; host-level rows of a crawl that has
  page-level ones are ignored.
* Pages (A5, A6): ``classified`` = the sample's documents with a score of the classifier
  (HQ = score > the registry threshold); ``fullcrawl`` = the page-level annotations of
  ``fullcrawl_crawl``, HQ and score by their profile, the dataset's classifier named by the
  profile. Sample order within a host and seed s: md5_number(key || ':' || s), then key,
  where the key is the doc_id, or the annotation's page key (the record id, or Common Crawl's
  SURT URL key and fetch time: two captures of a URL are two pages).
* A5: Spearman of sample vs remaining HQ density over eligible hosts, per seed, then the
  mean, sd (ddof 1), min and max over the seeds where it is defined.
* A6: the water-filling levels D and c are found by fixing saturated hosts until none is
  left (not by the cumulative sums the SQL walks); greedy fills walk whole hosts with exact
  fractions and take part of the boundary host.
* A7-A12: coverage, uncrawled counts and densities as exact fractions; the median and the 0.9
  quantile by linear interpolation between order statistics (quantile_cont) of the exact
  values, so a host exactly at the quantile is in the top decile. A host annotated at host
  level is analysed when its coverage is known, and counts as one annotated page for the
  correlation's minimums. The TLD of rpt_missed_hq_by_tld is the host's last label
  (``url_host_tld``: uk for ac.uk), not its public suffix.

Where the contract is silent, the reference assumes:

* a null count is unknown, not zero: coverage_rate is null unless known > 0 and fetched is
  known, uncrawled_url_count is null when either count is (SQL's least()/greatest() would
  skip the null), and a host whose fetched count is null is not analysed;
* sample mean scores (sample_then_deepen's second key) are exact means of the scores rounded
  to 15 decimals, so means equal in decimals tie and the md5 of the host orders them;
* rows of rpt_coverage_quality_correlation exist per crawl, signal and
  coverage_quality_min_annotated_pages with at least one host; coverage bands without a host
  have no row; total_est_uncrawled_hq of a crawl without analysed hosts is 0;
* a host of a host-level crawl without a host-level annotation has 0 annotated pages (as a
  host of a page-level crawl without pages), a host with one has null page counts;
  annotated_hosts_missing_from_host_index counts the hosts whose annotations the crawl reads
  (page level, else host level).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest
import test_marts_reference as rq12
from scipy import stats
from test_marts_reference import VARS, assert_matches

from tests.fixtures import warehouse as warehouse_fixture

ANNOTATION_SIGNAL = ("annotations", "crawl_annotations")  # its signal and signal_source
PROFILES = rq12._seed("annotation_profiles").set_index("annotation_profile")
SEEDS = range(1, VARS["sample_seeds"] + 1)
# sample_then_deepen's second key, the sample's mean score, is the exact mean of the scores
# rounded to this many decimals (as the model sums them, in decimal(38, 15)): means equal in
# decimals (0.65 + 0.7 + 0.7 and 0.75 + 0.6 + 0.7) tie, and the md5 of the host decides.
SCORE_DECIMALS = Decimal("1e-15")


# ----------------------------------------------------------------------- warehouses


@dataclass(frozen=True)
class Inputs:
    """The committed raw rows the RQ3/RQ4 marts are computed from."""

    base: rq12.Inputs  # documents, scores, graph ranks (for the classified host universe)
    host_crawls: pd.DataFrame  # every host-index row: counts, hc_val, TLD, suffix and domain
    # page level: crawl, page_key, surt_host_name, annotation_profile, quality_score,
    # quality_int_score, in_gneissweb (as the lake holds them)
    annotations: pd.DataFrame
    host_annotations: pd.DataFrame  # crawl, surt_host_name, annotation_profile, in_gneissweb


@dataclass(frozen=True)
class Warehouse:
    name: str
    path: Path
    inputs: Inputs
    build: warehouse_fixture.Build | None = None

    def table(self, relation: str) -> pd.DataFrame:
        with duckdb.connect(str(self.path), read_only=True) as connection:
            return connection.sql(f"select * from {relation}").df()


HOST_CRAWL_COLUMNS = [
    "crawl",
    "surt_host_name",
    "url_host_tld",
    "url_host_registry_suffix",
    "url_host_registered_domain",
    "hc_val",
    "known_url_count",
    "fetched_url_count",
]
PAGE_COLUMNS = [
    "crawl",
    "page_key",
    "surt_host_name",
    "annotation_profile",
    "quality_score",
    "quality_int_score",
    "in_gneissweb",
]
HOST_ANNOTATION_COLUMNS = ["crawl", "surt_host_name", "annotation_profile", "in_gneissweb"]


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
    base = rq12.Inputs(
        documents=lake.documents[rq12.DOCUMENT_COLUMNS],
        scores=lake.document_scores[["doc_id", "classifier", "score"]],
        host_ranks=lake.host_ranks[["release", "surt_host_name", "hc_val", "pr_val"]],
        host_crawls=host_crawls[["crawl", "surt_host_name", "fetched_url_count"]],
    )
    annotations = pd.concat(
        [lake.page_annotations[PAGE_COLUMNS], dpk_pages(lake.dpk_source)], ignore_index=True
    )
    return Inputs(base, host_crawls, annotations, lake.host_annotations[HOST_ANNOTATION_COLUMNS])


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
    queries = {
        "documents": f"select {', '.join(rq12.DOCUMENT_COLUMNS)} from stg_crawl__documents",
        "scores": "select doc_id, classifier, score from stg_crawl__document_scores",
        "host_ranks": "select release, surt_host_name, hc_val, pr_val "
        "from stg_webgraph__host_ranks",
        "host_crawls": f"select {', '.join(HOST_CRAWL_COLUMNS)} from stg_host_index__host_crawls",
        "annotations": f"select {', '.join(PAGE_COLUMNS[:-1])}, is_in_gneissweb as in_gneissweb "
        "from stg_annotations__pages",
        "host_annotations": f"select {', '.join(HOST_ANNOTATION_COLUMNS[:-1])}, "
        "is_in_gneissweb as in_gneissweb from stg_annotations__hosts",
    }
    with duckdb.connect(str(path), read_only=True) as connection:
        frames = {name: connection.sql(query).df() for name, query in queries.items()}
    host_crawls = frames.pop("host_crawls")
    annotations = frames.pop("annotations")
    host_annotations = frames.pop("host_annotations")
    base = rq12.Inputs(
        **frames, host_crawls=host_crawls[["crawl", "surt_host_name", "fetched_url_count"]]
    )
    return Warehouse("tiny", path, Inputs(base, host_crawls, annotations, host_annotations))


@pytest.fixture(
    scope="module",
    params=["adversarial", pytest.param("tiny", marks=pytest.mark.warehouse)],
)
def warehouse(request: pytest.FixtureRequest) -> Warehouse:
    return request.getfixturevalue(f"{request.param}_warehouse")


# ----------------------------------------------------------------------- small helpers


def _value(value: object) -> object:
    """None for SQL nulls (None, NaN, pd.NA), else the value."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _fraction(value: object) -> Fraction | None:
    value = _value(value)
    return None if value is None else Fraction(value)


def _float(value: Fraction | None) -> float:
    return math.nan if value is None else float(value)


def _spearman(x: Sequence[Fraction], y: Sequence[Fraction]) -> float | None:
    """scipy's Spearman rho (mid-ranks); None with fewer than 2 pairs or a constant side."""
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a constant input would warn: it must not happen here
        return float(stats.spearmanr([float(v) for v in x], [float(v) for v in y]).statistic)


def quantile_cont(values: Iterable[Fraction], quantile: Fraction) -> Fraction | None:
    """The linear-interpolation quantile of exact values (nulls skipped), exactly."""
    ordered = sorted(value for value in values if value is not None)
    if not ordered:
        return None
    position = (len(ordered) - 1) * quantile
    lower = math.floor(position)
    upper = math.ceil(position)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


def _sql_and(left: bool | None, right: bool | None) -> bool | None:
    """SQL's three-valued AND."""
    if left is False or right is False:
        return False
    if left is None or right is None:
        return None
    return True


def _summary(values: list[float]) -> dict[str, float]:
    """Mean, sample sd (null below two values), min and max; all null without values."""
    if not values:
        return {"mean": math.nan, "sd": math.nan, "min": math.nan, "max": math.nan}
    return {
        "mean": math.fsum(values) / len(values),
        "sd": float(np.std(values, ddof=1)) if len(values) > 1 else math.nan,
        "min": min(values),
        "max": max(values),
    }


# ----------------------------------------------------------------------- RQ3: pages and samples


@dataclass(frozen=True)
class Host:
    """One host's pages of one dataset × classifier, in sample order per seed."""

    name: str
    page_count: int
    hq_count: int
    samples: dict[int, tuple[tuple[bool, Fraction], ...]]  # seed → (is_hq, score) in order

    def sample_hq(self, seed: int, size: int) -> int:
        return sum(is_hq for is_hq, _ in self.samples[seed][:size])

    def sample_score_mean(self, seed: int, size: int) -> Fraction:
        scores = [
            Fraction(Decimal(float(score)).quantize(SCORE_DECIMALS, ROUND_HALF_UP))
            for _, score in self.samples[seed][:size]
        ]
        return sum(scores, Fraction(0)) / len(scores)


def pages_flagged(inputs: Inputs, profile: str | None = VARS["annotation_profile"]) -> pd.DataFrame:
    """Page-level annotations with is_hq by their profile's rule and their score.

    Only those of ``profile`` (the ``annotation_profile`` var) when it is set. The rule's
    column is never null (the ingest rejects such rows); a crawl under two profiles is refused.
    """
    pages = inputs.annotations
    if profile is not None:
        pages = pages[pages["annotation_profile"] == profile]
    flags, scores = [], []
    for row in pages[PAGE_COLUMNS].itertuples(index=False):
        rules = PROFILES.loc[row.annotation_profile]
        assert rules["annotation_level"] == "page", row
        rule, threshold = rules["hq_rule"], rules["hq_threshold"]
        if rule == "in_gneissweb":
            value = _value(row.in_gneissweb)
            is_hq = None if value is None else bool(value)
        elif rule == "quality_score_above":
            value = _fraction(row.quality_score)
            is_hq = None if value is None else value > Fraction(str(threshold))
        else:
            assert rule == "int_score_at_least", rule
            value = _value(row.quality_int_score)
            is_hq = None if value is None else int(value) >= Fraction(str(threshold))
        assert is_hq is not None, f"a page without its profile's quality signal: {row}"
        quality = _value(row.quality_score)
        flags.append(is_hq)
        scores.append(float(quality) if quality is not None else float(is_hq))
    flagged = pages.assign(is_hq=flags, signal_score=scores)
    profiles = flagged.groupby("crawl")["annotation_profile"].nunique()
    assert (profiles <= 1).all(), f"crawls annotated under two profiles: {profiles[profiles > 1]}"
    return flagged


def dataset_pages(
    inputs: Inputs, fullcrawl: str = VARS["fullcrawl_crawl"]
) -> dict[tuple[str, str], pd.DataFrame]:
    """(dataset, classifier) → pages: doc_id, surt_host_name, score, is_hq.

    The full crawl's doc_id is the annotation's page key and its classifier the profile.
    """
    pages = {}
    flagged = rq12.scores_flagged(inputs.base)
    for classifier, group in flagged.groupby("classifier"):
        pages[("classified", classifier)] = group[["doc_id", "surt_host_name", "score", "is_hq"]]
    annotated = pages_flagged(inputs)
    for profile, group in annotated[annotated["crawl"] == fullcrawl].groupby("annotation_profile"):
        pages[("fullcrawl", profile)] = group.rename(
            columns={"page_key": "doc_id", "signal_score": "score"}
        )[["doc_id", "surt_host_name", "score", "is_hq"]]
    return pages


def sampled_hosts(pages: pd.DataFrame) -> list[Host]:
    """Each host's pages in md5_number(doc_id || ':' || seed) order, ties by doc_id."""
    hosts = []
    for name, group in pages.groupby("surt_host_name"):
        records = list(
            zip(group["doc_id"], group["is_hq"], group["score"].map(Fraction), strict=True)
        )
        samples = {}
        for seed in SEEDS:
            ordered = sorted(
                records, key=lambda page, s=seed: (rq12._md5_number(f"{page[0]}:{s}"), page[0])
            )
            samples[seed] = tuple((bool(is_hq), score) for _, is_hq, score in ordered)
        hq = sum(bool(is_hq) for _, is_hq, _ in records)
        hosts.append(Host(name, len(records), hq, samples))
    return hosts


@pytest.fixture(scope="module")
def samples(warehouse: Warehouse) -> dict[tuple[str, str], list[Host]]:
    return {key: sampled_hosts(pages) for key, pages in dataset_pages(warehouse.inputs).items()}


# ----------------------------------------------------------------------- A5


def sample_size_correlation(samples: dict[tuple[str, str], list[Host]]) -> pd.DataFrame:
    largest = VARS["sample_size_max"]
    fixed_minimum = VARS["fixed_host_set_min_pages"]
    assert fixed_minimum > largest, "the fixed host set must leave pages after every sample"
    rows = []
    for (dataset, classifier), hosts in samples.items():
        for size in range(1, largest + 1):
            for host_set, minimum in (("variable", size + 1), ("fixed", fixed_minimum)):
                eligible = [host for host in hosts if host.page_count >= minimum]
                if not eligible:
                    continue
                rhos = []
                for seed in SEEDS:
                    sampled = [host.sample_hq(seed, size) for host in eligible]
                    sample_density = [Fraction(hq, size) for hq in sampled]
                    remaining_density = [
                        Fraction(host.hq_count - hq, host.page_count - size)
                        for host, hq in zip(eligible, sampled, strict=True)
                    ]
                    rho = _spearman(sample_density, remaining_density)
                    if rho is not None:
                        rhos.append(rho)
                summary = _summary(rhos)
                rows.append(
                    {
                        "dataset": dataset,
                        "classifier": classifier,
                        "sample_size": size,
                        "host_set": host_set,
                        "host_count": len(eligible),
                        "seed_count": len(rhos),
                        "spearman_rho": summary["mean"],
                        "spearman_rho_sd": summary["sd"],
                        "spearman_rho_min": summary["min"],
                        "spearman_rho_max": summary["max"],
                    }
                )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------- A6


def water_fill(
    caps: Sequence[Fraction], weights: Sequence[Fraction], budget: Fraction
) -> tuple[list[Fraction], Fraction | None]:
    """a_h = min(cap_h, level · w_h) with Σ a_h = budget; returns (a, level).

    Found by elimination: at the level that spreads what is left over the unsaturated hosts,
    every host whose cap it reaches is saturated in the solution too (the level only rises as
    such hosts leave); fix them and repeat until none saturates. The level is None when every
    host is saturated (budget = Σ caps). Raises ValueError for a budget above Σ caps.
    """
    if budget > sum(caps, Fraction(0)):
        raise ValueError("budget above the total capacity")
    free = set(range(len(caps)))
    fixed_pages = Fraction(0)
    level: Fraction | None = None
    while free:
        level = (budget - fixed_pages) / sum((weights[i] for i in free), Fraction(0))
        saturated = {i for i in free if caps[i] <= level * weights[i]}
        if not saturated:
            break
        free -= saturated
        fixed_pages += sum((caps[i] for i in saturated), Fraction(0))
    if not free:
        level = None
    allocation = [level * weights[i] if i in free else Fraction(caps[i]) for i in range(len(caps))]
    return allocation, level


def greedy_fill(order: Iterable[tuple[int, Fraction]], budget: Fraction) -> Fraction:
    """Whole hosts (pages, expected HQ) while they fit, then part of the boundary host."""
    remaining, collected = budget, Fraction(0)
    for pages, hq in order:
        if remaining <= 0:
            break
        taken = min(Fraction(pages), remaining)
        collected += taken / pages * hq
        remaining -= taken
    return collected


def sample_then_deepen(
    hosts: Sequence[Host], seed: int, budget: Fraction, size: int, charged: bool
) -> Fraction | None:
    """Sample min(n, k) pages of every host, then deepen greedily by sample density."""
    sampled = [min(host.page_count, size) for host in hosts]
    if budget < sum(sampled):
        return None
    collected = Fraction(
        sum(host.sample_hq(seed, s) for host, s in zip(hosts, sampled, strict=True))
    )
    remaining = budget - sum(sampled) if charged else budget
    candidates = []
    for host, taken in zip(hosts, sampled, strict=True):
        rest = host.page_count - taken
        if rest <= 0:
            continue
        sample_hq = host.sample_hq(seed, taken)
        key = (
            -Fraction(sample_hq, taken),
            -host.sample_score_mean(seed, taken),
            rq12._md5_number(host.name),
            host.name,
        )
        candidates.append((key, rest, Fraction(host.hq_count - sample_hq)))
    order = [(rest, hq) for _, rest, hq in sorted(candidates)]
    return collected + greedy_fill(order, remaining)


def oracle(hosts: Sequence[Host], budget: Fraction) -> Fraction:
    ordered = sorted(
        hosts,
        key=lambda h: (-Fraction(h.hq_count, h.page_count), -h.hq_count, rq12._md5_number(h.name)),
    )
    return greedy_fill(((h.page_count, Fraction(h.hq_count)) for h in ordered), budget)


def depth_universes(
    inputs: Inputs,
    samples: dict[tuple[str, str], list[Host]],
    fullcrawl: str = VARS["fullcrawl_crawl"],
) -> dict[tuple[str, str], list[tuple[Host, Fraction]]]:
    """(dataset, classifier) → hosts with >= min_docs_per_host pages and a weight hc_val > 0."""
    universe = rq12.host_universe(inputs.base)
    crawls = inputs.host_crawls
    index_hc = crawls[crawls["crawl"] == fullcrawl].set_index("surt_host_name")
    assert not index_hc.index.duplicated().any()
    result = {}
    for (dataset, classifier), hosts in samples.items():
        if dataset == "classified":
            of_classifier = universe[universe["classifier"] == classifier]
            weights = dict(
                zip(of_classifier["surt_host_name"], of_classifier["hc_val"], strict=True)
            )
        else:
            weights = index_hc["hc_val"].to_dict()
        members = []
        for host in hosts:
            weight = _fraction(weights.get(host.name))
            if host.page_count >= VARS["min_docs_per_host"] and weight is not None and weight > 0:
                members.append((host, weight))
        result[(dataset, classifier)] = members
    return result


def depth_policy_curves(
    inputs: Inputs,
    samples: dict[tuple[str, str], list[Host]],
    fullcrawl: str = VARS["fullcrawl_crawl"],
) -> pd.DataFrame:
    size = VARS["depth_sample_size"]
    charged = VARS["depth_sample_is_charged"]
    rows = []
    for (dataset, classifier), members in depth_universes(inputs, samples, fullcrawl).items():
        if not members:
            continue
        hosts = [host for host, _ in members]
        pages = [Fraction(host.page_count) for host in hosts]
        densities = [Fraction(host.hq_count, host.page_count) for host in hosts]
        total_pages = sum(pages, Fraction(0))
        total_hq = sum(host.hq_count for host in hosts)
        sample_cost = sum(min(host.page_count, size) for host in hosts)
        for share in VARS["budget_shares"]:
            budget = Fraction(str(share)) * total_pages
            results: dict[str, list[Fraction | None]] = {}
            for policy, weights in (
                ("uniform_breadth", [Fraction(1)] * len(hosts)),
                ("hc_depth", [weight for _, weight in members]),
            ):
                allocation, _ = water_fill(pages, weights, budget)
                results[policy] = [
                    sum((a * d for a, d in zip(allocation, densities, strict=True)), Fraction(0))
                ]
            results["sample_then_deepen"] = [
                sample_then_deepen(hosts, seed, budget, size, charged) for seed in SEEDS
            ]
            results["oracle"] = [oracle(hosts, budget)]
            uniform = results["uniform_breadth"][0]
            for policy, values in results.items():
                feasible = all(value is not None for value in values)
                expected = sum(values, Fraction(0)) / len(values) if feasible else None
                is_sampled = policy == "sample_then_deepen"
                rows.append(
                    {
                        "dataset": dataset,
                        "classifier": classifier,
                        "policy": policy,
                        "budget_share": share,
                        "host_count": len(hosts),
                        "total_page_count": int(total_pages),
                        "total_hq_page_count": total_hq,
                        "budget_pages": float(budget),
                        "pages_fetched": float(budget) if feasible else math.nan,
                        "hq_expected": _float(expected),
                        "hq_expected_sd": float(np.std([float(v) for v in values], ddof=1))
                        if is_sampled and feasible and len(values) > 1
                        else math.nan,
                        "yield_per_fetch": _float(expected / budget) if feasible else math.nan,
                        "ratio_vs_uniform": _float(expected / uniform)
                        if feasible and uniform
                        else math.nan,
                        "is_feasible": feasible,
                        "min_feasible_budget_share": float(Fraction(sample_cost) / total_pages)
                        if is_sampled
                        else 0.0,
                        "seed_count": len(values),
                    }
                )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------- A7-A12


def host_crawl_annotations(
    inputs: Inputs, profile: str | None = VARS["annotation_profile"]
) -> dict[tuple[str, str], tuple]:
    """(crawl, host) → (level, annotated pages, HQ pages, HQ density).

    Page level where the crawl has page-level annotations (of ``profile`` when set); else
    each host-level annotation: density 1 in GneissWeb, 0 otherwise, no page counts.
    """
    pages = pages_flagged(inputs, profile)
    result: dict[tuple[str, str], tuple] = {}
    counts: dict[tuple[str, str], list[int]] = {}
    for crawl, host, is_hq in zip(
        pages["crawl"], pages["surt_host_name"], pages["is_hq"], strict=True
    ):
        pair = counts.setdefault((crawl, host), [0, 0])
        pair[0] += 1
        pair[1] += bool(is_hq)
    for key, (annotated, hq) in counts.items():
        result[key] = ("page", annotated, hq, Fraction(hq, annotated))
    with_pages = set(pages["crawl"])
    hosts = inputs.host_annotations
    for row in hosts.itertuples(index=False):
        assert PROFILES.loc[row.annotation_profile, "annotation_level"] == "host"
        if row.crawl in with_pages:
            continue
        key = (row.crawl, row.surt_host_name)
        assert key not in result, f"two host-level annotations of {key}"
        result[key] = ("host", None, None, Fraction(int(bool(row.in_gneissweb))))
    return result


def host_crawls(inputs: Inputs) -> pd.DataFrame:
    """fct_host_crawls: every host-index row, its annotations, and the crawl-level flags."""
    annotated = host_crawl_annotations(inputs)
    minimum = VARS["rq4_min_annotated_pages"]
    rows = []
    for row in inputs.host_crawls.to_dict("records"):
        known, fetched = _value(row["known_url_count"]), _value(row["fetched_url_count"])
        level, pages, hq, density = annotated.get(
            (row["crawl"], row["surt_host_name"]), (None, 0, 0, None)
        )
        coverage = uncrawled = None
        if known is not None and known > 0 and fetched is not None:
            coverage = min(Fraction(int(fetched), int(known)), Fraction(1))
        if known is not None and fetched is not None:
            uncrawled = max(int(known) - int(fetched), 0)
        # an unknown fetched count leaves the coverage unknown: not analysed (an assumption)
        analysed = coverage is not None and (level == "host" or pages >= minimum)
        estimate = uncrawled * density if analysed and uncrawled is not None else None
        rows.append(
            {
                **{column: _value(row[column]) for column in HOST_CRAWL_COLUMNS},
                "coverage": coverage,
                "uncrawled_url_count": uncrawled,
                "annotation_level": level,
                "annotated_page_count": pages,
                "hq_page_count": hq,
                "density": density,
                "is_analysed": analysed,
                "estimate": estimate,
            }
        )
    hosts = pd.DataFrame(rows)
    low = Fraction(str(VARS["low_coverage_threshold"]))
    top = Fraction(str(VARS["top_quality_quantile"]))
    flags = []
    for _, crawl_hosts in hosts.groupby("crawl"):
        analysed = crawl_hosts[crawl_hosts["is_analysed"]]
        median = quantile_cont(analysed["coverage"], Fraction(1, 2))
        threshold = quantile_cont(analysed["density"], top)
        for index, host in crawl_hosts.iterrows():
            if not host["is_analysed"]:
                flags.append((index, None, None, None, None, median, threshold))
                continue
            coverage = host["coverage"]
            is_low = None if coverage is None else coverage < low
            below = None if coverage is None or median is None else coverage < median
            is_top = host["density"] >= threshold
            flags.append((index, is_low, below, is_top, _sql_and(below, is_top), median, threshold))
    flagged = pd.DataFrame(
        [flag[1:] for flag in flags],
        index=[flag[0] for flag in flags],
        columns=[
            "is_low_coverage",
            "is_below_median_coverage",
            "is_top_decile_quality",
            "is_hidden_gem",
            "coverage_median",
            "quality_threshold",
        ],
        dtype=object,
    )
    return hosts.join(flagged)


def _as_mart(hosts: pd.DataFrame) -> pd.DataFrame:
    """fct_host_crawls' columns, numbers as floats (nulls NaN)."""
    result = hosts[HOST_CRAWL_COLUMNS].copy()
    result["coverage_rate"] = hosts["coverage"].map(_float)
    result["uncrawled_url_count"] = hosts["uncrawled_url_count"].map(
        lambda value: math.nan if value is None else float(value)
    )
    result["annotation_level"] = hosts["annotation_level"]
    for column in ("annotated_page_count", "hq_page_count"):
        result[column] = hosts[column].map(
            lambda value: math.nan if _value(value) is None else float(value)
        )
    result["hq_density"] = hosts["density"].map(_float)
    result["est_uncrawled_hq"] = hosts["estimate"].map(_float)
    for column in (
        "is_analysed",
        "is_low_coverage",
        "is_below_median_coverage",
        "is_top_decile_quality",
        "is_hidden_gem",
    ):
        result[column] = hosts[column]
    return result


def _share(part: Fraction | None, total: Fraction | None) -> float:
    return float(part / total) if part is not None and total else math.nan


def _total(values: Iterable[Fraction | None]) -> Fraction | None:
    """SQL sum(): nulls skipped, null when nothing is left."""
    present = [value for value in values if value is not None]
    return sum(present, Fraction(0)) if present else None


def uncrawled_hq_summary(inputs: Inputs, hosts: pd.DataFrame) -> pd.DataFrame:
    annotated = host_crawl_annotations(inputs)
    rows = []
    for crawl, crawl_hosts in hosts.groupby("crawl"):
        analysed = crawl_hosts[crawl_hosts["is_analysed"]]
        total = _total(analysed["estimate"]) or Fraction(0)  # no analysed host: nothing missed

        def part(mask: pd.Series, analysed: pd.DataFrame = analysed) -> tuple[int, Fraction | None]:
            chosen = analysed[mask.fillna(False).astype(bool)]
            return len(chosen), _total(chosen["estimate"])

        low_count, low_hq = part(analysed["is_low_coverage"] == True)  # noqa: E712
        below_count, below_hq = part(analysed["is_below_median_coverage"] == True)  # noqa: E712
        gem_count, gem_hq = part(analysed["is_hidden_gem"] == True)  # noqa: E712
        with_hq = (analysed["is_low_coverage"] == True) & analysed["density"].map(  # noqa: E712
            lambda density: density > 0
        )
        with_hq_count, with_hq_hq = part(with_hq)
        of_crawl = {host for annotated_crawl, host in annotated if annotated_crawl == crawl}
        missing = of_crawl - set(crawl_hosts["surt_host_name"])
        rows.append(
            {
                "crawl": crawl,
                "analysed_host_count": len(analysed),
                "total_est_uncrawled_hq": _float(total),
                "coverage_median": _float(crawl_hosts["coverage_median"].iloc[0]),
                "hq_density_top_cutoff": _float(crawl_hosts["quality_threshold"].iloc[0]),
                "low_coverage_host_count": low_count,
                "low_coverage_hq_share": _share(low_hq or Fraction(0), total),
                "below_median_coverage_host_count": below_count,
                "below_median_coverage_hq_share": _share(below_hq or Fraction(0), total),
                "hidden_gem_count": gem_count,
                "hidden_gem_host_share": gem_count / len(analysed) if len(analysed) else math.nan,
                "hidden_gem_hq_share": _share(gem_hq or Fraction(0), total),
                "low_coverage_with_hq_host_count": with_hq_count,
                "low_coverage_with_hq_hq_share": _share(with_hq_hq or Fraction(0), total),
                "annotated_hosts_missing_from_host_index": len(missing),
            }
        )
    return pd.DataFrame(rows)


HIDDEN_GEM_COLUMNS = [
    "crawl",
    "gem_rank",
    "surt_host_name",
    "url_host_tld",
    "known_url_count",
    "fetched_url_count",
    "coverage_rate",
    "annotated_page_count",
    "hq_page_count",
    "hq_density",
    "est_uncrawled_hq",
]


def hidden_gems(hosts: pd.DataFrame) -> pd.DataFrame:
    gems = hosts[hosts["is_hidden_gem"] == True]  # noqa: E712
    rows = []
    for _, crawl_gems in gems.groupby("crawl"):
        ordered = sorted(
            crawl_gems.to_dict("records"),
            key=lambda gem: (-gem["estimate"], gem["surt_host_name"]),
        )
        for rank, gem in enumerate(ordered, start=1):
            rows.append(
                {
                    "crawl": gem["crawl"],
                    "gem_rank": rank,
                    "surt_host_name": gem["surt_host_name"],
                    "url_host_tld": gem["url_host_tld"],
                    "known_url_count": gem["known_url_count"],
                    "fetched_url_count": gem["fetched_url_count"],
                    "coverage_rate": float(gem["coverage"]),
                    "annotated_page_count": gem["annotated_page_count"],
                    "hq_page_count": gem["hq_page_count"],
                    "hq_density": float(gem["density"]),
                    "est_uncrawled_hq": float(gem["estimate"]),
                }
            )
    return pd.DataFrame(rows, columns=HIDDEN_GEM_COLUMNS)


def missed_hq_by_tld(hosts: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for crawl, crawl_hosts in hosts.groupby("crawl"):
        analysed = crawl_hosts[crawl_hosts["is_analysed"]]
        total = _total(analysed["estimate"])
        groups: dict[str | None, list[Fraction | None]] = {}
        for tld, estimate in zip(analysed["url_host_tld"], analysed["estimate"], strict=True):
            groups.setdefault(_value(tld), []).append(estimate)
        for tld, estimates in groups.items():
            host_share = Fraction(len(estimates), len(analysed))
            estimate = _total(estimates)
            missed = estimate / total if total and estimate is not None else None
            rows.append(
                {
                    "crawl": crawl,
                    "url_host_tld": tld,
                    "host_count": len(estimates),
                    "host_share": float(host_share),
                    "est_uncrawled_hq": _float(estimate),
                    "missed_share": _float(missed),
                    "over_representation": _float(missed / host_share)
                    if missed is not None
                    else math.nan,
                }
            )
    return pd.DataFrame(rows)


def uncrawled_hq_by_coverage_band(hosts: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for crawl, crawl_hosts in hosts.groupby("crawl"):
        analysed = crawl_hosts[crawl_hosts["is_analysed"] & crawl_hosts["coverage"].notna()]
        total = _total(crawl_hosts.loc[crawl_hosts["is_analysed"], "estimate"])
        bands: dict[int, list[Fraction | None]] = {}
        for coverage, estimate in zip(analysed["coverage"], analysed["estimate"], strict=True):
            band = min(math.floor(coverage * 10), 9)  # exactly: coverage is a fraction
            bands.setdefault(band, []).append(estimate)
        for band, estimates in sorted(bands.items()):
            estimate = _total(estimates)
            rows.append(
                {
                    "crawl": crawl,
                    "coverage_band_lower": band / 10,
                    "coverage_band_upper": (band + 1) / 10,
                    "host_count": len(estimates),
                    "est_uncrawled_hq": _float(estimate),
                    "hq_share": _share(estimate, total),
                }
            )
    return pd.DataFrame(rows)


def coverage_quality_correlation(inputs: Inputs, hosts: pd.DataFrame) -> pd.DataFrame:
    """Per crawl, signal and minimum of annotated pages (rows with no host are left out)."""
    stats_ = rq12.host_classifier_stats(inputs.base)
    stats_ = stats_[stats_["doc_count"] >= VARS["min_docs_per_host"]]
    rows = []
    for crawl, crawl_hosts in hosts.groupby("crawl"):
        for minimum in VARS["coverage_quality_min_annotated_pages"]:
            # a host annotated at host level counts as one annotated page
            pages = crawl_hosts["annotated_page_count"].map(
                lambda count: 1 if _value(count) is None else count
            )
            analysed = crawl_hosts[crawl_hosts["is_analysed"] & (pages >= minimum)]
            coverage = dict(zip(analysed["surt_host_name"], analysed["coverage"], strict=True))
            pairs = {
                ANNOTATION_SIGNAL: list(zip(analysed["coverage"], analysed["density"], strict=True))
            }
            for classifier in sorted(rq12.REGISTRY["classifier"]):
                of_classifier = stats_[stats_["classifier"] == classifier]
                pairs[(classifier, "classified_sample")] = [
                    (coverage[host], Fraction(median))
                    for host, median in zip(
                        of_classifier["surt_host_name"],
                        of_classifier["quality_score_median"],
                        strict=True,
                    )
                    if host in coverage
                ]
            for (signal, source), signal_pairs in pairs.items():
                if not signal_pairs:
                    continue
                rows.append(
                    {
                        "crawl": crawl,
                        "signal": signal,
                        "min_annotated_pages": minimum,
                        "signal_source": source,
                        "host_count": len(signal_pairs),
                        "spearman_rho": _spearman(*zip(*signal_pairs, strict=True)),
                    }
                )
    frame = pd.DataFrame(rows)
    frame["spearman_rho"] = frame["spearman_rho"].astype(float)
    return frame


@pytest.fixture(scope="module")
def reference_host_crawls(warehouse: Warehouse) -> pd.DataFrame:
    return host_crawls(warehouse.inputs)


# ----------------------------------------------------------------------- the reference itself


def _uniform(caps: list[int], budget: Fraction) -> list[Fraction]:
    return water_fill([Fraction(c) for c in caps], [Fraction(1)] * len(caps), budget)[0]


def test_water_filling_finds_the_common_depth():
    allocation, level = water_fill(
        [Fraction(n) for n in (1, 2, 5, 10)], [Fraction(1)] * 4, Fraction(10)
    )
    assert level == Fraction(7, 2)
    assert allocation == [1, 2, Fraction(7, 2), Fraction(7, 2)]
    assert _uniform([1, 2, 5, 10], Fraction(18)) == [1, 2, 5, 10]  # the whole universe
    assert _uniform([4, 4, 4], Fraction(6)) == [2, 2, 2]  # no host saturates
    with pytest.raises(ValueError):
        _uniform([1, 2], Fraction(4))


def test_water_filling_with_weights_caps_the_heavy_host():
    caps, weights = [Fraction(4), Fraction(10)], [Fraction(1), Fraction(3)]
    assert water_fill(caps, weights, Fraction(8)) == ([2, 6], 2)
    assert water_fill(caps, weights, Fraction(13)) == ([Fraction(13, 4), Fraction(39, 4)], 3.25)
    assert water_fill(caps, weights, Fraction(27, 2))[0] == [Fraction(7, 2), 10]
    assert water_fill(caps, weights, Fraction(14)) == ([4, 10], None)


def test_water_filling_agrees_with_bisection():
    """The elimination against a bisection on the level, on random instances."""
    rng = np.random.default_rng(5)
    for _ in range(40):
        caps = [Fraction(int(n)) for n in rng.integers(1, 30, int(rng.integers(1, 12)))]
        weights = [Fraction(int(w), 4) for w in rng.integers(1, 20, len(caps))]
        budget = sum(caps) * Fraction(int(rng.integers(1, 100)), 100)
        allocation, _ = water_fill(caps, weights, budget)
        assert sum(allocation) == budget
        low, high = Fraction(0), max(c / w for c, w in zip(caps, weights, strict=True))
        for _ in range(60):
            middle = (low + high) / 2
            filled = sum(min(c, middle * w) for c, w in zip(caps, weights, strict=True))
            low, high = (middle, high) if filled < budget else (low, middle)
        bisected = [min(c, high * w) for c, w in zip(caps, weights, strict=True)]
        assert max(abs(float(a - b)) for a, b in zip(allocation, bisected, strict=True)) < 1e-12


def _host(name: str, flags: str, scores: Sequence[float] | None = None) -> Host:
    """A host whose sample order is the same for every seed: 'h' = HQ page, '.' = not."""
    scores = scores or [0.9 if flag == "h" else 0.1 for flag in flags]
    pages = tuple((flag == "h", Fraction(score)) for flag, score in zip(flags, scores, strict=True))
    return Host(name, len(flags), flags.count("h"), dict.fromkeys(SEEDS, pages))


def test_sample_then_deepen_is_infeasible_below_the_sample_cost():
    hosts = [_host("a", "h.h.h"), _host("b", "..h"), _host("c", "hhhh..")]
    assert sample_then_deepen(hosts, 1, Fraction(8), 3, charged=True) is None
    # exactly the sample: 2 + 1 + 3 HQ pages among the first three pages of each host
    assert sample_then_deepen(hosts, 1, Fraction(9), 3, charged=True) == 6


def test_sample_then_deepen_deepens_the_best_sample_and_part_of_the_boundary_host():
    hosts = [_host("a", "h.h.h"), _host("b", "..h"), _host("c", "hhhh..")]
    # c (sample 3/3) first: its 3 remaining pages hold 1 HQ; then a (2/3): 2 pages, 1 HQ.
    assert sample_then_deepen(hosts, 1, Fraction(12), 3, charged=True) == 6 + 1
    assert sample_then_deepen(hosts, 1, Fraction(13), 3, charged=True) == 6 + 1 + Fraction(1, 2)
    assert sample_then_deepen(hosts, 1, Fraction(14), 3, charged=True) == 6 + 1 + 1
    # the free sample deepens with the whole budget (still infeasible below S, as contracted)
    assert sample_then_deepen(hosts, 1, Fraction(9), 3, charged=False) == 6 + 1 + 1
    assert sample_then_deepen(hosts, 1, Fraction(8), 3, charged=False) is None
    # equal sample densities: the higher sample mean score goes first
    tied = [_host("x", "h..h", [0.6, 0.2, 0.2, 1.0]), _host("y", "h...", [0.9, 0.2, 0.2, 0.2])]
    assert sample_then_deepen(tied, 1, Fraction(7), 3, charged=True) == 2 + 0  # y first
    assert sample_then_deepen(tied, 1, Fraction(8), 3, charged=True) == 2 + 0 + 1


def test_oracle_and_quantile_and_spearman_helpers():
    hosts = [_host("a", "hh.."), _host("b", "h"), _host("c", "hhh.")]
    assert oracle(hosts, Fraction(3)) == 1 + Fraction(2 * 3, 4)  # b, then 2 of c's 4 pages
    assert quantile_cont([Fraction(0), Fraction(1, 2), Fraction(1)], Fraction(9, 10)) == Fraction(
        9, 10
    )
    # 11 values: the 0.9 quantile is the 10th exactly, so a host at it is top decile
    values = [Fraction(i, 10) for i in range(11)]
    assert quantile_cont(values, Fraction(9, 10)) == Fraction(9, 10)
    assert quantile_cont([Fraction(1), None, Fraction(3)], Fraction(1, 2)) == 2
    assert _spearman([Fraction(1)] * 3, [Fraction(1), Fraction(2), Fraction(3)]) is None
    assert _spearman([Fraction(1)], [Fraction(2)]) is None
    assert _spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)  # 1 - 6 * 2 / (3 * 8)
    assert _sql_and(None, False) is False and _sql_and(True, None) is None


def test_sample_order_is_md5_number_of_doc_id_and_seed():
    pages = pd.DataFrame(
        {
            "doc_id": ["d1", "d2", "d3"],
            "surt_host_name": ["h"] * 3,
            "score": [0.1, 0.9, 0.6],
            "is_hq": [False, True, True],
        }
    )
    (host,) = sampled_hosts(pages)
    for seed in SEEDS:
        with duckdb.connect() as connection:
            expected = connection.sql(
                f"select doc_id from (values ('d1'), ('d2'), ('d3')) pages(doc_id) "
                f"order by md5_number(doc_id || ':' || {seed}), doc_id"
            ).fetchall()
        scores = {"d1": Fraction(0.1), "d2": Fraction(0.9), "d3": Fraction(0.6)}
        assert [score for _, score in host.samples[seed]] == [scores[d] for (d,) in expected]


def _page(crawl: str, key: str, host: str, profile: str, **signal: object) -> dict:
    return {
        "crawl": crawl,
        "page_key": key,
        "surt_host_name": host,
        "annotation_profile": profile,
        "quality_score": None,
        "quality_int_score": None,
        "in_gneissweb": None,
    } | signal


def test_host_crawl_reference_on_a_hand_checked_crawl():
    counts = {  # host: (known, fetched, data-prep-kit P(hq))
        "a": (10, 2, [0.9, 0.5]),  # coverage exactly 0.2: not low; 0.5 is not HQ
        "b": (10, 1, [0.9]),  # coverage 0.1, density 1: the hidden gem
        "c": (5, 50, [0.1, 0.2]),  # known < fetched: coverage 1, nothing uncrawled
        "d": (0, 3, [0.9]),  # known = 0: not analysed
        "e": (None, 4, [0.9]),  # known null: not analysed
        "f": (8, None, [0.9]),  # fetched null: coverage unknown, not analysed
        "g": (10, 5, []),  # not annotated
        "x": (None, None, [0.7]),  # annotated, not in the host index
    }
    host_index = pd.DataFrame(
        [
            {
                "crawl": "C",
                "surt_host_name": host,
                "url_host_tld": "uk" if host < "c" else None,
                "url_host_registry_suffix": "ac.uk" if host < "c" else None,
                "url_host_registered_domain": None,
                "hc_val": 1.0,
                "known_url_count": known,
                "fetched_url_count": fetched,
            }
            for host, (known, fetched, _) in counts.items()
            if host != "x"
        ]
    ).astype({"known_url_count": "Int64", "fetched_url_count": "Int64"})
    annotations = pd.DataFrame(
        [
            _page("C", f"{host}{i}", host, "dpk_gneissweb", quality_score=score)
            for host, (_, _, scores) in counts.items()
            for i, score in enumerate(scores)
        ]
    )
    # host-level flags of a crawl with page-level annotations: ignored
    host_annotations = pd.DataFrame(
        [
            {"crawl": "C", "surt_host_name": host, "annotation_profile": "cc_gneissweb_hosts"}
            | {"in_gneissweb": host != "a"}
            for host in "abgy"
        ]
    )
    inputs = Inputs(None, host_index, annotations, host_annotations)  # type: ignore[arg-type]
    hosts = host_crawls(inputs).set_index("surt_host_name")
    assert list(hosts.index[hosts["is_analysed"]]) == ["a", "b", "c"]
    assert hosts.loc["a", "density"] == Fraction(1, 2) and hosts.loc["g", "density"] is None
    assert set(hosts["annotation_level"].dropna()) == {"page"}
    assert hosts.loc["c", "coverage"] == 1 and hosts.loc["c", "uncrawled_url_count"] == 0
    assert hosts.loc[["d", "e", "f"], "coverage"].isna().all()
    assert (
        hosts.loc["d", "uncrawled_url_count"] == 0 and hosts.loc["g", "annotated_page_count"] == 0
    )
    assert hosts.loc["a", "coverage_median"] == Fraction(1, 5)
    assert hosts.loc["a", "quality_threshold"] == Fraction(9, 10)  # 1/2 + 0.8 * (1 - 1/2)
    assert list(hosts["is_hidden_gem"]) == [False, True, False, None, None, None, None]
    assert list(hosts["estimate"][:3]) == [4, 9, 0]
    summary = uncrawled_hq_summary(inputs, hosts.reset_index()).iloc[0]
    assert summary["total_est_uncrawled_hq"] == 13 and summary["low_coverage_host_count"] == 1
    assert summary["low_coverage_hq_share"] == summary["hidden_gem_hq_share"] == 9 / 13
    assert summary["hidden_gem_host_share"] == 1 / 3
    assert summary["annotated_hosts_missing_from_host_index"] == 1  # x, not y (host level)
    bands = uncrawled_hq_by_coverage_band(hosts.reset_index())
    assert list(bands["coverage_band_lower"]) == [0.1, 0.2, 0.9]
    assert list(bands["hq_share"]) == [9 / 13, 4 / 13, 0]
    by_tld = missed_hq_by_tld(hosts.reset_index()).set_index("url_host_tld")
    assert by_tld.loc["uk", "host_count"] == 2 and by_tld.loc["uk", "missed_share"] == 1


def test_host_crawl_reference_under_each_profile_and_at_host_level():
    index = {  # (crawl, host): (known, fetched)
        ("H", "p"): (10, 1),  # in GneissWeb: density 1, 9 uncrawled
        ("H", "q"): (10, 5),  # not in GneissWeb: density 0
        ("H", "t"): (20, 20),  # in GneissWeb, fully covered
        ("H", "r"): (0, 3),  # known = 0: not analysed
        ("H", "s"): (10, 2),  # no annotation: not analysed
        ("U", "u"): (4, 1),
        ("E", "e"): (10, 5),
    }
    host_index = pd.DataFrame(
        [
            {"crawl": crawl, "surt_host_name": host, "url_host_tld": None}
            | {"url_host_registry_suffix": None, "url_host_registered_domain": None}
            | {"hc_val": 1.0, "known_url_count": known, "fetched_url_count": fetched}
            for (crawl, host), (known, fetched) in index.items()
        ]
    )
    annotations = pd.DataFrame(
        [  # two captures of one URL are two pages; FineWeb-Edu's rule reads int_score
            _page("U", "u)/a 2024-03-01T12:00:00.000000Z", "u", "cc_gneissweb_urls")
            | {"in_gneissweb": True},
            _page("U", "u)/a 2024-03-02T08:30:00.000001Z", "u", "cc_gneissweb_urls")
            | {"in_gneissweb": False},
            _page("U", "u)/b 2024-03-01T12:00:00.000000Z", "u", "cc_gneissweb_urls")
            | {"in_gneissweb": True},
            _page("E", "e1", "e", "fineweb_edu", quality_score=0.5, quality_int_score=3),
            _page("E", "e2", "e", "fineweb_edu", quality_score=0.58, quality_int_score=2),
        ]
    )
    host_annotations = pd.DataFrame(
        [
            {"crawl": "H", "surt_host_name": host, "annotation_profile": "cc_gneissweb_hosts"}
            | {"in_gneissweb": flag}
            for host, flag in (("p", True), ("q", False), ("t", True), ("r", True), ("y", True))
        ]
    )
    inputs = Inputs(None, host_index, annotations, host_annotations)  # type: ignore[arg-type]
    flagged = pages_flagged(inputs).set_index("page_key")
    assert list(flagged["is_hq"]) == [True, False, True, True, False]
    assert list(flagged["signal_score"]) == [1.0, 0.0, 1.0, 0.5, 0.58]
    hosts = host_crawls(inputs).set_index(["crawl", "surt_host_name"])
    level = hosts.loc["H"]
    assert [_value(v) for v in level["annotation_level"]] == ["host"] * 4 + [None]
    assert [_value(v) for v in level["density"]] == [1, 0, 1, 1, None]
    assert level.loc[["p", "q", "t", "r"], "annotated_page_count"].isna().all()
    assert level.loc["s", "annotated_page_count"] == 0
    assert list(level["is_analysed"]) == [True, True, True, False, False]
    assert list(level["estimate"][:3]) == [9, 0, 0]
    assert list(level["is_hidden_gem"][:3]) == [True, False, False]  # median 1/2, cutoff 1
    assert hosts.loc[("U", "u"), "density"] == Fraction(2, 3)
    assert hosts.loc[("U", "u"), "estimate"] == 2
    assert hosts.loc[("E", "e"), "density"] == Fraction(1, 2)
    summary = uncrawled_hq_summary(inputs, hosts.reset_index()).set_index("crawl")
    assert summary.loc["H", "annotated_hosts_missing_from_host_index"] == 1  # y
    assert summary.loc["H", "total_est_uncrawled_hq"] == 9
    crawls_under_two = pd.concat(
        [annotations, pd.DataFrame([_page("U", "u9", "u", "fineweb_edu", quality_int_score=4)])]
    )
    with pytest.raises(AssertionError, match="two profiles"):
        pages_flagged(Inputs(None, host_index, crawls_under_two, host_annotations))  # type: ignore[arg-type]


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
        assert analysed["coverage"].duplicated().sum() >= 10
        assert analysed["density"].duplicated().sum() >= 10
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
    assert (analysed["density"] == 1).sum() >= 5 and (analysed["density"] == 0).sum() >= 5
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
    assert sample_hosts["coverage"].isin([Fraction(1, 5), Fraction(3, 10), Fraction(1)]).sum() >= 4
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
        ],
    )


def _assert_depth_policy_curves(warehouse: Warehouse, expected: pd.DataFrame) -> None:
    """rpt_depth_policy_curves of a warehouse against its reference rows."""
    assert_matches(
        f"{warehouse.name} rpt_depth_policy_curves",
        rq12._budget_key(warehouse.table("rpt_depth_policy_curves")),
        rq12._budget_key(expected),
        keys=["dataset", "classifier", "policy", "budget_share"],
        numeric=[
            "host_count",
            "total_page_count",
            "total_hq_page_count",
            "budget_pages",
            "pages_fetched",
            "hq_expected",
            "hq_expected_sd",
            "yield_per_fetch",
            "ratio_vs_uniform",
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
    samples = {key: sampled_hosts(frame) for key, frame in pages.items()}
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
        _as_mart(reference_host_crawls),
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
    assert_matches(
        f"{warehouse.name} rpt_coverage_quality_correlation",
        warehouse.table("rpt_coverage_quality_correlation"),
        coverage_quality_correlation(warehouse.inputs, reference_host_crawls),
        keys=["crawl", "signal", "min_annotated_pages"],
        numeric=["host_count", "spearman_rho"],
        exact=("signal_source",),
    )


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


# ----------------------------------------------------------------------- annotation profiles


def _profiles_lake() -> tuple[list[warehouse_fixture.LakeFile], Inputs]:
    """A small lake: one crawl under two page-level profiles, one under a third, host flags."""
    two, one = warehouse_fixture.SAMPLE_CRAWL, warehouse_fixture.OTHER_CRAWL
    level = warehouse_fixture.HOST_LEVEL_CRAWL
    pages = pd.DataFrame(
        [
            _page(two, "d1", "com,a", "dpk_gneissweb", quality_score=0.9),
            _page(two, "d2", "com,a", "dpk_gneissweb", quality_score=0.5),
            _page(two, "d3", "uk,ac,b", "dpk_gneissweb", quality_score=0.2),
            # FineWeb-Edu keeps int_score >= 3, whatever its quality_score
            _page(two, "e1", "com,a", "fineweb_edu", quality_score=0.5, quality_int_score=3),
            _page(two, "e2", "com,a", "fineweb_edu", quality_score=0.58, quality_int_score=2),
            _page(two, "e3", "uk,ac,b", "fineweb_edu", quality_score=0.96, quality_int_score=5),
            _page(one, "com,c)/ 2023-12-01T00:00:00.000000Z", "com,c", "cc_gneissweb_urls")
            | {"in_gneissweb": True},
            _page(one, "com,c)/ 2023-12-02T00:00:00.000000Z", "com,c", "cc_gneissweb_urls")
            | {"in_gneissweb": False},
        ]
    )
    hosts = pd.DataFrame(
        [
            {"crawl": crawl, "surt_host_name": host, "annotation_profile": "cc_gneissweb_hosts"}
            | {"in_gneissweb": flag}
            for crawl, host, flag in ((one, "com,c", False), (level, "com,d", True))
        ]
    )
    files = [
        warehouse_fixture.LakeFile(
            f"{profile}-{crawl}.parquet", "page_annotations", {"page_annotations": rows}
        )
        for (crawl, profile), rows in pages.groupby(["crawl", "annotation_profile"])
    ]
    files += [
        warehouse_fixture.LakeFile(
            f"hosts-{crawl}.parquet", "host_annotations", {"host_annotations": rows}
        )
        for crawl, rows in hosts.groupby("crawl")
    ]
    inputs = Inputs(None, pd.DataFrame(columns=HOST_CRAWL_COLUMNS), pages, hosts)  # type: ignore[arg-type]
    return files, inputs


PROFILE_TEST = "assert_one_annotation_profile_per_crawl"


@pytest.fixture(scope="module")
def profiles_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Inputs]:
    home = tmp_path_factory.mktemp("annotation-profiles-home")
    files, inputs = _profiles_lake()
    warehouse_fixture.write_lake(home, files)
    return home, inputs


def _annotation_rows(rows: Iterable[Sequence]) -> set[tuple]:
    """(crawl, host, level, pages, HQ pages, density) with numbers as floats, nulls None."""
    return {
        (crawl, host, level, *(None if _value(value) is None else float(value) for value in rest))
        for crawl, host, level, *rest in rows
    }


def test_a_crawl_annotated_under_two_profiles_is_refused(profiles_home):
    """The data test fails, and what reads the flagged pages is not built."""
    home, inputs = profiles_home
    with pytest.raises(AssertionError) as refused:
        warehouse_fixture.build_warehouse(
            home, (PROFILE_TEST, "int_host_crawl_annotations"), name="two-profiles"
        )
    message = str(refused.value)
    assert "model.hostaware.int_host_crawl_annotations: skipped" in message, message[-3000:]
    assert f"Failure in test {PROFILE_TEST}" in message and "Got 1 result" in message
    with pytest.raises(AssertionError, match="two profiles"):
        pages_flagged(inputs, None)


def test_the_annotation_profile_var_selects_one_profile(profiles_home):
    """With annotation_profile = fineweb_edu: its pages only; a crawl without them falls back
    to its host-level flags."""
    home, inputs = profiles_home
    build = warehouse_fixture.build_warehouse(
        home,
        (PROFILE_TEST, "int_host_crawl_annotations"),
        dbt_vars={"annotation_profile": "fineweb_edu"},
        name="fineweb-edu",
    )
    assert not build.failed_tests, "\n".join(build.failed_tests)
    with duckdb.connect(str(build.warehouse), read_only=True) as connection:
        flagged = connection.sql("select * from int_page_annotations_flagged").df()
        annotated = connection.sql("select * from int_host_crawl_annotations").df()
    columns = ["page_key", "is_hq", "signal_score"]
    reference = pages_flagged(inputs, "fineweb_edu")
    assert sorted(flagged[columns].itertuples(index=False, name=None)) == sorted(
        reference[columns].itertuples(index=False, name=None)
    )
    assert dict(flagged[["page_key", "is_hq"]].itertuples(index=False, name=None)) == {
        "e1": True,
        "e2": False,
        "e3": True,
    }
    expected = _annotation_rows(
        (*key, *value) for key, value in host_crawl_annotations(inputs, "fineweb_edu").items()
    )
    columns = ["crawl", "surt_host_name", "annotation_level", "annotated_page_count"]
    columns += ["hq_page_count", "hq_density"]
    assert _annotation_rows(annotated[columns].itertuples(index=False, name=None)) == expected
    assert (warehouse_fixture.OTHER_CRAWL, "com,c", "host", None, None, 0.0) in expected
