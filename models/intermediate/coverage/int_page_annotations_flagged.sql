with

page_annotations as (
    select * from {{ ref('stg_annotations__pages') }}
),

annotation_profiles as (
    select * from {{ ref('annotation_profiles') }}
),

-- The page-level profile RQ3's full crawl and RQ4 read: `annotation_profile`, or every
-- one in the lake when null (a crawl annotated under two is refused by a data test).
profile_pages as (
    select
        page_annotations.*,
        annotation_profiles.hq_rule,
        annotation_profiles.hq_threshold
    from page_annotations
    inner join annotation_profiles
        on page_annotations.annotation_profile = annotation_profiles.annotation_profile
    {%- if var('annotation_profile') is not none %}
        where page_annotations.annotation_profile = '{{ var("annotation_profile") }}'
    {%- endif %}
),

-- Each profile's own rule (seed `annotation_profiles`): GneissWeb membership, a quality
-- score above the threshold, or an int_score at least the threshold.
pages_flagged as (
    select
        ---------- ids
        profile_pages.crawl,
        profile_pages.page_key,
        profile_pages.surt_host_name,

        ---------- strings
        profile_pages.annotation_profile,

        ---------- numerics
        profile_pages.quality_score,

        ---------- booleans
        case profile_pages.hq_rule
            when 'in_gneissweb' then profile_pages.is_in_gneissweb
            when 'quality_score_above'
                then profile_pages.quality_score > profile_pages.hq_threshold
            when 'int_score_at_least'
                then profile_pages.quality_int_score >= profile_pages.hq_threshold
        end as is_hq

    from profile_pages
),

pages_with_signal as (
    select
        pages_flagged.*,
        -- what RQ3 averages as a page's score: the quality score, else the flag as 0/1
        coalesce(
            pages_flagged.quality_score,
            case when pages_flagged.is_hq then 1.0 else 0.0 end
        ) as signal_score
    from pages_flagged
    where pages_flagged.is_hq is not null
)

select * from pages_with_signal
