with

pages_flagged as (
    select * from {{ ref('int_page_annotations_flagged') }}
    where {{ in_updated_partitions('crawl') }}
),

host_annotations as (
    select * from {{ ref('stg_annotations__hosts') }}
    where {{ in_updated_partitions('crawl') }}
),

-- docs/definitions.md A7 (RQ4 coverage vs quality): a host's HQ density in a crawl is
-- the share of its annotated pages that are high quality (each page under its profile's
-- rule).
page_level as (
    select
        pages_flagged.crawl,
        pages_flagged.surt_host_name,
        'page' as annotation_level,
        count(*) as annotated_page_count,
        count(*) filter (where pages_flagged.is_hq) as hq_page_count
    from pages_flagged
    group by all
),

crawls_with_pages as (
    select distinct page_level.crawl
    from page_level
),

-- A crawl with host-level annotations only: the host's flag stands for its density (1
-- for a host with pages in GneissWeb, else 0); there are no page counts.
host_level as (
    select
        host_annotations.crawl,
        host_annotations.surt_host_name,
        'host' as annotation_level,
        null::bigint as annotated_page_count,
        null::bigint as hq_page_count,
        case when host_annotations.is_in_gneissweb then 1.0 else 0.0 end as hq_density
    from host_annotations
    anti join crawls_with_pages
        on host_annotations.crawl = crawls_with_pages.crawl
),

host_crawl_annotations as (
    select
        page_level.crawl,
        page_level.surt_host_name,
        page_level.annotation_level,
        page_level.annotated_page_count,
        page_level.hq_page_count,
        page_level.hq_page_count / page_level.annotated_page_count as hq_density
    from page_level
    union all
    select
        host_level.crawl,
        host_level.surt_host_name,
        host_level.annotation_level,
        host_level.annotated_page_count,
        host_level.hq_page_count,
        host_level.hq_density
    from host_level
)

select * from host_crawl_annotations
