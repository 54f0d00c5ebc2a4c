with

page_annotations as (
    select * from {{ source('annotations', 'page_annotations') }}
),

annotation_manifest as (
    select * from {{ source('annotations', 'annotation_manifest') }}
),

committed_page_annotations as (
    select
        ---------- ids
        page_annotations.crawl,
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
    inner join annotation_manifest
        on
            {{ lake_part_key('page_annotations.filename') }}
            = {{ manifest_key('annotation_manifest') }}
            and annotation_manifest.lake_table = 'page_annotations'
)

select * from committed_page_annotations
