"""`seeds/graph_releases.csv`: every published host-graph release, its crawls, in time order.

The checks are plain Python (`csv`, `re`, `datetime`), never the ingest's own seed reader. The
warehouse orders releases as `rpt_graph_rank_stability.sql` does: by the seed's last crawl,
releases the seed lacks after them, ties by name.
"""

from __future__ import annotations

import csv
import itertools
import re
from datetime import date

import pytest
import yaml

from demo.config import GRAPH_RELEASES
from hostaware.paths import PROJECT
from tests.fixtures import warehouse as warehouse_fixture

SEED = PROJECT / "seeds" / "graph_releases.csv"
with SEED.open(newline="", encoding="utf-8") as _handle:
    ROWS = list(csv.DictReader(_handle))
BY_NAME = {row["release"]: row for row in ROWS}

# The releases of commoncrawl/cc-webgraph-statistics @56892dee docs/host.tsv (one row per
# release, built from graphinfo.json), in its order; its first is graphinfo's
# cc-main-2017-feb-mar-apr-hostgraph, shown without "-hostgraph" (src/prep_data.pl).
PUBLISHED = (
    "cc-main-2017-feb-mar-apr-hostgraph",
    "cc-main-2017-may-jun-jul",
    "cc-main-2017-aug-sep-oct",
    "cc-main-2017-18-nov-dec-jan",
    "cc-main-2018-jan",
    "cc-main-2018-feb-mar-apr",
    "cc-main-2018-may-jun-jul",
    "cc-main-2018-aug-sep-oct",
    "cc-main-2018-19-nov-dec-jan",
    "cc-main-2019-feb-mar-apr",
    "cc-main-2019-may-jun-jul",
    "cc-main-2019-aug-sep-oct",
    "cc-main-2019-20-nov-dec-jan",
    "cc-main-2020-feb-mar-may",
    "cc-main-2020-jul-aug-sep",
    "cc-main-2020-21-oct-nov-jan",
    "cc-main-2021-feb-apr-may",
    "cc-main-2021-jun-jul-sep",
    "cc-main-2021-22-oct-nov-jan",
    "cc-main-2022-may-jun-aug",
    "cc-main-2022-23-sep-nov-jan",
    "cc-main-2023-mar-may-oct",
    "cc-main-2023-may-sep-nov",
    "cc-main-2023-24-sep-nov-feb",
    "cc-main-2024-nov-feb-apr",
    "cc-main-2024-feb-apr-may",
    "cc-main-2024-apr-may-jun",
    "cc-main-2024-may-jun-jul",
    "cc-main-2024-jun-jul-aug",
    "cc-main-2024-jul-aug-sep",
    "cc-main-2024-aug-sep-oct",
    "cc-main-2024-sep-oct-nov",
    "cc-main-2024-oct-nov-dec",
    "cc-main-2024-25-nov-dec-jan",
    "cc-main-2024-25-dec-jan-feb",
    "cc-main-2025-jan-feb-mar",
    "cc-main-2025-feb-mar-apr",
    "cc-main-2025-mar-apr-may",
    "cc-main-2025-apr-may-jun",
    "cc-main-2025-may-jun-jul",
    "cc-main-2025-jun-jul-aug",
    "cc-main-2025-jul-aug-sep",
    "cc-main-2025-aug-sep-oct",
    "cc-main-2025-sep-oct-nov",
    "cc-main-2025-oct-nov-dec",
    "cc-main-2025-26-nov-dec-jan",
    "cc-main-2025-26-dec-jan-feb",
    "cc-main-2026-jan-feb-mar",
    "cc-main-2026-feb-mar-apr",
    "cc-main-2026-mar-apr-may",
    "cc-main-2026-apr-may-jun",
)

# Common Crawl's main crawls since 2017, oldest first: commoncrawl/cc-crawl-statistics @011ff43f
# plots/crawlsize/monthly.csv (to CC-MAIN-2024-42; it lacks -38), the crawls cc-webgraph's
# hostgraph_config.sh history names (CC-MAIN-2024-38 on, to -2026-30) and the announcements.
CRAWL_LIST = tuple(
    f"CC-MAIN-{year}-{week}"
    for year, weeks in (
        ("2017", "04 09 13 17 22 26 30 34 39 43 47 51"),
        ("2018", "05 09 13 17 22 26 30 34 39 43 47 51"),
        ("2019", "04 09 13 18 22 26 30 35 39 43 47 51"),
        ("2020", "05 10 16 24 29 34 40 45 50"),
        ("2021", "04 10 17 21 25 31 39 43 49"),
        ("2022", "05 21 27 33 40 49"),
        ("2023", "06 14 23 40 50"),
        ("2024", "10 18 22 26 30 33 38 42 46 51"),
        ("2025", "05 08 13 18 21 26 30 33 38 43 47 51"),
        ("2026", "04 08 12 17 21 25 30"),
    )
    for week in weeks.split()
)
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
NAME = re.compile(
    rf"cc-main-(?P<year>\d{{4}})(?:-(?P<next>\d{{2}}))?"
    rf"(?P<months>(?:-(?:{'|'.join(MONTHS)}))+)(?:-hostgraph)?"
)
CRAWL = re.compile(r"CC-MAIN-(?P<year>\d{4})-(?P<week>\d{2})")
SOURCES = {"announcement", "build_config", "inferred"}


