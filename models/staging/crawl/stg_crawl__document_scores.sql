with

document_scores as (
    select * from {{ source('crawl', 'document_scores') }}
),

document_manifest as (
    select * from {{ source('crawl', 'document_manifest') }}
),

-- A score part is committed by the manifest row of the input that wrote it: a
-- WARC/WET file (fastText scores, beside its documents) or a score file (precomputed).
committed_scores as (
    select
        document_scores.doc_id,
        document_scores.classifier,
        document_scores.crawl,
        document_scores.score

    from document_scores
    inner join document_manifest
        on
            {{ lake_part_key('document_scores.filename') }}
            = {{ manifest_key('document_manifest') }}
            and document_manifest.lake_table in ('documents', 'document_scores')
)

select * from committed_scores
