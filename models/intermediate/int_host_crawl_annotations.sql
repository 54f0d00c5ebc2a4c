{{ config(materialized='table') }}

with

page_annotations as (
    select * from {{ ref('stg_gneissweb__page_annotations') }}
),

-- SPEC A7: a page counts when GneissWeb scored it, and is high quality above the
-- threshold (SPEC §5 #12: the quality score, not `in_gneissweb`).
host_crawl_annotations as (
    select
        ---------- ids
        page_annotations.crawl,
        page_annotations.surt_host_name,

        ---------- numerics
        count(*) as annotated_page_count,
        count(*) filter (
            where page_annotations.gneissweb_quality_score
            > {{ var('hq_threshold_default') }}
        ) as hq_page_count

    from page_annotations
    where page_annotations.gneissweb_quality_score is not null
    group by all
)

select * from host_crawl_annotations
