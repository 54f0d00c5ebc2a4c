with

host_annotations as (
    select * from {{ source('annotations', 'host_annotations') }}
),

annotation_manifest as (
    select * from {{ source('annotations', 'annotation_manifest') }}
),

-- The part files the manifest commits (macros/lake_part_key.sql): a part counts by
-- its path, key and partition, not by its key alone.
committed_parts as (
    select * from {{ committed_parts('annotation_manifest', ['host_annotations']) }}
),

committed_host_annotations as (
    select
        ---------- ids
        -- from the part's lake-relative path: a crawl= folder above the lake
        -- (in $HOSTAWARE_HOME) would be read by hive partitioning instead
        {{ lake_part_partition('host_annotations.filename') }} as crawl,
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
    inner join committed_parts
        on {{ lake_part_path('host_annotations.filename') }} = committed_parts.part_path
)

select * from committed_host_annotations
