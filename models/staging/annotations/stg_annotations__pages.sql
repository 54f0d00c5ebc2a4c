with

page_annotations as (
    select * from {{ source('annotations', 'page_annotations') }}
),

annotation_manifest as (
    select * from {{ source('annotations', 'annotation_manifest') }}
),

-- The part files the manifest commits (macros/lake_part_key.sql): a part counts by
-- its path, key and partition, not by its key alone.
committed_parts as (
    select * from {{ committed_parts('annotation_manifest', ['page_annotations']) }}
),

committed_page_annotations as (
    select
        ---------- ids
        -- from the part's lake-relative path: a crawl= folder above the lake
        -- (in $HOSTAWARE_HOME) would be read by hive partitioning instead
        {{ lake_part_partition('page_annotations.filename') }} as crawl,
        page_annotations.page_key,
        page_annotations.doc_id,
        page_annotations.surt_host_name,

        ---------- strings
        page_annotations.annotation_profile,
        page_annotations.url,
        page_annotations.url_surtkey,
        page_annotations.language,

        ---------- numerics
        page_annotations.language_score,
        page_annotations.quality_score,
        page_annotations.quality_int_score,
        page_annotations.medical_score,
        page_annotations.education_score,
        page_annotations.technology_score,
        page_annotations.science_score,

        ---------- booleans
        page_annotations.in_gneissweb as is_in_gneissweb,

        ---------- timestamps
        page_annotations.fetch_time as fetched_at

    from page_annotations
    inner join committed_parts
        on {{ lake_part_path('page_annotations.filename') }} = committed_parts.part_path
)

select * from committed_page_annotations
