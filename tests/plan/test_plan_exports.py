"""The crawl plan's exports read back as each crawler reads them (fixtures: crawler_formats).

For every format: the budgets parsed back from the files, mapped to the plan's host keys,
equal the plan host by host (Common Crawl's Nutch: domain by domain, what its file can say),
the totals equal the plan's pages, and every seed lands in a queue that has a limit. On a
hand-made plan of awkward rows (a URL with a space, a tab and non-ASCII letters, a seed on
another port, a domain of several hosts, a host with no registered domain) and, marked
``warehouse``, on the tiny crawl's plan as dbt built it. Also: the URLFrontier replay script
run twice against a stand-in grpcurl, a failed export leaving the previous one, limits too
large for a format refused, and the command line.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import duckdb
import pandas as pd
import pytest

from plan.__main__ import main
from plan.exports import FORMATS, ExportError, export
from plan.exports import common as export_common
from tests.fixtures import crawler_formats as crawler

# The seeds' metadata field holding a queue key's pages, and the Generator's limit over the
# HostDb's max of it (JEXL): the pages left, 1 once spent (a limit <= 0 is none to Nutch).
BUDGET_FIELD = "hostaware.budget"
NUTCH_MAX_COUNT = (
    "(max.hostaware.budget ?? 0) - fetched >= 1"
    " ? ((max.hostaware.budget ?? 0) - fetched) * 1.0 : 1.0"
)
# A Heritrix queue's dns: lookup and robots.txt, charged to its budget
# (CrawlURI.getPolicyBasisUURI puts prerequisites in the triggering URI's queue).
HERITRIX_PREREQUISITES = 2
FOLDER_FORMATS = [name for name, spec in FORMATS.items() if spec.is_folder]

# ----------------------------------------------------------------------- the plans


@dataclass(frozen=True)
class PlanFacts:
    """What an export must say, read from the plan's marts."""

    host_pages: dict[str, int]  # surt_host_name -> pages_to_fetch (all hosts)
    name_pages: dict[str, int]  # queue key (host name) -> its pages
    domains: dict[str, str]  # queue key -> the registered domain it is limited under
    seeds: dict[str, str]  # seed URL as written -> its queue key


def _safe(url: str) -> str:
    return quote(url, safe="".join(chr(code) for code in range(0x21, 0x7F)))


def plan_facts(warehouse: Path) -> PlanFacts:
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        host_pages = dict(
            connection.sql(
                "select surt_host_name, pages_to_fetch from plan_host_fetch_budget"
            ).fetchall()
        )
        keys = connection.sql(
            "select url_host_name, pages_to_fetch, coalesce(url_host_registered_domain,"
            " regexp_replace(url_host_name, '^www[.]', '')) from plan_host_queue_keys"
        ).fetchall()
        seeds = connection.sql("select url, url_host_name from plan_seed_urls").fetchall()
    return PlanFacts(
        host_pages,
        {name: pages for name, pages, _ in keys},
        {name: domain.lower() for name, _, domain in keys},
        {_safe(url): name for url, name in seeds},
    )


def _by_host(name_pages: dict[str, int]) -> dict[str, int]:
    return crawler.pages_by_key(
        [(crawler.surt_key(name), pages) for name, pages in name_pages.items()]
    )


def _planned(facts: PlanFacts) -> dict[str, int]:
    return {host: pages for host, pages in facts.host_pages.items() if pages > 0}


def _assert_host_by_host(facts: PlanFacts, name_pages: dict[str, int]) -> None:
    assert name_pages == facts.name_pages, "each queue key's budget is the plan's"
    assert _by_host(name_pages) == _planned(facts), "host by host"
    assert sum(name_pages.values()) == sum(facts.host_pages.values()), "the plan's total"


