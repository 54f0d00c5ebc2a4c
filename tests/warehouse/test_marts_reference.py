"""Reference checks: every statistic of the RQ1/RQ2 marts against an independent computation.

Each mart is recomputed here from the raw inputs with pandas, numpy and scipy (no SQL, no dbt
macro) and compared number by number to an absolute 1e-9, on two warehouses:

* ``adversarial``: a lake written by ``tests/fixtures/warehouse.py`` and built with
  ``dbt build`` here: ~60 hosts of 1 to 200 pages, scores on a 1/20 grid (tied scores and
  host medians), hosts outside the graph or the host index, uncommitted parts. Its inputs are
  the generated rows themselves.
* ``tiny``: the tiny crawl's warehouse that ``make dbt-test-build`` builds, named by
  ``HOSTAWARE_TEST_WAREHOUSE`` (skipped when unset). Its inputs are read back from its staging
  views.

The reference implements the docs/definitions.md §4 definitions directly:

* A1 host stats: pandas ``groupby`` (median, mean, ``var(ddof=1)``, HQ = score > threshold).
* A2 ICC(1): a one-way ANOVA over the pages (not over host stats) with Snedecor's n0; on a
  balanced sub-sample (hosts with >= 5 pages, the first 5 by md5 of doc_id) it must equal
  pingouin's ICC(1,1).
* A3 correlations: ``scipy.stats.spearmanr``, ``kendalltau`` (tau-b), ``weightedtau`` and a
  weighted Pearson of ``rankdata`` mid-ranks with page-count weights, over the pairs with both
  values (a host without a centrality value is not a pair).
* A3b-d: ``numpy.percentile`` (linear), ``spearmanr`` of doc scores and of release values.
* A4 yield curves: each policy's host order built in Python and walked with exact fractions:
  whole hosts while they fit in the budget (budget_share × pages, the share read as the
  decimal written in dbt_project.yml), the boundary host in part; distinct non-null TLDs of
  the touched hosts, a TLD being the host's last label (``url_host_tld``: uk for ac.uk).
* TLD macro categories (A3's strata): the tld_macro_categories seed's patterns (SQL LIKE, the
  first match by priority) over the host's public suffix (``url_host_registry_suffix``:
  ac.uk is academic, co.uk commercial, uk a country code), the mode of its documents'.

Besides, the adversarial build must pass its own dbt data tests, and the correlation mart's
compiled SQL, rerun with several threads (so DuckDB sums in varying orders), must stay within
[-1, 1].
"""

from __future__ import annotations

import hashlib
import math
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pingouin
import pytest
import yaml
from scipy import stats

from tests.fixtures import warehouse as warehouse_fixture

PROJECT = Path(__file__).resolve().parents[2]
VARS = yaml.safe_load((PROJECT / "dbt_project.yml").read_text())["vars"]
ATOL = 1e-9


def _seed(name: str) -> pd.DataFrame:
    return pd.read_csv(PROJECT / "seeds" / f"{name}.csv", keep_default_na=False, na_values=[""])


REGISTRY = _seed("classifier_registry")
DOCUMENT_COLUMNS = [
    "doc_id",
    "surt_host_name",
    "url_host_tld",
    "url_host_registry_suffix",
    "language",
]
TLD_CATEGORIES = _seed("tld_macro_categories")
LANGUAGE_STRATA = _seed("language_strata")
GRAPH_RELEASES = _seed("graph_releases")


# ----------------------------------------------------------------------- warehouses


@dataclass(frozen=True)
class Inputs:
    """The raw rows the marts are computed from (committed lake rows only)."""

    documents: pd.DataFrame  # DOCUMENT_COLUMNS
    scores: pd.DataFrame  # doc_id, classifier, score
    host_ranks: pd.DataFrame  # release, surt_host_name, hc_val, pr_val
    host_crawls: pd.DataFrame  # crawl, surt_host_name, fetched_url_count


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
    queries = {
        "documents": f"select {', '.join(DOCUMENT_COLUMNS)} from stg_crawl__documents",
        "scores": "select doc_id, classifier, score from stg_crawl__document_scores",
        "host_ranks": "select release, surt_host_name, hc_val, pr_val "
        "from stg_webgraph__host_ranks",
        "host_crawls": "select crawl, surt_host_name, fetched_url_count "
        "from stg_host_index__host_crawls",
    }
    with duckdb.connect(str(path), read_only=True) as connection:
        frames = {name: connection.sql(query).df() for name, query in queries.items()}
    return Warehouse("tiny", path, Inputs(**frames))


