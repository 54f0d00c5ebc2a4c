{#- docs/definitions.md §5 (Open choices) #13: the host index's "fetched" count -#}
{%- set fetched = 'host_crawls.' ~ var('rq4_fetched_count') %}

with

host_crawls as (
    select * from {{ ref('stg_host_index__host_crawls') }}
    where {{ in_updated_partitions('crawl') }}
),

host_crawl_annotations as (
    select * from {{ ref('int_host_crawl_annotations') }}
    where {{ in_updated_partitions('crawl') }}
),

-- docs/definitions.md A7 (RQ4 coverage vs quality): coverage from the crawler's own log
-- (known = nutch_numRecords, fetched = nutch_fetched), quality from the annotations of
-- the same crawl (page level, else the host-level flag). More fetched than known is
-- impossible (numRecords sums the HostDb's statuses): the ingest nulls such a pair with
-- a counted reason; the cap at 1 only bounds a lake written by other means.
host_crawls_annotated as (
    select
        host_crawls.crawl,
        host_crawls.surt_host_name,
        host_crawls.url_host_tld,
        host_crawls.url_host_registered_domain,
        host_crawls.url_host_registry_suffix,
        host_crawls.hc_val,
        host_crawls.known_url_count,
        {{ fetched }} as fetched_url_count,
        -- least() and greatest() skip nulls: unknown counts need their own case
        case
            when
                host_crawls.known_url_count > 0
                and {{ fetched }} is not null
                then
                    least(
                        {{ fetched }} / host_crawls.known_url_count, 1
                    )
        end as coverage_rate,
        case
            when
                host_crawls.known_url_count is not null
                and {{ fetched }} is not null
                then
                    greatest(
                        host_crawls.known_url_count - {{ fetched }}, 0
                    )
        end as uncrawled_url_count,
        host_crawl_annotations.annotation_level,
        -- host-level annotations have no page counts: null, not 0
        case
            when host_crawl_annotations.annotation_level = 'host' then null
            else coalesce(host_crawl_annotations.annotated_page_count, 0)
        end as annotated_page_count,
        case
            when host_crawl_annotations.annotation_level = 'host' then null
            else coalesce(host_crawl_annotations.hq_page_count, 0)
        end as hq_page_count,
        host_crawl_annotations.hq_density,
        coalesce(
            host_crawls.known_url_count > 0
            and {{ fetched }} is not null
            and (
                host_crawl_annotations.annotation_level = 'host'
                or host_crawl_annotations.annotated_page_count
                >= {{ var('rq4_min_annotated_pages') }}
            ),
            false
        ) as is_analysed

    from host_crawls
    left join host_crawl_annotations
        on
            host_crawls.crawl = host_crawl_annotations.crawl
            and host_crawls.surt_host_name = host_crawl_annotations.surt_host_name
),

-- The median coverage and the top-decile density, over each crawl's analysed hosts.
crawl_cutoffs as (
    select
        host_crawls_annotated.crawl,
        median(host_crawls_annotated.coverage_rate) as coverage_median,
        {{ quantile_cont(
            'host_crawls_annotated.hq_density', var('top_quality_quantile')
        ) }} as hq_density_top_cutoff

    from host_crawls_annotated
    where host_crawls_annotated.is_analysed
    group by all
),

host_crawls_flagged as (
    select
        ---------- ids
        host_crawls_annotated.crawl,
        host_crawls_annotated.surt_host_name,

        ---------- strings
        host_crawls_annotated.url_host_tld,
        host_crawls_annotated.url_host_registered_domain,
        host_crawls_annotated.url_host_registry_suffix,
        host_crawls_annotated.annotation_level,

        ---------- numerics
        host_crawls_annotated.hc_val,
        host_crawls_annotated.known_url_count,
        host_crawls_annotated.fetched_url_count,
        host_crawls_annotated.coverage_rate,
        host_crawls_annotated.uncrawled_url_count,
        host_crawls_annotated.annotated_page_count,
        host_crawls_annotated.hq_page_count,
        host_crawls_annotated.hq_density,
        -- unfetched pages as dense in HQ as fetched ones (docs/definitions.md §3.4)
        case
            when host_crawls_annotated.is_analysed
                then
                    host_crawls_annotated.uncrawled_url_count
                    * host_crawls_annotated.hq_density
        end as est_uncrawled_hq,

        ---------- booleans
        host_crawls_annotated.is_analysed,
        case
            when host_crawls_annotated.is_analysed
                then
                    host_crawls_annotated.coverage_rate
                    < {{ var('low_coverage_threshold') }}
        end as is_low_coverage,
        case
            when host_crawls_annotated.is_analysed
                then host_crawls_annotated.coverage_rate < crawl_cutoffs.coverage_median
        end as is_below_median_coverage,
        case
            when host_crawls_annotated.is_analysed
                then
                    host_crawls_annotated.hq_density
                    >= crawl_cutoffs.hq_density_top_cutoff
        end as is_top_decile_quality,
        case
            when host_crawls_annotated.is_analysed
                then
                    host_crawls_annotated.coverage_rate < crawl_cutoffs.coverage_median
                    and host_crawls_annotated.hq_density
                    >= crawl_cutoffs.hq_density_top_cutoff
        end as is_hidden_gem

    from host_crawls_annotated
    left join crawl_cutoffs
        on host_crawls_annotated.crawl = crawl_cutoffs.crawl
)

select * from host_crawls_flagged