def check_round_trip(format_name: str, out: Path, facts: PlanFacts) -> None:
    """The export at ``out`` read back as its crawler reads it, against the plan."""
    if format_name in ("nutch", "cc-nutch"):
        seeds = crawler.read_nutch_seed_folder(out / "seeds")
        assert {seed.url: crawler.nutch_host(seed.url) for seed in seeds} == facts.seeds
        for seed in seeds:
            assert 0.0 <= float(seed.metadata["nutch.score"]) <= 1.0, seed
            assert seed.metadata["hostaware.host"] == crawler.surt_key(crawler.nutch_host(seed.url))
        budgets = crawler.nutch_hostdb_max(seeds, BUDGET_FIELD)
        _assert_host_by_host(facts, {name: int(value) for name, value in budgets.items()})
        site = crawler.hadoop_configuration(out / "nutch-site.xml")
    if format_name == "nutch":
        assert site["generate.max.count.expr"] == NUTCH_MAX_COUNT
        assert BUDGET_FIELD in site["hostdb.numeric.fields"].split(",")
        assert site["generate.count.mode"] == "host"
    elif format_name == "cc-nutch":
        assert site["generate.count.mode"] == "domain"
        limits = crawler.read_domain_limits(out / site["generate.domain.limits.file"])
        by_domain: dict[str, list[int]] = {}
        for name, pages in facts.name_pages.items():
            by_domain.setdefault(facts.domains[name], []).append(pages)
        assert set(limits) == set(by_domain)
        for domain, pages in by_domain.items():
            assert limits[domain] == crawler.DomainLimits(sum(pages), max(pages), len(pages), 1)
        assert sum(limit.max_urls for limit in limits.values()) == sum(facts.host_pages.values())
    elif format_name == "urlfrontier":
        urls = crawler.read_frontier_seeds(out / "seeds.jsonl")
        assert {url.url: url.key for url in urls} == facts.seeds
        queues = {(url.crawl, url.key) for url in urls}
        calls = [json.loads(line) for line in crawler.hadoop_lines(out / "crawl-limits.jsonl")]
        limits = crawler.frontier_limits(calls, queues)
        assert set(limits) == queues, "every seeded queue has a limit, and no other"
        for url in urls:
            assert url.metadata["hostaware.budget"] == [str(limits[url.crawl, url.key])]
        _assert_host_by_host(facts, {key: limit for (_, key), limit in limits.items()})
    elif format_name == "heritrix":
        seeds = crawler.read_heritrix_seeds(out / "seeds.txt")
        expected = {url: name for url, name in facts.seeds.items() if crawler.on_default_port(url)}
        assert set(seeds) == set(expected), "every seed on its default port, and only those"
        budgets = crawler.read_heritrix_budgets(out / "hostaware-sheets.cxml")
        for seed in seeds:
            assert crawler.heritrix_queue_key(seed) in budgets, f"{seed}'s queue has no budget"
        pages = {
            crawler.heritrix_host_name(key): budget - HERITRIX_PREREQUISITES
            for key, budget in budgets.items()
        }
        _assert_host_by_host(facts, pages)
    elif format_name in ("csv", "parquet"):
        table = pd.read_csv(out) if format_name == "csv" else pd.read_parquet(out)
        assert dict(zip(table["surt_host_name"], table["pages_to_fetch"], strict=True)) == (
            facts.host_pages
        )
        assert table["surt_host_name"].is_monotonic_increasing