@pytest.fixture(
    scope="module",
    params=["adversarial", pytest.param("tiny", marks=pytest.mark.warehouse)],
)
def warehouse(request: pytest.FixtureRequest) -> Warehouse:
    return request.getfixturevalue(f"{request.param}_warehouse")


# ----------------------------------------------------------------------- comparing


def _as_float(values: Iterable) -> np.ndarray:
    return np.array(
        [np.nan if value is None or value is pd.NA else float(value) for value in values]
    )


def assert_matches(
    label: str,
    actual: pd.DataFrame,
    expected: pd.DataFrame,
    keys: list[str],
    numeric: list[str],
    exact: tuple[str, ...] = (),
) -> dict[str, float]:
    """Same key set; every numeric column within ATOL (null = NaN); ``exact`` columns equal.

    Returns the largest absolute difference per numeric column.
    """
    actual = actual.set_index(keys).sort_index()
    expected = expected.set_index(keys).sort_index()
    assert not actual.index.duplicated().any(), f"{label}: duplicate keys in the mart"
    only_mart = sorted(set(actual.index) - set(expected.index), key=str)
    only_reference = sorted(set(expected.index) - set(actual.index), key=str)
    assert not only_mart and not only_reference, (
        f"{label}: keys only in the mart {only_mart[:10]}, only in the reference "
        f"{only_reference[:10]}"
    )
    actual = actual.loc[expected.index]
    problems: list[str] = []
    largest: dict[str, float] = {}
    for column in numeric:
        mart = _as_float(actual[column])
        reference = _as_float(expected[column])
        both_missing = np.isnan(mart) & np.isnan(reference)
        difference = np.abs(mart - reference)
        wrong = ~both_missing & ~(difference <= ATOL)
        finite = difference[~np.isnan(difference)]
        largest[column] = float(finite.max()) if finite.size else 0.0
        problems += [
            f"{column} at {key}: mart {m!r}, reference {r!r}"
            for key, m, r in zip(expected.index[wrong], mart[wrong], reference[wrong], strict=True)
        ]
    for column in exact:
        mart_values = actual[column].astype(object).where(actual[column].notna(), None)
        reference_values = expected[column].astype(object).where(expected[column].notna(), None)
        problems += [
            f"{column} at {key}: mart {m!r}, reference {r!r}"
            for key, m, r in zip(expected.index, mart_values, reference_values, strict=True)
            if m != r
        ]
    assert not problems, f"{label}: {len(problems)} differences:\n" + "\n".join(problems[:40])
    print(f"{label}: {len(expected)} rows, max |difference| {largest}")
    return largest


# ----------------------------------------------------------------------- reference: hosts


def _md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()


def _md5_number(text: str) -> int:
    """DuckDB's md5_number(): the digest's 16 bytes read as a little-endian integer."""
    return int.from_bytes(hashlib.md5(text.encode()).digest(), "little")


def _like(pattern: str) -> re.Pattern:
    """SQL LIKE (``%`` any run, ``_`` one character) as an anchored regex."""
    wildcards = {"%": ".*", "_": "."}
    return re.compile("".join(wildcards.get(char, re.escape(char)) for char in pattern) + r"\Z")


def suffix_category(suffix: str | None) -> str:
    """The macro category of a public suffix: the first seed pattern it matches by priority."""
    if suffix is None or pd.isna(suffix):
        return "other_generic"
    matches = [
        (row.match_priority, row.suffix_pattern, row.macro_category)
        for row in TLD_CATEGORIES.itertuples()
        if _like(row.suffix_pattern).match(suffix)
    ]
    return min(matches)[2] if matches else "other_generic"


def scores_flagged(inputs: Inputs) -> pd.DataFrame:
    """Scores of registered classifiers on committed documents, HQ strictly above threshold."""
    thresholds = REGISTRY.set_index("classifier")["hq_threshold"].fillna(
        VARS["hq_threshold_default"]
    )
    documents = inputs.documents[["doc_id", "surt_host_name", "language"]]
    flagged = inputs.scores.merge(documents, on="doc_id", how="inner")
    flagged = flagged[flagged["classifier"].isin(thresholds.index)].copy()
    flagged["is_hq"] = flagged["score"] > flagged["classifier"].map(thresholds)
    return flagged


