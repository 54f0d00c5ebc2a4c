"""The RQ3/RQ4 reference on hand-made inputs, and the annotation profiles through dbt.

Without a warehouse: ``reference.depth``'s water-filling (against a bisection), its
sample-then-deepen and oracle fills, ``reference.stats``' quantile and Spearman,
``reference.samples``' sample order (against DuckDB's md5_number) and ``reference.coverage``
on hand-checked crawls under each annotation profile and at host level. With dbt, on a small
lake of its own: a crawl annotated under two profiles is refused, and the annotation_profile
var selects one (the flagged pages and host annotations equal the reference's).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from reference import depth
from reference.config import VARS
from reference.coverage import (
    host_crawl_annotations,
    host_crawls,
    missed_hq_by_tld,
    uncrawled_hq_by_coverage_band,
    uncrawled_hq_summary,
)
from reference.depth import water_fill
from reference.lake import Inputs
from reference.samples import Sampled, pages_flagged, sample_pages
from reference.stats import quantile_cont, spearman
from tests.fixtures import warehouse as warehouse_fixture

SEEDS = range(1, VARS["sample_seeds"] + 1)


def _value(value: object) -> object:
    """None for SQL nulls (None, NaN, pd.NA), else the value."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _uniform(caps: list[int], budget: Fraction) -> list[Fraction]:
    return list(water_fill([Fraction(c) for c in caps], [Fraction(1)] * len(caps), budget)[0])


def _water_fill(caps: list, weights: list, budget: Fraction) -> tuple[list, Fraction | None]:
    allocation, level = water_fill(caps, weights, budget)
    return list(allocation), level


def test_water_filling_finds_the_common_depth():
    allocation, level = water_fill(
        [Fraction(n) for n in (1, 2, 5, 10)], [Fraction(1)] * 4, Fraction(10)
    )
    assert level == Fraction(7, 2)
    assert list(allocation) == [1, 2, Fraction(7, 2), Fraction(7, 2)]
    assert _uniform([1, 2, 5, 10], Fraction(18)) == [1, 2, 5, 10]  # the whole universe
    assert _uniform([4, 4, 4], Fraction(6)) == [2, 2, 2]  # no host saturates
    with pytest.raises(ValueError):
        _uniform([1, 2], Fraction(4))


def test_water_filling_with_weights_caps_the_heavy_host():
    caps, weights = [Fraction(4), Fraction(10)], [Fraction(1), Fraction(3)]
    assert _water_fill(caps, weights, Fraction(8)) == ([2, 6], 2)
    assert _water_fill(caps, weights, Fraction(13)) == ([Fraction(13, 4), Fraction(39, 4)], 3.25)
    assert _water_fill(caps, weights, Fraction(27, 2))[0] == [Fraction(7, 2), 10]
    assert _water_fill(caps, weights, Fraction(14)) == ([4, 10], None)


def test_water_filling_agrees_with_bisection():
    """The elimination against a bisection on the level, on random instances."""
    rng = np.random.default_rng(5)
    for _ in range(40):
        caps = [Fraction(int(n)) for n in rng.integers(1, 30, int(rng.integers(1, 12)))]
        weights = [Fraction(int(w), 4) for w in rng.integers(1, 20, len(caps))]
        budget = sum(caps) * Fraction(int(rng.integers(1, 100)), 100)
        allocation, _ = _water_fill(caps, weights, budget)
        assert sum(allocation) == budget
        low, high = Fraction(0), max(c / w for c, w in zip(caps, weights, strict=True))
        for _ in range(60):
            middle = (low + high) / 2
            filled = sum(min(c, middle * w) for c, w in zip(caps, weights, strict=True))
            low, high = (middle, high) if filled < budget else (low, middle)
        bisected = [min(c, high * w) for c, w in zip(caps, weights, strict=True)]
        assert max(abs(float(a - b)) for a, b in zip(allocation, bisected, strict=True)) < 1e-12


def _host(name: str, flags: str, scores: Sequence[float] | None = None) -> tuple:
    """A host whose sample order is the same for every seed: 'h' = HQ page, '.' = not."""
    return name, flags, scores or [0.9 if flag == "h" else 0.1 for flag in flags]


def _sampled(hosts: Sequence[tuple]) -> Sampled:
    """The hosts' pages, each seed's sample order the order written."""
    host = np.repeat(np.arange(len(hosts)), [len(flags) for _, flags, _ in hosts])
    position = np.concatenate([np.arange(len(flags)) for _, flags, _ in hosts])
    is_hq = np.array([flag == "h" for _, flags, _ in hosts for flag in flags])
    return Sampled(
        host_names=np.array([name for name, _, _ in hosts], dtype=object),
        host=host,
        is_hq=is_hq,
        score=np.array([score for _, _, scores in hosts for score in scores]),
        position=np.tile(position, (len(SEEDS), 1)),
        page_count=np.bincount(host),
        hq_count=np.bincount(host, is_hq).astype(int),
    )


