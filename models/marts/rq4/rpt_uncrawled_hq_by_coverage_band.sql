with

host_crawls as (
    select * from {{ ref('fct_host_crawls') }}
    where {{ in_updated_partitions('crawl') }}
),

-- Bands of a tenth of coverage; a host crawled completely belongs to the top band.
host_crawls_banded as (
    select
        host_crawls.crawl,
        least(floor(host_crawls.coverage_rate * 10), 9)::integer as band,
        host_crawls.est_uncrawled_hq

    from host_crawls
    where host_crawls.is_analysed
),

band_totals as (
    select
        host_crawls_banded.crawl,
        host_crawls_banded.band,
        count(*) as host_count,
        sum(host_crawls_banded.est_uncrawled_hq) as est_uncrawled_hq

    from host_crawls_banded
    group by all
),

-- docs/definitions.md §2.2 (Headline numbers; the paper's Fig. 7): where the estimated
-- uncrawled HQ pages sit by coverage; the paper finds half of them on hosts crawled
-- below 20%.
uncrawled_hq_by_coverage_band as (
    select
        ---------- ids
        band_totals.crawl,
        band_totals.band / 10 as coverage_band_lower,

        ---------- numerics
        (band_totals.band + 1) / 10 as coverage_band_upper,
        band_totals.host_count,
        band_totals.est_uncrawled_hq,
        band_totals.est_uncrawled_hq
        / nullif(sum(band_totals.est_uncrawled_hq) over crawl_bands, 0) as hq_share

    from band_totals
    window crawl_bands as (partition by band_totals.crawl)
)

select * from uncrawled_hq_by_coverage_band
