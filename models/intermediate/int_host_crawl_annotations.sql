{{ config(materialized='table') }}

{#- SPEC §5 #12: what makes an annotated page high quality -#}
{%- if var('rq4_hq_annotation') == 'in_gneissweb' %}
    {%- set annotation = 'page_annotations.is_in_gneissweb' %}
    {%- set is_hq = 'page_annotations.is_in_gneissweb' %}
{%- else %}
    {%- set annotation = 'page_annotations.gneissweb_quality_score' %}
    {%- set is_hq = 'page_annotations.gneissweb_quality_score > '
        ~ var('hq_threshold_default') %}
{%- endif %}

with

page_annotations as (
    select * from {{ ref('stg_gneissweb__page_annotations') }}
),

-- SPEC A7: a page counts when GneissWeb annotated it, and is high quality when its
-- quality score is above the threshold (or, with `rq4_hq_annotation: in_gneissweb`,
-- when GneissWeb kept it).
host_crawl_annotations as (
    select
        ---------- ids
        page_annotations.crawl,
        page_annotations.surt_host_name,

        ---------- numerics
        count(*) as annotated_page_count,
        count(*) filter (where {{ is_hq }}) as hq_page_count

    from page_annotations
    where {{ annotation }} is not null
    group by all
)

select * from host_crawl_annotations
