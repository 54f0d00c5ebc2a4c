with

document_scores as (
    select * from {{ source('crawl', 'document_scores') }}
),

document_manifest as (
    select * from {{ source('crawl', 'document_manifest') }}
),

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
)

select * from committed_scores
