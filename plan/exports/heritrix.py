"""Heritrix 3: a seeds file and a sheet overlay giving each planned queue its budget.

What Heritrix reads (internetarchive/heritrix3, tag 3.15.0, and iipc/webarchive-commons
3.0.4 for the SURT code; docs/exports.md#heritrix-3 says how to load it):

* ``seeds.txt``: a URI per line, ``#`` lines and blank lines skipped (``TextSeedModule``
  with ``RegexLineIterator``'s entry pattern: one token without whitespace). Each seed with a
  path (``http://example.com/``) also adds its host to the crawl's scope
  (``seedsAsSurtPrefixes``), so the crawl stays on the planned host names. A seed on a port
  other than its scheme's default is left out: Heritrix would queue it apart, unbudgeted.
* ``hostaware-sheets.cxml``: Spring beans to ``<import>`` into ``crawler-beans.cxml``. A
  ``Sheet`` per budget the plan uses, overriding ``frontier.queueTotalBudget``, and a
  ``SurtPrefixesSheetAssociation`` per sheet listing the SURT prefixes of the queues given
  that budget. Heritrix's default queue is a host (``SurtAuthorityQueueAssignmentPolicy``:
  the SURT authority, ``www`` kept, so ``example.com`` and ``www.example.com`` are two
  queues): each planned queue key (``plan_host_queue_keys``) is one host-level prefix,
  ``http://(com,example,www,)/``, lower case and ``http`` (the association matches a URI's
  SURT with https made http, and prefixes as written). A queue retires once it has spent its
  budget at a cost of 1 a URI (``UnitCostAssignmentPolicy``, the default), its prerequisites
  included: the ``dns:`` lookup and ``robots.txt`` of the host are queued with its pages
  (``CrawlURI.getPolicyBasisUURI``), so a queue's budget is its pages plus those 2.
"""

from __future__ import annotations

from pathlib import Path

from plan.exports.common import QUEUE_KEYS, SEED_URLS, ExportResult, Plan

__all__ = ["PREREQUISITE_URIS", "SHEETS_FILE", "sheet_lines_sql", "write"]

SHEETS_FILE = "hostaware-sheets.cxml"
# Each queue's dns: lookup and robots.txt fetch, charged to its budget before its pages.
PREREQUISITE_URIS = 2

# A URL on its scheme's default port (or none given): Heritrix queues a URL by host and port
# (SurtAuthorityQueueAssignmentPolicy, the default ports dropped), so a seed on another port
# would open a queue of its own, with no budget: such seeds are left out.
_PORT = (
    "regexp_extract(seed_urls.url, '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#@]*@)?[^/?#:]*(:[0-9]*)?', 2)"
)
_ON_DEFAULT_PORT = f"""(
    {_PORT} in ('', ':')
    or ({_PORT} = ':80' and lower(seed_urls.url) like 'http:%')
    or ({_PORT} = ':443' and lower(seed_urls.url) like 'https:%')
)"""

_SEEDS_HEADER = """\
# The crawl plan's seeds (hostaware: docs/exports.md#heritrix-3), a URI per line.
# Per-queue budgets: hostaware-sheets.cxml.
"""

_SHEETS_HEAD = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- The crawl plan's queue budgets (hostaware: docs/exports.md#heritrix-3). Import into
     crawler-beans.cxml beside its sheetOverlaysManager:
       <import resource="hostaware-sheets.cxml"/>
     Each sheet sets frontier.queueTotalBudget (a queue's pages plus its dns: and robots.txt
     URIs); each association lists the host-level SURT prefixes of the queues it applies to. -->
<beans xmlns="http://www.springframework.org/schema/beans"
       xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
       xsi:schemaLocation="http://www.springframework.org/schema/beans
           http://www.springframework.org/schema/beans/spring-beans.xsd">
"""
_SHEETS_TAIL = "</beans>\n"


def sheet_lines_sql() -> str:
    """The sheet overlay's lines between its head and tail.

    Per budget, a sheet, then an association with one ``<value>`` per queue's SURT prefix.
    """
    return f"""
        with

        queue_budgets as (
            select
                queue_keys.pages_to_fetch + {PREREQUISITE_URIS} as budget,
                'http://('
                || array_to_string(list_reverse(string_split(queue_keys.url_host_name, '.')), ',')
                || ',)/' as surt_prefix
            from "{QUEUE_KEYS}" as queue_keys
        ),

        budgets as (
            select distinct queue_budgets.budget from queue_budgets
        ),

        sheet_lines as (
            select
                budgets.budget,
                0 as part,
                '' as surt_prefix,
                '  <bean id="hostaware-budget-' || budgets.budget
                || '" class="org.archive.spring.Sheet">' || chr(10)
                || '    <property name="map">' || chr(10)
                || '      <map>' || chr(10)
                || '        <entry key="frontier.queueTotalBudget" value="'
                || budgets.budget || '"/>' || chr(10)
                || '      </map>' || chr(10)
                || '    </property>' || chr(10)
                || '  </bean>' || chr(10)
                || '  <bean class="org.archive.crawler.spring.SurtPrefixesSheetAssociation">'
                || chr(10)
                || '    <property name="targetSheetNames">' || chr(10)
                || '      <list><value>hostaware-budget-' || budgets.budget
                || '</value></list>' || chr(10)
                || '    </property>' || chr(10)
                || '    <property name="surtPrefixes">' || chr(10)
                || '      <list>' as line
            from budgets
            union all
            select
                queue_budgets.budget,
                1 as part,
                queue_budgets.surt_prefix,
                '        <value>' || queue_budgets.surt_prefix || '</value>' as line
            from queue_budgets
            union all
            select
                budgets.budget,
                2 as part,
                '' as surt_prefix,
                '      </list>' || chr(10) || '    </property>' || chr(10) || '  </bean>'
                as line
            from budgets
        )

        select sheet_lines.line
        from sheet_lines
        order by sheet_lines.budget, sheet_lines.part, sheet_lines.surt_prefix
    """


def write(plan: Plan, folder: Path) -> ExportResult:
    """Write ``seeds.txt`` and ``hostaware-sheets.cxml`` into ``folder``."""
    result = ExportResult("heritrix")
    seeds = folder / "seeds.txt"
    result.seed_count = plan.copy_lines(
        f"""
        select {Plan.seed_url("seed_urls.url")}
        from "{SEED_URLS}" as seed_urls
        where {_ON_DEFAULT_PORT}
        order by seed_urls.url_host_name, seed_urls.seed_rank
        """,
        seeds,
        header=_SEEDS_HEADER,
    )
    off_port = plan.value(
        f'select count(*) from "{SEED_URLS}" as seed_urls where not ({_ON_DEFAULT_PORT})'
    )
    sheets = folder / SHEETS_FILE
    plan.copy_lines(sheet_lines_sql(), sheets, header=_SHEETS_HEAD)
    with sheets.open("a", encoding="utf-8") as out:
        out.write(_SHEETS_TAIL)
    result.files = [seeds, sheets]
    result.key_count, result.host_count, result.page_count, budgets = plan.rows(
        f"select count(*), count(distinct surt_host_name), coalesce(sum(pages_to_fetch), 0), "
        f'count(distinct pages_to_fetch) from "{QUEUE_KEYS}"'
    )[0]
    result.notes = [
        f"{off_port:,} seed URLs on another port left out (Heritrix would queue them apart, "
        "with no budget)",
        f"{budgets:,} sheets (one per budget); each queue's budget is its pages "
        f"+ {PREREQUISITE_URIS} (dns: and robots.txt)",
    ]
    return result
