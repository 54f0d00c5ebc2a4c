"""Apache Nutch 1.x: a seed list for the Injector and the HostDb route to per-host limits.

What Nutch reads (apache/nutch, tag release-1.22; docs/exports.md#apache-nutch says how to
load it):

* ``seeds/seeds.txt``: a line per seed, ``URL<TAB>key=value<TAB>…``. The Injector reads every
  file of the seed folder with Hadoop's ``KeyValueTextInputFormat`` (the line split at its
  first TAB), trims the URL, skips blank lines and lines starting with ``#``, splits the
  metadata on TABs and each field at its first ``=`` (``Injector.java``: ``processMetaData``).
  ``nutch.score`` sets the URL's score (a float): here the host's expected HQ share.
  ``hostaware.budget`` is the queue key's pages, kept as Text in the CrawlDatum's metadata;
  ``hostaware.host`` the plan's host key, for tracing a line back to the plan.
* ``nutch-site.xml``: the properties that turn ``hostaware.budget`` into a per-host limit.
  ``UpdateHostDb`` aggregates the numeric metadata fields named in ``hostdb.numeric.fields``
  over a host's fetched records into ``max.<field>`` (``UpdateHostDbReducer.java``), and the
  Generator evaluates ``generate.max.count.expr`` (JEXL) per host against the HostDb record,
  ``fetched`` among its variables (``Generator.java``: ``createContext``), as the most URLs
  it puts in one segment for the host. The expression gives the pages left,
  ``max.hostaware.budget - fetched``, and 1 once they are spent (a limit of 0 or less means
  no limit to the Generator).

Nutch counts hosts by ``URL.getHost()`` lower-cased, ``www`` kept: ``example.com`` and
``www.example.com`` are two hosts, so the seeds and budgets are per queue key
(``plan_host_queue_keys``).
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from plan.exports.common import PLAN, QUEUE_KEYS, SEED_URLS, ExportResult, Plan

__all__ = [
    "BUDGET_FIELD",
    "HOST_FIELD",
    "MAX_COUNT_EXPRESSION",
    "PROPERTIES",
    "seed_lines_sql",
    "site_xml",
    "write",
]

BUDGET_FIELD = "hostaware.budget"
HOST_FIELD = "hostaware.host"
SCORE_FIELD = "nutch.score"
# JEXL (commons-jexl 3): `??` keeps a host with no budget from being an error under the
# Generator's strict engine; `* 1.0` makes the result a Double, which the Generator casts to.
_BUDGET = f"(max.{BUDGET_FIELD} ?? 0)"
MAX_COUNT_EXPRESSION = f"{_BUDGET} - fetched >= 1 ? ({_BUDGET} - fetched) * 1.0 : 1.0"

# (name, value, why): the properties a crawl with the plan sets in nutch-site.xml.
PROPERTIES: tuple[tuple[str, str, str], ...] = (
    (
        "hostdb.numeric.fields",
        f"_rs_,{BUDGET_FIELD}",
        "UpdateHostDb aggregates the seeds' budget into max.hostaware.budget "
        "(_rs_, the default, is kept)",
    ),
    (
        "generate.max.count.expr",
        MAX_COUNT_EXPRESSION,
        "each host's limit per segment: the plan's pages less those fetched, 1 once spent",
    ),
    ("generate.count.mode", "host", "limits count URLs per host (Nutch's default)"),
    ("partition.url.mode", "byHost", "a host's URLs reach one reducer, which counts them"),
    ("generate.max.count", "-1", "no limit where the HostDb has none yet (the first round)"),
    (
        "db.ignore.external.links",
        "true",
        "outlinks stay within the planned hosts' domains (the plan budgets no other host)",
    ),
    (
        "db.ignore.external.links.mode",
        "byDomain",
        "a redirect from example.com to www.example.com stays in the crawl",
    ),
)


def site_xml(comment: str, properties: tuple[tuple[str, str, str], ...]) -> str:
    """A Hadoop configuration file (nutch-site.xml) of ``properties``, each with its reason."""
    lines = [
        '<?xml version="1.0"?>',
        '<?xml-stylesheet type="text/xsl" href="configuration.xsl"?>',
        f"<!-- {escape(comment)} Merge into conf/nutch-site.xml. -->",
        "<configuration>",
    ]
    for name, value, why in properties:
        lines += [
            "  <property>",
            f"    <name>{escape(name)}</name>",
            f"    <value>{escape(value)}</value>",
            f"    <description>{escape(why)}</description>",
            "  </property>",
        ]
    lines.append("</configuration>")
    return "\n".join(lines) + "\n"


def seed_lines_sql() -> str:
    """The seed list's lines, in queue key and seed order."""
    url = Plan.seed_url("seed_urls.url")
    return f"""
        select
            {url}
            || chr(9) || '{SCORE_FIELD}='
            || cast(coalesce(seed_urls.hq_density_estimate, 0) as double)::varchar
            || chr(9) || '{BUDGET_FIELD}=' || cast(seed_urls.pages_to_fetch as varchar)
            || chr(9) || '{HOST_FIELD}=' || seed_urls.surt_host_name as line
        from "{SEED_URLS}" as seed_urls
        order by seed_urls.url_host_name, seed_urls.seed_rank
    """


def write(plan: Plan, folder: Path) -> ExportResult:
    """Write ``seeds/seeds.txt`` and ``nutch-site.xml`` into ``folder``."""
    result = ExportResult("nutch")
    seeds = folder / "seeds" / "seeds.txt"
    seeds.parent.mkdir()
    result.seed_count = plan.copy_lines(seed_lines_sql(), seeds)
    site = folder / "nutch-site.xml"
    comment = "The crawl plan's per-host limits (hostaware: docs/exports.md#apache-nutch)."
    site.write_text(site_xml(comment, PROPERTIES), encoding="utf-8")
    result.files = [seeds, site]
    result.key_count, result.host_count, result.page_count = plan.rows(
        f"select count(*), count(distinct surt_host_name), coalesce(sum(pages_to_fetch), 0) "
        f'from "{QUEUE_KEYS}"'
    )[0]
    unplanned = plan.value(f'select count(*) from "{PLAN}" where pages_to_fetch = 0')
    result.notes = [
        f"{unplanned:,} hosts of the plan get no pages and no seed",
        "limits apply from the second round (updatehostdb after the first fetch)",
    ]
    return result