def host_classifier_stats(inputs: Inputs) -> pd.DataFrame:
    groups = scores_flagged(inputs).groupby(["surt_host_name", "classifier"])
    result = groups.agg(
        doc_count=("score", "size"),
        quality_score_median=("score", "median"),
        quality_score_mean=("score", "mean"),
        quality_score_var=("score", lambda scores: scores.var(ddof=1)),
        hq_doc_count=("is_hq", "sum"),
    ).reset_index()
    result["hq_density"] = result["hq_doc_count"] / result["doc_count"]
    return result


def hosts_profiled(inputs: Inputs) -> pd.DataFrame:
    documents = inputs.documents.copy()
    strata = LANGUAGE_STRATA.set_index("language")["language_stratum"]
    documents["is_english"] = documents["language"].map(strata).eq("english")
    groups = documents.groupby("surt_host_name")
    names = {}
    for column in ("url_host_tld", "url_host_registry_suffix"):
        values = groups[column].agg(lambda values: sorted(set(values.dropna())))
        assert values.map(len).max() <= 1, f"a host with two {column}: its mode is ambiguous"
        names[column] = values.map(lambda values: values[0] if values else None)
    hosts = pd.DataFrame(
        {
            "doc_count": groups.size(),
            "english_doc_share": groups["is_english"].mean(),
            **names,
        }
    ).reset_index()
    hosts["tld_macro_category"] = hosts["url_host_registry_suffix"].map(suffix_category)
    hosts["language_stratum"] = np.where(
        hosts["english_doc_share"] >= VARS["english_doc_share_threshold"],
        "english",
        "non_english",
    )
    ranks = inputs.host_ranks[inputs.host_ranks["release"] == VARS["graph_release"]]
    assert not ranks["surt_host_name"].duplicated().any()
    ranks = ranks.set_index("surt_host_name")
    crawls = inputs.host_crawls[inputs.host_crawls["crawl"] == VARS["sample_crawl"]]
    crawls = crawls.set_index("surt_host_name")
    hosts["is_in_graph"] = hosts["surt_host_name"].isin(ranks.index)
    hosts["hc_val"] = hosts["surt_host_name"].map(ranks["hc_val"])
    hosts["pr_val"] = hosts["surt_host_name"].map(ranks["pr_val"])
    hosts["fetched_url_count"] = hosts["surt_host_name"].map(crawls["fetched_url_count"])
    return hosts


def host_universe(inputs: Inputs) -> pd.DataFrame:
    """U_c per classifier: >= min_docs_per_host pages of that classifier, a graph node."""
    stats_ = host_classifier_stats(inputs)
    universe = stats_[stats_["doc_count"] >= VARS["min_docs_per_host"]].merge(
        hosts_profiled(inputs).drop(columns=["doc_count"]), on="surt_host_name"
    )
    return universe[universe["is_in_graph"]].reset_index(drop=True)


# ----------------------------------------------------------------------- reference: RQ1


def one_way_anova(groups: list[np.ndarray]) -> dict[str, float]:
    """One-way random-effects ANOVA of ratings in groups; ICC(1) with the n0 correction."""
    sizes = np.array([len(group) for group in groups], dtype=float)
    total, count = sizes.sum(), len(groups)
    grand_mean = np.concatenate(groups).mean()
    means = np.array([group.mean() for group in groups])
    ssb = float(np.sum(sizes * (means - grand_mean) ** 2))
    ssw = float(sum(np.sum((group - group.mean()) ** 2) for group in groups))
    msb = ssb / (count - 1) if count > 1 else math.nan
    msw = ssw / (total - count) if total > count else math.nan
    n0 = (total - np.sum(sizes**2) / total) / (count - 1) if count > 1 else math.nan
    denominator = msb + (n0 - 1) * msw
    return {
        "host_count": count,
        "doc_count": total,
        "grand_mean": grand_mean,
        "ssb": ssb,
        "ssw": ssw,
        "df_between": count - 1,
        "df_within": total - count,
        "msb": msb,
        "msw": msw,
        "n0": n0,
        "icc1": (msb - msw) / denominator if denominator else math.nan,
        "f_stat": msb / msw if msw else math.nan,
        "icc_variance_ratio": ssb / (ssb + ssw) if ssb + ssw else math.nan,
    }


