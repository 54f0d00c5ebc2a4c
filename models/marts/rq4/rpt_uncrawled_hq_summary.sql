with

host_crawls as (
    select * from {{ ref('fct_host_crawls') }}
    where {{ in_updated_partitions('crawl') }}
),

host_crawl_annotations as (
    select * from {{ ref('int_host_crawl_annotations') }}
    where {{ in_updated_partitions('crawl') }}
),

-- docs/definitions.md A8 and A12 (RQ4 coverage vs quality): how much high quality the
-- crawl left behind, and how much of it sits on each candidate "under-crawled" set of
-- hosts: low coverage, below-median coverage, hidden gems, low coverage with some HQ.
crawl_totals as (
    select
        host_crawls.crawl,
        count(*) filter (where host_crawls.is_analysed) as analysed_host_count,
        sum(host_crawls.est_uncrawled_hq) as total_est_uncrawled_hq,
        median(host_crawls.coverage_rate) filter (where host_crawls.is_analysed)
            as coverage_median,
        {{ quantile_cont(
            'host_crawls.hq_density', var('top_quality_quantile')
        ) }} filter (where host_crawls.is_analysed) as hq_density_top_cutoff,
        count(*) filter (where host_crawls.is_low_coverage) as low_coverage_host_count,
        sum(host_crawls.est_uncrawled_hq) filter (where host_crawls.is_low_coverage)
            as low_coverage_est_uncrawled_hq,
        -- for the intervals (docs/definitions.md B, "Host-index statistics"): a sum's
        -- first-order bootstrap variance is the sum of its terms' squares
        sum(power(host_crawls.est_uncrawled_hq, 2)) as est_uncrawled_hq_squares,
        sum(power(host_crawls.est_uncrawled_hq, 2)) filter (
            where host_crawls.is_low_coverage
        ) as low_coverage_est_uncrawled_hq_squares,
        count(*) filter (where host_crawls.is_below_median_coverage)
            as below_median_coverage_host_count,
        sum(host_crawls.est_uncrawled_hq) filter (
            where host_crawls.is_below_median_coverage
        ) as below_median_coverage_est_uncrawled_hq,
        count(*) filter (where host_crawls.is_hidden_gem) as hidden_gem_count,
        sum(host_crawls.est_uncrawled_hq) filter (where host_crawls.is_hidden_gem)
            as hidden_gem_est_uncrawled_hq,
        count(*) filter (
            where host_crawls.is_low_coverage and host_crawls.hq_density > 0
        ) as low_coverage_with_hq_host_count,
        sum(host_crawls.est_uncrawled_hq) filter (
            where host_crawls.is_low_coverage and host_crawls.hq_density > 0
        ) as low_coverage_with_hq_est_uncrawled_hq

    from host_crawls
    group by all
),

-- Annotated hosts the host index does not know: no coverage, so outside every figure.
unindexed_annotated_hosts as (
    select
        host_crawl_annotations.crawl,
        count(*) as annotated_hosts_missing_from_host_index

    from host_crawl_annotations
    anti join host_crawls
        on
            host_crawl_annotations.crawl = host_crawls.crawl
            and host_crawl_annotations.surt_host_name = host_crawls.surt_host_name
    group by all
),

low_coverage_shares as (
    select
        crawl_totals.crawl,
        coalesce(crawl_totals.low_coverage_est_uncrawled_hq, 0)
        / nullif(crawl_totals.total_est_uncrawled_hq, 0) as low_coverage_hq_share,
        coalesce(crawl_totals.low_coverage_est_uncrawled_hq_squares, 0)
            as low_coverage_squares
    from crawl_totals
),

uncrawled_hq_summary as (
    select
        ---------- ids
        crawl_totals.crawl,

        ---------- numerics
        crawl_totals.analysed_host_count,
        coalesce(crawl_totals.total_est_uncrawled_hq, 0) as total_est_uncrawled_hq,
        {{ normal_interval(
            'coalesce(crawl_totals.total_est_uncrawled_hq, 0)',
            'crawl_totals.est_uncrawled_hq_squares',
            'total_est_uncrawled_hq',
            '0.0'
        ) }},
        crawl_totals.coverage_median,
        crawl_totals.hq_density_top_cutoff,
        crawl_totals.low_coverage_host_count,
        low_coverage_shares.low_coverage_hq_share,
        -- the share L / T moves by psi_h = (x_h [low] - share x_h) / T
        {{ normal_interval(
            'low_coverage_shares.low_coverage_hq_share',
            '(power(1 - low_coverage_shares.low_coverage_hq_share, 2)'
            ~ ' * low_coverage_shares.low_coverage_squares'
            ~ ' + power(low_coverage_shares.low_coverage_hq_share, 2)'
            ~ ' * (crawl_totals.est_uncrawled_hq_squares'
            ~ ' - low_coverage_shares.low_coverage_squares))'
            ~ ' / power(crawl_totals.total_est_uncrawled_hq, 2)',
            'low_coverage_hq_share',
            '0.0',
            '1.0'
        ) }},
        crawl_totals.below_median_coverage_host_count,
        coalesce(crawl_totals.below_median_coverage_est_uncrawled_hq, 0)
        / nullif(crawl_totals.total_est_uncrawled_hq, 0)
            as below_median_coverage_hq_share,
        crawl_totals.hidden_gem_count,
        crawl_totals.hidden_gem_count
        / nullif(crawl_totals.analysed_host_count, 0) as hidden_gem_host_share,
        coalesce(crawl_totals.hidden_gem_est_uncrawled_hq, 0)
        / nullif(crawl_totals.total_est_uncrawled_hq, 0) as hidden_gem_hq_share,
        crawl_totals.low_coverage_with_hq_host_count,
        coalesce(crawl_totals.low_coverage_with_hq_est_uncrawled_hq, 0)
        / nullif(crawl_totals.total_est_uncrawled_hq, 0)
            as low_coverage_with_hq_hq_share,
        coalesce(unindexed_annotated_hosts.annotated_hosts_missing_from_host_index, 0)
            as annotated_hosts_missing_from_host_index

    from crawl_totals
    left join unindexed_annotated_hosts
        on crawl_totals.crawl = unindexed_annotated_hosts.crawl
    inner join low_coverage_shares
        on crawl_totals.crawl = low_coverage_shares.crawl
)

select * from uncrawled_hq_summary
