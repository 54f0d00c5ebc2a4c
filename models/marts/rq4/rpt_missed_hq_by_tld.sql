with

host_crawls as (
    select * from {{ ref('fct_host_crawls') }}
    where {{ in_updated_partitions('crawl') }}
),

tld_totals as (
    select
        host_crawls.crawl,
        host_crawls.url_host_tld,
        count(*) as host_count,
        sum(host_crawls.est_uncrawled_hq) as est_uncrawled_hq

    from host_crawls
    where host_crawls.is_analysed
    group by all
),

-- docs/definitions.md A9 (RQ4 coverage vs quality): each TLD's share of the crawl's
-- hosts against its share of the HQ pages the crawl left behind (the paper: .uk 6.1% of
-- hosts, 23% of the missed HQ).
missed_hq_by_tld as (
    select
        ---------- ids
        tld_totals.crawl,
        tld_totals.url_host_tld,

        ---------- numerics
        tld_totals.host_count,
        tld_totals.host_count
        / sum(tld_totals.host_count) over crawl_tlds as host_share,
        tld_totals.est_uncrawled_hq,
        tld_totals.est_uncrawled_hq
        / nullif(sum(tld_totals.est_uncrawled_hq) over crawl_tlds, 0) as missed_share,
        tld_totals.est_uncrawled_hq
        / nullif(sum(tld_totals.est_uncrawled_hq) over crawl_tlds, 0)
        / (tld_totals.host_count / sum(tld_totals.host_count) over crawl_tlds)
            as over_representation

    from tld_totals
    window crawl_tlds as (partition by tld_totals.crawl)
)

select * from missed_hq_by_tld