def host_quality_icc(inputs: Inputs) -> pd.DataFrame:
    flagged = scores_flagged(inputs)
    rows = []
    for classifier, pages in flagged.groupby("classifier"):
        by_host = [group.to_numpy() for _, group in pages.groupby("surt_host_name")["score"]]
        for min_docs in VARS["icc_min_docs"]:
            kept = [scores for scores in by_host if len(scores) >= min_docs]
            if kept:
                anova = one_way_anova(kept)
                rows.append({"classifier": classifier, "min_docs": min_docs, **anova})
    return pd.DataFrame(rows)


def balanced_subsample(inputs: Inputs, classifier: str, pages: int = 5) -> pd.DataFrame:
    """Hosts with >= ``pages`` pages, their first ``pages`` by md5(doc_id): host × position."""
    flagged = scores_flagged(inputs)
    scored = flagged[flagged["classifier"] == classifier].copy()
    scored["order"] = scored["doc_id"].map(_md5)
    scored = scored.sort_values(["surt_host_name", "order"])
    scored["position"] = scored.groupby("surt_host_name").cumcount() + 1
    sizes = scored.groupby("surt_host_name")["doc_id"].transform("size")
    return scored[(sizes >= pages) & (scored["position"] <= pages)]


def _complete(x: np.ndarray, y: np.ndarray, *others: np.ndarray) -> tuple[np.ndarray, ...]:
    keep = ~(np.isnan(x) | np.isnan(y))
    return (x[keep], y[keep], *(other[keep] for other in others))


def weighted_spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    """Weighted Pearson correlation of the (unweighted) mid-ranks (docs/definitions.md A3)."""
    rank_x, rank_y = stats.rankdata(x), stats.rankdata(y)
    mean_x = np.sum(weights * rank_x) / np.sum(weights)
    mean_y = np.sum(weights * rank_y) / np.sum(weights)
    covariance = np.sum(weights * (rank_x - mean_x) * (rank_y - mean_y))
    scale = math.sqrt(
        np.sum(weights * (rank_x - mean_x) ** 2) * np.sum(weights * (rank_y - mean_y) ** 2)
    )
    return covariance / scale if scale else math.nan


def _statistic(function, *arrays: np.ndarray) -> float:
    if len(arrays[0]) < 2:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(function(*arrays).statistic)


def centrality_quality_correlations(inputs: Inputs) -> pd.DataFrame:
    universe = host_universe(inputs)
    rows = []
    strata = {"pooled": None, "language": "language_stratum", "tld_category": "tld_macro_category"}
    for classifier, hosts in universe.groupby("classifier"):
        for metric in ("hc", "pr"):
            for stratum_type, column in strata.items():
                grouped = hosts.groupby(column) if column else [("all", hosts)]
                for stratum, members in grouped:
                    x, y, weights = _complete(
                        members[f"{metric}_val"].to_numpy(dtype=float),
                        members["quality_score_median"].to_numpy(dtype=float),
                        members["doc_count"].to_numpy(dtype=float),
                    )
                    rows.append(
                        {
                            "classifier": classifier,
                            "centrality_metric": metric,
                            "stratum_type": stratum_type,
                            "stratum": stratum,
                            "host_count": len(x),
                            "spearman_rho": _statistic(stats.spearmanr, x, y),
                            "kendall_tau_b": _statistic(stats.kendalltau, x, y),
                            "weighted_spearman_rho": weighted_spearman(x, y, weights)
                            if len(x) > 1
                            else math.nan,
                            "weighted_tau": _statistic(stats.weightedtau, x, y),
                        }
                    )
    return pd.DataFrame(rows)


def score_by_language(inputs: Inputs) -> pd.DataFrame:
    stats_ = host_classifier_stats(inputs)
    hosts = stats_[stats_["doc_count"] >= VARS["min_docs_per_host"]].merge(
        hosts_profiled(inputs)[["surt_host_name", "language_stratum"]], on="surt_host_name"
    )
    rows = []
    for (classifier, stratum), group in hosts.groupby(["classifier", "language_stratum"]):
        medians = group["quality_score_median"].to_numpy()
        p25, p50, p75 = np.percentile(medians, [25, 50, 75], method="linear")
        rows.append(
            {
                "classifier": classifier,
                "language_stratum": stratum,
                "host_count": len(medians),
                "host_median_score_p25": p25,
                "host_median_score_p50": p50,
                "host_median_score_p75": p75,
                "host_median_score_mean": medians.mean(),
            }
        )
    return pd.DataFrame(rows)


