with

host_annotations as (
    select * from {{ source('annotations', 'host_annotations') }}
),

annotation_manifest as (
    select * from {{ source('annotations', 'annotation_manifest') }}
),

committed_host_annotations as (
    select
        ---------- ids
        host_annotations.crawl,
        host_annotations.surt_host_name,

        ---------- strings
        host_annotations.annotation_profile,

        ---------- numerics
        host_annotations.medical_score,
        host_annotations.education_score,
        host_annotations.technology_score,
        host_annotations.science_score,

        ---------- booleans
        host_annotations.in_gneissweb as is_in_gneissweb

    from host_annotations
    inner join annotation_manifest
        on
            {{ lake_part_key('host_annotations.filename') }}
            = {{ manifest_key('annotation_manifest') }}
            and annotation_manifest.lake_table = 'host_annotations'
)

select * from committed_host_annotations