# A hand-made plan: (surt_host_name, registered domain, phase, pages, density) and its
# queue keys and seeds as the marts would hold them.
_HOSTS = [
    ("com,a", "a.com", "deepen", 10, 0.5),
    ("com,b", "b.com", "sample", 3, 0.25),
    ("uk,co,shop", "shop.co.uk", "deepen", 2, 1.0),
    ("uk,co,shop,news", "shop.co.uk", "sample", 4, 0.0),
    ("localhost", None, "sample", 2, 0.25),
    ("com,skipped", "skipped.com", "skip", 0, 0.0),
]
_KEYS = [
    ("com,a", "www.a.com", 7),
    ("com,a", "a.com", 3),
    ("com,b", "b.com", 2),
    ("com,b", "www.b.com", 1),
    ("uk,co,shop", "shop.co.uk", 2),
    ("uk,co,shop,news", "news.shop.co.uk", 4),
    ("localhost", "localhost", 2),
]
_SEEDS = [
    ("www.a.com", "https://www.a.com/ünï cödé\tand a tab"),
    ("www.a.com", "https://www.a.com/p?q=a=b#frag"),
    ("www.a.com", "http://www.a.com:8080/other-port"),
    ("www.a.com", "https://www.a.com:443/default-port"),
    ("a.com", "https://a.com/"),
    ("b.com", "https://b.com/"),
    ("www.b.com", "https://www.b.com/"),
    ("shop.co.uk", "http://user@shop.co.uk/cart"),
    ("news.shop.co.uk", "https://news.shop.co.uk/"),
    ("localhost", "https://localhost/"),
]


def write_plan_warehouse(path: Path, scale: int = 1) -> Path:
    """The hand-made plan as the three marts, ``scale`` times each page count."""
    hosts = pd.DataFrame(
        _HOSTS,
        columns=[
            "surt_host_name",
            "url_host_registered_domain",
            "phase",
            "pages_to_fetch",
            "hq_density_estimate",
        ],
    )
    hosts["pages_to_fetch"] *= scale
    keys = pd.DataFrame(_KEYS, columns=["surt_host_name", "url_host_name", "pages_to_fetch"])
    keys["pages_to_fetch"] *= scale
    keys = keys.merge(
        hosts[["surt_host_name", "url_host_registered_domain", "hq_density_estimate"]]
    )
    seeds = pd.DataFrame(_SEEDS, columns=["url_host_name", "url"])
    seeds["seed_rank"] = seeds.groupby("url_host_name").cumcount() + 1
    seeds = seeds.merge(
        keys[["surt_host_name", "url_host_name", "pages_to_fetch", "hq_density_estimate"]]
    )
    with duckdb.connect(str(path)) as connection:
        for name, frame in (
            ("plan_host_fetch_budget", hosts),
            ("plan_host_queue_keys", keys),
            ("plan_seed_urls", seeds),
        ):
            connection.register("frame", frame)
            connection.execute(f"create table {name} as select * from frame")
            connection.unregister("frame")
    return path


def _out(tmp_path: Path, format_name: str) -> Path:
    return tmp_path / ("plan." + format_name if format_name in ("csv", "parquet") else format_name)


# ----------------------------------------------------------------------- round trips


@pytest.mark.parametrize("format_name", list(FORMATS))
def test_each_export_of_an_awkward_plan_reads_back_as_the_plan(tmp_path: Path, format_name):
    warehouse = write_plan_warehouse(tmp_path / "warehouse.duckdb")
    out = _out(tmp_path, format_name)
    result = export(warehouse, format_name, out)
    assert result.page_count == 21
    assert all(path.exists() for path in result.files), result.files
    check_round_trip(format_name, out, plan_facts(warehouse))


def test_text_exports_percent_encode_what_would_split_a_line(tmp_path: Path):
    warehouse = write_plan_warehouse(tmp_path / "warehouse.duckdb")
    export(warehouse, "nutch", tmp_path / "nutch")
    text = (tmp_path / "nutch" / "seeds" / "seeds.txt").read_text(encoding="utf-8")
    assert "https://www.a.com/%C3%BCn%C3%AF%20c%C3%B6d%C3%A9%09and%20a%20tab\t" in text
    assert text.isascii()
    assert all(line.count("\t") == 3 for line in text.splitlines())


def test_heritrix_leaves_out_seeds_on_another_port(tmp_path: Path):
    warehouse = write_plan_warehouse(tmp_path / "warehouse.duckdb")
    result = export(warehouse, "heritrix", tmp_path / "heritrix")
    seeds = crawler.read_heritrix_seeds(tmp_path / "heritrix" / "seeds.txt")
    assert "http://www.a.com:8080/other-port" not in seeds
    assert "https://www.a.com:443/default-port" in seeds
    assert len(seeds) == len(_SEEDS) - 1
    assert any("1 seed URLs on another port" in note for note in result.notes)


