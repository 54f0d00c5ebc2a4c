with

host_crawls as (
    select * from {{ ref('fct_host_crawls') }}
    where {{ in_updated_partitions('crawl') }}
),

-- docs/definitions.md §2.1 (Data regimes: hidden gems): hosts crawled below the median
-- coverage whose pages are among the densest in HQ, those with the most HQ left
-- uncrawled first.
hidden_gems as (
    select
        ---------- ids
        host_crawls.crawl,
        row_number() over (
            partition by host_crawls.crawl
            order by host_crawls.est_uncrawled_hq desc, host_crawls.surt_host_name asc
        )::integer as gem_rank,
        host_crawls.surt_host_name,

        ---------- strings
        host_crawls.url_host_tld,

        ---------- numerics
        host_crawls.known_url_count,
        host_crawls.fetched_url_count,
        host_crawls.coverage_rate,
        host_crawls.annotated_page_count,
        host_crawls.hq_page_count,
        host_crawls.hq_density,
        host_crawls.est_uncrawled_hq

    from host_crawls
    where host_crawls.is_hidden_gem
)

select * from hidden_gems
