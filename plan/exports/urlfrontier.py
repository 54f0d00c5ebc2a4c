"""URLFrontier (StormCrawler's frontier): ``PutURLs`` seeds and ``SetCrawlLimit`` replay.

The seeds, and a replay script of ``SetCrawlLimit`` calls, a call per queue key.

What the frontier takes (crawler-commons/url-frontier, tag 2.6; docs/exports.md#urlfrontier
says how to load it):

* ``seeds.jsonl``: a ``URLItem`` per line in protobuf's JSON mapping
  (``API/src/main/protobuf/urlfrontier.proto``): ``{"discovered": {"info": {"url", "key",
  "crawlID", "metadata": {name: {"values": [...]}}}}, "ID"}``, as the client's ``DumpURLs``
  writes them and its ``PutURLs`` reads them (a line starting with ``{`` is parsed as a
  whole ``URLItem``), or as ``grpcurl -d @`` streams them to ``urlfrontier.URLFrontier/PutURLs``.
  ``key`` is the queue: the host name, ``www`` kept, as StormCrawler's ``partition.url.mode``
  ``byHost`` keys its URLs (``URLPartitioner``), so the plan's queue keys
  (``plan_host_queue_keys``). Discovered, not known: a URL the frontier already has is left
  as it is.
* ``crawl-limits.jsonl``: a ``CrawlLimitParams`` per queue key, ``{"key", "limit",
  "crawlID"}``; the frontier stops serving a queue once ``limit`` of its URLs are completed
  (``QueueMetadata.isLimitReached``). A limit of 0 would remove it, so every key has >= 1.
* ``set-crawl-limits.sh``: sends each line of ``crawl-limits.jsonl`` with grpcurl. The
  frontier keeps limits in memory only (its README: a restarted node loses them) and refuses
  one for a queue it does not hold yet, so the script runs after the seeds are in, and again
  after any restart; setting a limit twice leaves it as it was.
"""

from __future__ import annotations

from pathlib import Path

from plan.exports.common import QUEUE_KEYS, SEED_URLS, ExportError, ExportResult, Plan

__all__ = ["CRAWL_ID", "SCRIPT", "UINT32_MAX", "write"]

CRAWL_ID = "DEFAULT"  # the frontier's default crawl (CrawlID.java)
UINT32_MAX = 2**32 - 1  # CrawlLimitParams.limit is a uint32

SCRIPT = """\
#!/bin/sh
# Sets the crawl plan's limits on a URLFrontier: one SetCrawlLimit call per queue key, from
# crawl-limits.jsonl beside this script (hostaware: docs/exports.md#urlfrontier).
# Run it after the seeds are in (the frontier refuses a limit for a queue it does not hold)
# and again after every restart of the frontier (it keeps limits in memory only). Setting a
# limit again leaves it as it was, so the script may be run any number of times.
#   FRONTIER          host:port of the frontier (default localhost:7071)
#   URLFRONTIER_PROTO the API's urlfrontier.proto, when the frontier has no gRPC
#                     reflection (its default: server.enable_reflection=false)
#   GRPCURL           the grpcurl command (default grpcurl)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
frontier=${FRONTIER:-localhost:7071}
grpcurl=${GRPCURL:-grpcurl}
if [ -n "${URLFRONTIER_PROTO:-}" ]; then
    set -- -import-path "$(dirname "$URLFRONTIER_PROTO")" -proto "$(basename "$URLFRONTIER_PROTO")"
else
    set --
fi
count=0
failed=0
while IFS= read -r line; do
    count=$((count + 1))
    if ! printf '%s\\n' "$line" | "$grpcurl" -plaintext "$@" -d @ "$frontier" \\
        urlfrontier.URLFrontier/SetCrawlLimit >/dev/null; then
        failed=$((failed + 1))
        echo "set-crawl-limits.sh: failed: $line" >&2
    fi
done < "$here/crawl-limits.jsonl"
echo "set-crawl-limits.sh: $((count - failed)) of $count limits set on $frontier"
[ "$failed" -eq 0 ]
"""


def write(plan: Plan, folder: Path) -> ExportResult:
    """Write ``seeds.jsonl``, ``crawl-limits.jsonl`` and ``set-crawl-limits.sh``.

    Raises:
        ExportError: a queue key's pages exceed a uint32 (CrawlLimitParams cannot hold them).
    """
    largest = plan.rows(
        f'select url_host_name, pages_to_fetch from "{QUEUE_KEYS}" '
        f"where pages_to_fetch > {UINT32_MAX} limit 1"
    )
    if largest:
        key, pages = largest[0]
        raise ExportError(
            f"queue key {key} has {pages:,} pages in the plan, more than a crawl limit holds "
            f"({UINT32_MAX:,}, a uint32)"
        )
    result = ExportResult("urlfrontier")
    url = Plan.seed_url("seed_urls.url")
    seeds = folder / "seeds.jsonl"
    result.seed_count = plan.copy_json(
        f"""
        select
            {{
                'info': {{
                    'url': {url},
                    'key': seed_urls.url_host_name,
                    'crawlID': '{CRAWL_ID}',
                    'metadata': {{
                        'hostaware.budget': {{
                            'values': [cast(seed_urls.pages_to_fetch as varchar)]
                        }},
                        'hostaware.host': {{'values': [seed_urls.surt_host_name]}}
                    }}
                }}
            }} as discovered,
            {url} as "ID"
        from "{SEED_URLS}" as seed_urls
        order by seed_urls.url_host_name, seed_urls.seed_rank
        """,
        seeds,
    )
    limits = folder / "crawl-limits.jsonl"
    result.key_count = plan.copy_json(
        f"""
        select
            queue_keys.url_host_name as key,
            queue_keys.pages_to_fetch as "limit",
            '{CRAWL_ID}' as "crawlID"
        from "{QUEUE_KEYS}" as queue_keys
        order by queue_keys.url_host_name
        """,
        limits,
    )
    script = folder / "set-crawl-limits.sh"
    script.write_text(SCRIPT, encoding="utf-8")
    script.chmod(0o755)
    result.files = [seeds, limits, script]
    result.host_count, result.page_count = plan.rows(
        f"select count(distinct surt_host_name), coalesce(sum(pages_to_fetch), 0) "
        f'from "{QUEUE_KEYS}"'
    )[0]
    result.notes = [
        "put the seeds in first, then run set-crawl-limits.sh (again after a frontier restart)"
    ]
    return result
