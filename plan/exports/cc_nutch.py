"""Common Crawl's Nutch fork: the domain-limits file of its ``Generator2``, and the seeds.

What the fork reads (commoncrawl/nutch, branch ``cc`` at 8ec6739b; docs/exports.md
#common-crawls-nutch says how to load it and what is lost):

* ``generate-domain-limits.txt``, named by ``generate.domain.limits.file`` and read by
  ``org.apache.nutch.crawl.Generator2`` only, with ``generate.count.mode=domain``
  (``Generator2.java``: ``readLimitsFile``). A line per registered domain, TAB-separated:
  the domain; the most URLs of the domain in a segment; the most URLs of one of its hosts;
  the most hosts of the domain; the fetch-list partitions of the domain. Lines starting
  with ``#`` and blank lines are skipped; each number is a Java ``int``; 0 or less is no
  limit. Here, for one segment (``-maxNumSegments 1``): the plan's pages summed over the
  domain's hosts, the most pages one of its host names has in the plan, the number of its
  host names the plan fetches from, 1 partition.
* ``seeds/seeds.txt``: the Injector's seed list, which the fork reads as Apache Nutch does
  (``plan.exports.nutch``).

The fork counts a domain by ``EffectiveTldFinder.getAssignedDomain`` (the public-suffix
list's ICANN section); the file keys it by the host index's ``url_host_registered_domain``,
or a host's own name where the index gives none.
"""

from __future__ import annotations

from pathlib import Path

from plan.exports import nutch
from plan.exports.common import QUEUE_KEYS, ExportError, ExportResult, Plan

__all__ = ["DOMAIN_LIMITS_FILE", "JAVA_INT_MAX", "PROPERTIES", "domain_limits_sql", "write"]

DOMAIN_LIMITS_FILE = "generate-domain-limits.txt"
JAVA_INT_MAX = 2**31 - 1  # Integer.parseInt's largest value

PROPERTIES: tuple[tuple[str, str, str], ...] = (
    ("generate.count.mode", "domain", "Generator2 reads the domain limits only in this mode"),
    (
        "generate.domain.limits.file",
        DOMAIN_LIMITS_FILE,
        "the plan's limits per registered domain (a conf resource, or a path with a scheme)",
    ),
    ("partition.url.mode", "byDomain", "a domain's URLs reach one reducer, which counts them"),
    (
        "generate.count.keep.min.urls.per.segment",
        "1",
        "no domain's segment is padded up to a minimum beyond its limit",
    ),
    ("generate.max.count", "-1", "domains outside the file: no limit (the plan has none)"),
)

_HEADER = """\
# Fetch list limits by domain: hostaware's crawl plan (docs/exports.md#common-crawls-nutch).
# Register with generate.domain.limits.file; run Generator2 with -maxNumSegments 1.
#
# Fields (tab-separated):
#  1 - domain name
#  2 - max. number of URLs per domain and segment (the plan's pages of the domain)
#  3 - max. number of URLs per host (in domain) and segment (the plan's most for one host)
#  4 - max. number of hosts per domain over all segments (the host names planned)
#  5 - max. number of partitions (fetcher tasks) for domain
#
"""


def domain_limits_sql() -> str:
    """One row per registered domain: its pages, its most for a host name, its host names."""
    return f"""
        select
            lower(coalesce(
                queue_keys.url_host_registered_domain,
                regexp_replace(queue_keys.url_host_name, '^www[.]', '')
            )) as domain,
            sum(queue_keys.pages_to_fetch) as domain_pages,
            max(queue_keys.pages_to_fetch) as host_pages_max,
            count(*) as host_count
        from "{QUEUE_KEYS}" as queue_keys
        group by 1
    """


def write(plan: Plan, folder: Path) -> ExportResult:
    """Write the domain-limits file, the seeds and ``nutch-site.xml`` into ``folder``.

    Raises:
        ExportError: a domain's pages exceed a Java ``int`` (the file could not hold them).
    """
    result = ExportResult("cc-nutch")
    limits = plan.rows(
        f"select domain, domain_pages from ({domain_limits_sql()}) "
        f"where domain_pages > {JAVA_INT_MAX} order by domain_pages desc limit 1"
    )
    if limits:
        domain, pages = limits[0]
        raise ExportError(
            f"domain {domain} has {pages:,} pages in the plan, more than a domain-limits line "
            f"holds ({JAVA_INT_MAX:,}, a Java int): split the plan's budget over several runs"
        )
    limits_file = folder / DOMAIN_LIMITS_FILE
    domains = plan.copy_lines(
        f"""
        select
            domain || chr(9) || cast(domain_pages as varchar)
            || chr(9) || cast(host_pages_max as varchar)
            || chr(9) || cast(host_count as varchar) || chr(9) || '1'
        from ({domain_limits_sql()})
        order by domain
        """,
        limits_file,
        header=_HEADER,
    )
    seeds = folder / "seeds" / "seeds.txt"
    seeds.parent.mkdir()
    result.seed_count = plan.copy_lines(nutch.seed_lines_sql(), seeds)
    site = folder / "nutch-site.xml"
    comment = (
        "The crawl plan's domain limits for Common Crawl's Generator2 "
        "(hostaware: docs/exports.md#common-crawls-nutch)."
    )
    site.write_text(nutch.site_xml(comment, PROPERTIES), encoding="utf-8")
    result.files = [limits_file, seeds, site]
    result.key_count, result.host_count, result.page_count = plan.rows(
        f"select count(*), count(distinct surt_host_name), coalesce(sum(pages_to_fetch), 0) "
        f'from "{QUEUE_KEYS}"'
    )[0]
    shared = plan.value(f"select count(*) from ({domain_limits_sql()}) where host_count > 1")
    result.notes = [
        f"{domains:,} domains; {shared:,} of them share one per-host limit among several "
        "host names (each may take up to the most any of them has in the plan)",
    ]
    return result
