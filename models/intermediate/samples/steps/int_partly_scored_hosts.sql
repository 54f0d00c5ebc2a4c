-- The hosts of the classified sample that a classifier scored only in part (rare: the
-- ingest scores every page with every classifier; the full crawl's pages are those with
-- a score, so its hosts are always complete). Their within-host samples are drawn among
-- the pages the classifier scored (int_host_samples renumbers their positions).

with

host_classifier_stats as (
    select * from {{ ref('int_host_classifier_stats') }}
),

hosts_profiled as (
    select * from {{ ref('int_hosts_profiled') }}
),

partly_scored_hosts as (
    select
        1 as dataset_id,
        host_classifier_stats.classifier_id,
        hosts_profiled.host_id
    from host_classifier_stats
    inner join hosts_profiled
        on host_classifier_stats.surt_host_name = hosts_profiled.surt_host_name
    where host_classifier_stats.doc_count < hosts_profiled.doc_count
)

select * from partly_scored_hosts