@pytest.mark.warehouse
@pytest.mark.parametrize("format_name", list(FORMATS))
def test_each_export_of_the_tiny_crawls_plan_reads_back_host_by_host(
    tiny_warehouse_path: Path, tmp_path: Path, format_name
):
    out = _out(tmp_path, format_name)
    export(tiny_warehouse_path, format_name, out)
    facts = plan_facts(tiny_warehouse_path)
    assert sum(facts.host_pages.values()) > 0 and len(facts.name_pages) > len(_planned(facts))
    check_round_trip(format_name, out, facts)


# ----------------------------------------------------------------------- the URLFrontier script

_FAKE_GRPCURL = """#!{python}
import json, os, sys
from pathlib import Path
with open(os.environ["GRPCURL_LOG"], "a") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "body": json.loads(sys.stdin.read())}}) + "\\n")
sys.exit(1 if os.environ.get("GRPCURL_FAIL") else 0)
"""


def test_the_urlfrontier_replay_script_sets_every_limit_and_may_run_again(tmp_path: Path):
    warehouse = write_plan_warehouse(tmp_path / "warehouse.duckdb")
    out = tmp_path / "urlfrontier"
    export(warehouse, "urlfrontier", out)
    fake = tmp_path / "grpcurl"
    fake.write_text(_FAKE_GRPCURL.format(python=sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "calls.jsonl"
    env = os.environ | {
        "GRPCURL": str(fake),
        "GRPCURL_LOG": str(log),
        "FRONTIER": "frontier.example:7071",
        "URLFRONTIER_PROTO": "/opt/url-frontier/API/src/main/protobuf/urlfrontier.proto",
    }
    for _ in range(2):
        done = subprocess.run(
            [str(out / "set-crawl-limits.sh")], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert f"{len(_KEYS)} of {len(_KEYS)} limits set on frontier.example:7071" in done.stdout
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(calls) == 2 * len(_KEYS)
    assert calls[0]["argv"] == [
        "-plaintext",
        "-import-path",
        "/opt/url-frontier/API/src/main/protobuf",
        "-proto",
        "urlfrontier.proto",
        "-d",
        "@",
        "frontier.example:7071",
        "urlfrontier.URLFrontier/SetCrawlLimit",
    ]
    queues = {(url.crawl, url.key) for url in crawler.read_frontier_seeds(out / "seeds.jsonl")}
    once = crawler.frontier_limits([call["body"] for call in calls[: len(_KEYS)]], queues)
    twice = crawler.frontier_limits([call["body"] for call in calls], queues)
    assert once == twice == {("DEFAULT", name): pages for _, name, pages in _KEYS}
    failing = subprocess.run(
        [str(out / "set-crawl-limits.sh")],
        env=env | {"GRPCURL_FAIL": "1"},
        capture_output=True,
        text=True,
    )
    assert failing.returncode != 0
    assert f"0 of {len(_KEYS)} limits set" in failing.stdout
    assert failing.stderr.count("failed:") == len(_KEYS)


# ----------------------------------------------------------------------- what is refused


def test_a_failed_export_leaves_the_previous_one_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    warehouse = write_plan_warehouse(tmp_path / "warehouse.duckdb")
    out = tmp_path / "nutch"
    export(warehouse, "nutch", out)
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}

    def fail_halfway(plan, folder):
        (folder / "seeds").mkdir()
        (folder / "seeds" / "seeds.txt").write_text("half a seed list")
        raise ExportError("the disk filled up")

    monkeypatch.setitem(FORMATS, "nutch", FORMATS["nutch"].__class__(fail_halfway, True, ""))
    with pytest.raises(ExportError, match="the disk filled up"):
        export(warehouse, "nutch", out)
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["nutch", "warehouse.duckdb"]


@pytest.mark.parametrize(
    ("format_name", "scale", "message"),
    [
        ("urlfrontier", 2**30, "more than a crawl limit holds (4,294,967,295, a uint32)"),
        ("cc-nutch", 2**28, "more than a domain-limits line holds (2,147,483,647, a Java int)"),
    ],
)
def test_limits_too_large_for_a_format_are_refused(tmp_path: Path, format_name, scale, message):
    warehouse = write_plan_warehouse(tmp_path / "warehouse.duckdb", scale)
    with pytest.raises(ExportError, match=message.replace("(", r"\(").replace(")", r"\)")):
        export(warehouse, format_name, tmp_path / format_name)
    assert not (tmp_path / format_name).exists()


def test_an_export_without_the_plan_says_to_build_it(tmp_path: Path):
    warehouse = tmp_path / "warehouse.duckdb"
    duckdb.connect(str(warehouse)).close()
    with pytest.raises(ExportError, match="has no plan_host_fetch_budget, plan_host_queue_keys"):
        export(warehouse, "nutch", tmp_path / "nutch")
    with pytest.raises(ExportError, match="no warehouse at"):
        export(tmp_path / "missing.duckdb", "nutch", tmp_path / "nutch")


def test_the_out_must_be_a_folder_or_a_file_as_the_format_is(tmp_path: Path):
    warehouse = write_plan_warehouse(tmp_path / "warehouse.duckdb")
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(ExportError, match="is a file: the heritrix export is a folder"):
        export(warehouse, "heritrix", tmp_path / "a-file")
    with pytest.raises(ExportError, match="is a folder: name the csv file to write"):
        export(warehouse, "csv", tmp_path)
    with pytest.raises(ExportError, match="a-file is not a folder"):
        export(warehouse, "csv", tmp_path / "a-file" / "plan.csv")
    missing = tmp_path / "missing.duckdb"  # refused before the warehouse is opened
    with pytest.raises(ExportError, match=r"--out /proc/nutch: .*"):
        export(missing, "nutch", Path("/proc/nutch"))


# ----------------------------------------------------------------------- the command line


def test_export_all_writes_every_format_into_the_exports_folder(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
):
    warehouse = write_plan_warehouse(tmp_path / "warehouse.duckdb")
    monkeypatch.setenv("HOSTAWARE_EXPORTS", str(tmp_path / "exports"))
    assert main(["export", "--format", "all", "--warehouse", str(warehouse)]) == 0
    printed = capsys.readouterr().out
    facts = plan_facts(warehouse)
    for format_name in FORMATS:
        out = (
            tmp_path
            / "exports"
            / (f"crawl_plan.{format_name}" if format_name in ("csv", "parquet") else format_name)
        )
        assert f"{format_name} export:" in printed and str(out) in printed
        check_round_trip(format_name, out, facts)


def test_export_errors_are_one_line(tmp_path: Path, capsys):
    assert main(["export", "--format", "nutch", "--warehouse", str(tmp_path / "x.duckdb")]) == 2
    assert capsys.readouterr().err.strip() == "python -m plan export: error: --out is required"
    code = main(
        [
            "export",
            "--format",
            "nutch",
            "--out",
            str(tmp_path / "n"),
            "--warehouse",
            str(tmp_path / "x.duckdb"),
        ]
    )
    assert code == 2
    error = capsys.readouterr().err
    assert "no warehouse at" in error and len(error.strip().splitlines()) == 1
    with pytest.raises(SystemExit) as exit_info:
        main(["export", "--format", "wget", "--out", "x"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'wget'" in capsys.readouterr().err


def test_the_folder_formats_are_the_four_crawlers():
    assert FOLDER_FORMATS == ["nutch", "cc-nutch", "urlfrontier", "heritrix"]
    assert export_common.PLAN == "plan_host_fetch_budget"
