with

document_scores as (
    select * from {{ source('crawl', 'document_scores') }}
),

document_manifest as (
    select * from {{ source('crawl', 'document_manifest') }}
),

-- The part files the manifest commits (macros/lake_part_key.sql): a part counts by
-- its path, key and partition, not by its key alone.
committed_parts as (
    select *
    from {{ committed_parts('document_manifest', ['documents', 'document_scores']) }}
),

-- A score part is committed by the manifest row of the input that wrote it: a
-- WARC/WET file (fastText scores, beside its documents) or a score file (precomputed).
committed_scores as (
    select
        document_scores.doc_id,
        document_scores.classifier,
        -- from the part's lake-relative path: a crawl= folder above the lake
        -- (in $HOSTAWARE_HOME) would be read by hive partitioning instead
        {{ lake_part_partition('document_scores.filename') }} as crawl,
        document_scores.score

    from document_scores
    inner join committed_parts
        on {{ lake_part_path('document_scores.filename') }} = committed_parts.part_path
)

select * from committed_scores