def classifier_agreement(inputs: Inputs) -> pd.DataFrame:
    by_classifier = {
        classifier: group.set_index("doc_id")["score"]
        for classifier, group in inputs.scores.groupby("classifier")
    }
    rows = []
    for first, scores_a in by_classifier.items():
        for second, scores_b in by_classifier.items():
            common = scores_a.index.intersection(scores_b.index)
            if first == second or common.empty:
                continue
            rho = _statistic(stats.spearmanr, scores_a[common].to_numpy(), scores_b[common])
            rows.append(
                {
                    "classifier_a": first,
                    "classifier_b": second,
                    "doc_count": len(common),
                    "spearman_rho": rho,
                }
            )
    return pd.DataFrame(rows)


def graph_rank_stability(inputs: Inputs) -> pd.DataFrame:
    last_crawl = GRAPH_RELEASES.set_index("release")["last_crawl"]
    releases = sorted(
        inputs.host_ranks["release"].unique(),
        key=lambda release: (release not in last_crawl, last_crawl.get(release, ""), release),
    )
    by_release = {
        release: group.set_index("surt_host_name")
        for release, group in inputs.host_ranks.groupby("release")
    }
    rows = []
    for position, earlier in enumerate(releases):
        for later in releases[position + 1 :]:
            common = by_release[earlier].merge(
                by_release[later],
                left_index=True,
                right_index=True,
                suffixes=("_earlier", "_later"),
            )
            for metric in ("hc", "pr"):
                x, y = _complete(
                    common[f"{metric}_val_earlier"].to_numpy(dtype=float),
                    common[f"{metric}_val_later"].to_numpy(dtype=float),
                )
                rows.append(
                    {
                        "centrality_metric": metric,
                        "reference_release": earlier,
                        "later_release": later,
                        "host_count": len(x),
                        "spearman_rho": _statistic(stats.spearmanr, x, y),
                    }
                )
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------- reference: RQ2


def _descending(value: float) -> tuple[int, float]:
    """A sort key: larger values first, missing values last."""
    return (1, 0.0) if value is None or pd.isna(value) else (0, -float(value))


def host_orders(hosts: pd.DataFrame) -> dict[tuple[str, int], list[dict]]:
    """Each policy's crawl order of one classifier's universe: (policy, seed) → hosts."""
    records = hosts.to_dict("records")
    for record in records:
        record["md5"] = _md5_number(record["surt_host_name"])
    orders = {
        ("random", seed): sorted(
            records, key=lambda h, s=seed: _md5_number(f"{h['surt_host_name']}:{s}")
        )
        for seed in range(1, VARS["random_seeds"] + 1)
    }
    for policy, column in (("hc", "hc_val"), ("pr", "pr_val"), ("cc_coverage", "fetched")):
        orders[(policy, 0)] = sorted(records, key=lambda h, c=column: (_descending(h[c]), h["md5"]))
    orders[("oracle", 0)] = sorted(
        records,
        key=lambda h: (
            -Fraction(int(h["hq_doc_count"]), int(h["doc_count"])),  # density, exactly
            -h["hq_doc_count"],
            h["md5"],
        ),
    )
    return orders


def walk_budget(order: list[dict], budget: Fraction) -> tuple[Fraction, int, int]:
    """Whole hosts while they fit, then part of the boundary host: HQ pages, hosts, TLDs."""
    remaining, collected, touched, tlds = budget, Fraction(0), 0, set()
    for host in order:
        if remaining <= 0:
            break
        pages = int(host["doc_count"])
        taken = min(Fraction(pages), remaining)
        collected += taken * int(host["hq_doc_count"]) / pages
        remaining -= taken
        touched += 1
        if host["url_host_tld"] is not None and not pd.isna(host["url_host_tld"]):
            tlds.add(host["url_host_tld"])
    return collected, touched, len(tlds)


