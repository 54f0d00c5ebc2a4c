with

hosts_profiled as (
    select * from {{ ref('int_hosts_profiled') }}
),

pages_flagged as (
    select * from {{ ref('int_page_annotations_flagged') }}
),

host_crawls as (
    select * from {{ ref('stg_host_index__host_crawls') }}
),

fullcrawl_hosts as (
    select pages_flagged.surt_host_name
    from pages_flagged
    where pages_flagged.crawl = '{{ var("fullcrawl_crawl") }}'
    group by all
),

fullcrawl_host_crawls as (
    select * from host_crawls
    where crawl = '{{ var("fullcrawl_crawl") }}'
),

-- The classified sample's hosts keep their ids; the full crawl's annotated hosts are
-- numbered the same way (SURT order). Centrality: the graph release's for the sample,
-- the host index's for the full crawl.
dataset_hosts as (
    select
        1 as dataset_id,
        hosts_profiled.host_id,
        hosts_profiled.surt_host_name,
        hosts_profiled.hc_val
    from hosts_profiled
    union all
    select
        2 as dataset_id,
        row_number() over (order by fullcrawl_hosts.surt_host_name)::integer as host_id,
        fullcrawl_hosts.surt_host_name,
        fullcrawl_host_crawls.hc_val
    from fullcrawl_hosts
    left join fullcrawl_host_crawls
        on fullcrawl_hosts.surt_host_name = fullcrawl_host_crawls.surt_host_name
),

dataset_hosts_keyed as (
    select
        ---------- ids
        dataset_hosts.dataset_id,
        dataset_hosts.host_id,
        dataset_hosts.surt_host_name,

        ---------- numerics
        dataset_hosts.hc_val,
        -- ties of the greedy orders are broken by the md5 of the host
        -- (docs/definitions.md A4 (RQ2 host orderings)), as a number: cheaper to sort
        -- than its hex text
        {{ md5_number('dataset_hosts.surt_host_name') }} as tie_breaker

    from dataset_hosts
)

select * from dataset_hosts_keyed