def sample_then_deepen(
    hosts: Sequence[tuple], seed: int, budget: Fraction, size: int, charged: bool
) -> float | None:
    """reference.depth.sample_then_deepen of these hosts at one budget; None if infeasible."""
    sampled = _sampled(hosts)
    (value,) = depth.sample_then_deepen(
        sampled.page_count,
        sampled.hq_count,
        list(sampled.host_names),
        sampled.sample_hq(seed, size),
        sampled.sample_score_mean(seed, size),
        size,
        [budget],
        charged,
    )
    return None if math.isnan(value) else value


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
    hosts = _sampled([_host("a", "hh.."), _host("b", "h"), _host("c", "hhh.")])
    (collected,) = depth.oracle(hosts.page_count, hosts.hq_count, list(hosts.host_names), [3])
    assert collected == 1 + Fraction(2 * 3, 4)  # b, then 2 of c's 4 pages
    assert quantile_cont([Fraction(0), Fraction(1, 2), Fraction(1)], Fraction(9, 10)) == Fraction(
        9, 10
    )
    # 11 values: the 0.9 quantile is the 10th exactly, so a host at it is top decile
    values = [Fraction(i, 10) for i in range(11)]
    assert quantile_cont(values, Fraction(9, 10)) == Fraction(9, 10)
    assert quantile_cont([Fraction(1), None, Fraction(3)], Fraction(1, 2)) == 2
    assert math.isnan(spearman([Fraction(1)] * 3, [Fraction(1), Fraction(2), Fraction(3)]))
    assert math.isnan(spearman([Fraction(1)], [Fraction(2)]))
    assert spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)  # 1 - 6 * 2 / (3 * 8)


def test_sample_order_is_md5_number_of_doc_id_and_seed():
    pages = pd.DataFrame(
        {
            "doc_id": ["d1", "d2", "d3"],
            "surt_host_name": ["h"] * 3,
            "score": [0.1, 0.9, 0.6],
            "is_hq": [False, True, True],
        }
    )
    sampled = sample_pages(pages)
    for seed in SEEDS:
        with duckdb.connect() as connection:
            expected = connection.sql(
                f"select doc_id from (values ('d1'), ('d2'), ('d3')) pages(doc_id) "
                f"order by md5_number(doc_id || ':' || {seed}), doc_id"
            ).fetchall()
        ordered = pages["doc_id"].to_numpy()[np.argsort(sampled.position[seed - 1])]
        assert list(ordered) == [d for (d,) in expected]


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
    inputs = Inputs(
        host_crawls=host_index, annotations=annotations, host_annotations=host_annotations
    )
    hosts = host_crawls(inputs).set_index("surt_host_name")
    assert list(hosts.index[hosts["is_analysed"]]) == ["a", "b", "c"]
    assert hosts.loc["a", "hq_density"] == Fraction(1, 2) and pd.isna(hosts.loc["g", "hq_density"])
    assert set(hosts["annotation_level"].dropna()) == {"page"}
    assert hosts.loc["c", "coverage_rate"] == 1 and hosts.loc["c", "uncrawled_url_count"] == 0
    assert hosts.loc[["d", "e", "f"], "coverage_rate"].isna().all()
    assert (
        hosts.loc["d", "uncrawled_url_count"] == 0 and hosts.loc["g", "annotated_page_count"] == 0
    )
    assert hosts.loc["a", "coverage_median"] == float(Fraction(1, 5))
    assert hosts.loc["a", "hq_density_top_cutoff"] == float(
        Fraction(9, 10)
    )  # 1/2 + 0.8 * (1 - 1/2)
    assert list(hosts["is_hidden_gem"]) == [False, True, False, None, None, None, None]
    assert list(hosts["est_uncrawled_hq"][:3]) == [4, 9, 0]
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
    inputs = Inputs(
        host_crawls=host_index, annotations=annotations, host_annotations=host_annotations
    )
    flagged = pages_flagged(inputs).set_index("page_key")
    assert list(flagged["is_hq"]) == [True, False, True, True, False]
    assert list(flagged["signal_score"]) == [1.0, 0.0, 1.0, 0.5, 0.58]
    hosts = host_crawls(inputs).set_index(["crawl", "surt_host_name"])
    level = hosts.loc["H"]
    assert [_value(v) for v in level["annotation_level"]] == ["host"] * 4 + [None]
    assert [_value(v) for v in level["hq_density"]] == [1, 0, 1, 1, None]
    assert level.loc[["p", "q", "t", "r"], "annotated_page_count"].isna().all()
    assert level.loc["s", "annotated_page_count"] == 0
    assert list(level["is_analysed"]) == [True, True, True, False, False]
    assert list(level["est_uncrawled_hq"][:3]) == [9, 0, 0]
    assert list(level["is_hidden_gem"][:3]) == [True, False, False]  # median 1/2, cutoff 1
    assert hosts.loc[("U", "u"), "hq_density"] == float(Fraction(2, 3))
    assert hosts.loc[("U", "u"), "est_uncrawled_hq"] == 2
    assert hosts.loc[("E", "e"), "hq_density"] == Fraction(1, 2)
    summary = uncrawled_hq_summary(inputs, hosts.reset_index()).set_index("crawl")
    assert summary.loc["H", "annotated_hosts_missing_from_host_index"] == 1  # y
    assert summary.loc["H", "total_est_uncrawled_hq"] == 9
    crawls_under_two = pd.concat(
        [annotations, pd.DataFrame([_page("U", "u9", "u", "fineweb_edu", quality_int_score=4)])]
    )
    with pytest.raises(ValueError, match="two profiles"):
        pages_flagged(
            Inputs(
                host_crawls=host_index,
                annotations=crawls_under_two,
                host_annotations=host_annotations,
            )
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
    inputs = Inputs(annotations=pages, host_annotations=hosts)
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
    with pytest.raises(ValueError, match="two profiles"):
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
        host_crawl_annotations(inputs, "fineweb_edu")
        .reset_index()
        .itertuples(index=False, name=None)
    )
    columns = ["crawl", "surt_host_name", "annotation_level", "annotated_page_count"]
    columns += ["hq_page_count", "hq_density"]
    assert _annotation_rows(annotated[columns].itertuples(index=False, name=None)) == expected
    assert (warehouse_fixture.OTHER_CRAWL, "com,c", "host", None, None, 0.0) in expected