def _crawls(row: dict) -> list[str]:
    return row["crawls"].split(";")


def _warehouse_order(releases: list[str], seed: dict[str, dict]) -> list[str]:
    """The order rpt_graph_rank_stability gives releases: last crawl (unknown last), then name."""
    return sorted(
        releases,
        key=lambda name: (name not in seed, seed[name]["last_crawl"] if name in seed else "", name),
    )


def test_the_seed_lists_every_published_release_in_publication_order():
    assert list(SEED.read_text().splitlines()[0].split(",")) == [
        "release",
        "first_crawl",
        "last_crawl",
        "crawls",
        "crawls_source",
    ]
    assert [row["release"] for row in ROWS] == list(PUBLISHED)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row["release"])
def test_every_release_is_well_formed(row: dict):
    name = NAME.fullmatch(row["release"])
    assert name, row["release"]
    crawls = _crawls(row)
    weeks = []
    for crawl in crawls:
        match = CRAWL.fullmatch(crawl)
        assert match, crawl
        weeks.append(date.fromisocalendar(int(match["year"]), int(match["week"]), 1))  # valid week
    assert crawls == sorted(set(crawls))  # oldest first, each once
    assert (row["first_crawl"], row["last_crawl"]) == (crawls[0], crawls[-1])
    assert row["first_crawl"] <= row["last_crawl"]
    # the name's year is the last crawl's; a two-year name (2024-25) spans first to last
    if name["next"]:
        assert (weeks[0].year, weeks[-1].year) == (int(name["year"]), 2000 + int(name["next"]))
    else:
        assert weeks[-1].year == int(name["year"])
    # one month in the name per crawl; a crawl's id week starts in its month or the next one
    months = name["months"].strip("-").split("-")
    assert len(months) == len(crawls)
    for month, week in zip(months, weeks, strict=True):
        assert (week.month - 1 - MONTHS.index(month)) % 12 in (0, 1), (month, week)
    # a release is built from consecutive crawls ("the latest three monthly crawl archives")
    first = CRAWL_LIST.index(crawls[0])
    assert list(CRAWL_LIST[first : first + len(crawls)]) == crawls
    sources = set(row["crawls_source"].split(";"))
    assert sources <= SOURCES and sources
    assert "inferred" not in sources or sources == {"inferred"}


def test_rows_are_in_time_order_and_the_warehouse_keeps_it():
    keys = [(row["last_crawl"], row["first_crawl"]) for row in ROWS]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    # where two releases end with the same crawl, the name (the SQL's tie-break) agrees
    for earlier, later in itertools.pairwise(ROWS):
        if earlier["last_crawl"] == later["last_crawl"]:
            assert earlier["release"] < later["release"]
    names = [row["release"] for row in ROWS]
    assert _warehouse_order(sorted(names), BY_NAME) == names
    assert sorted(names) != names  # by name alone the order would be wrong


def test_releases_sort_by_time_not_by_name():
    pairs = [  # (earlier, later): each later one sorts first by name
        ("cc-main-2025-apr-may-jun", "cc-main-2025-26-dec-jan-feb"),
        ("cc-main-2024-nov-feb-apr", "cc-main-2024-25-nov-dec-jan"),
        ("cc-main-2024-nov-feb-apr", "cc-main-2024-feb-apr-may"),
        ("cc-main-2023-may-sep-nov", "cc-main-2023-24-sep-nov-feb"),
        ("cc-main-2017-aug-sep-oct", "cc-main-2017-18-nov-dec-jan"),
    ]
    for earlier, later in pairs:
        assert later < earlier
        assert _warehouse_order([later, earlier], BY_NAME) == [earlier, later]


def test_every_release_the_demo_and_the_tests_ingest_is_in_the_seed():
    project_vars = yaml.safe_load((PROJECT / "dbt_project.yml").read_text())["vars"]
    used = {
        *GRAPH_RELEASES,
        project_vars["graph_release"],
        warehouse_fixture.GRAPH_RELEASE,
        warehouse_fixture.LATER_RELEASE,
    }
    assert used - set(BY_NAME) == set()
    # the warehouse fixture's adversarial release is unknown on purpose: ordered last
    assert warehouse_fixture.UNSEEDED_RELEASE not in BY_NAME
    order = _warehouse_order([warehouse_fixture.UNSEEDED_RELEASE, *sorted(GRAPH_RELEASES)], BY_NAME)
    assert order[-1] == warehouse_fixture.UNSEEDED_RELEASE