def host_ordering_yield_curves(inputs: Inputs) -> pd.DataFrame:
    universe = host_universe(inputs).rename(columns={"fetched_url_count": "fetched"})
    rows = []
    for classifier, hosts in universe.groupby("classifier"):
        total_pages = int(hosts["doc_count"].sum())
        total_hq = int(hosts["hq_doc_count"].sum())
        walks: dict[tuple[str, float], list[tuple[Fraction, int, int]]] = {}
        for (policy, _), order in host_orders(hosts).items():
            for share in VARS["budget_shares"]:
                budget = Fraction(str(share)) * total_pages
                walks.setdefault((policy, share), []).append(walk_budget(order, budget))
        for (policy, share), results in walks.items():
            collected = np.array([float(hq) for hq, _, _ in results])
            rows.append(
                {
                    "classifier": classifier,
                    "policy": policy,
                    "budget_share": share,
                    "pages_fetched": float(Fraction(str(share)) * total_pages),
                    "hq_collected": float(sum(hq for hq, _, _ in results) / len(results)),
                    "hq_collected_sd": collected.std(ddof=1) if len(results) > 1 else math.nan,
                    "hq_share": float(sum(hq for hq, _, _ in results) / len(results) / total_hq)
                    if total_hq
                    else math.nan,
                    "host_count": float(np.mean([hosts_ for _, hosts_, _ in results])),
                    "tld_count": float(np.mean([tlds for _, _, tlds in results])),
                    "ordering_count": len(results),
                }
            )
    return pd.DataFrame(rows)


def host_ordering_at_budget(curves: pd.DataFrame) -> pd.DataFrame:
    keyed = curves.set_index(["classifier", "policy", "budget_share"])
    rows = []
    for (classifier, policy, share), row in keyed.iterrows():
        random_ = keyed.loc[(classifier, "random", share)]
        oracle = keyed.loc[(classifier, "oracle", share)]
        rows.append(
            {
                "classifier": classifier,
                "policy": policy,
                "budget_share": share,
                "hq_collected": row["hq_collected"],
                "random_hq_collected": random_["hq_collected"],
                "hq_ratio_vs_random": row["hq_collected"] / random_["hq_collected"]
                if random_["hq_collected"]
                else math.nan,
                "oracle_hq_collected": oracle["hq_collected"],
                "tld_count": row["tld_count"],
                "random_tld_count": random_["tld_count"],
                "tld_ratio_vs_random": row["tld_count"] / random_["tld_count"]
                if random_["tld_count"]
                else math.nan,
            }
        )
    return pd.DataFrame(rows)


def _budget_key(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(budget_share=frame["budget_share"].round(12))


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


def test_icc_formula_is_pingouins_icc1_on_a_balanced_subsample(warehouse: Warehouse):
    classifiers = sorted(scores_flagged(warehouse.inputs)["classifier"].unique())
    checked = 0
    for classifier in classifiers:
        sample = balanced_subsample(warehouse.inputs, classifier)
        if sample["surt_host_name"].nunique() < 3:
            continue
        groups = [group.to_numpy() for _, group in sample.groupby("surt_host_name")["score"]]
        anova = one_way_anova(groups)
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


def test_suffix_categories_follow_the_public_suffix():
    assert suffix_category("ac.uk") == "academic" and suffix_category("uk") == "country_code"
    assert suffix_category("co.uk") == "commercial" and suffix_category("com.au") == "commercial"
    assert suffix_category("gov.uk") == suffix_category("gouv.fr") == "government"
    assert suffix_category("org.uk") == "organisation" and suffix_category("edu") == "academic"
    assert suffix_category("info") == "other_generic" and suffix_category(None) == "other_generic"


def test_reference_walk_takes_whole_hosts_then_part_of_the_boundary_host():
    order = [
        {"doc_count": 4, "hq_doc_count": 2, "url_host_tld": "com"},
        {"doc_count": 3, "hq_doc_count": 3, "url_host_tld": None},
        {"doc_count": 6, "hq_doc_count": 3, "url_host_tld": "de"},
    ]
    assert walk_budget(order, Fraction(4)) == (Fraction(2), 1, 1)
    assert walk_budget(order, Fraction(9)) == (Fraction(2 + 3 + 1), 3, 2)
    assert walk_budget(order, Fraction(13)) == (Fraction(8), 3, 2)
