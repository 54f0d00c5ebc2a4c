with

document_scores as (
    select * from {{ ref('stg_crawl__document_scores') }}
),

documents as (
    select * from {{ ref('stg_crawl__documents') }}
),

classifier_registry as (
    select * from {{ ref('classifier_registry') }}
),

document_scores_flagged as (
    select
        ---------- ids
        document_scores.doc_id,
        documents.surt_host_name,
        document_scores.classifier,

        ---------- strings
        documents.language,

        ---------- numerics
        document_scores.score,

        ---------- booleans
        document_scores.score > coalesce(
            classifier_registry.hq_threshold, {{ var('hq_threshold_default') }}
        ) as is_hq

    from document_scores
    inner join documents
        on document_scores.doc_id = documents.doc_id
    inner join classifier_registry
        on document_scores.classifier = classifier_registry.classifier
)

select * from document_scores_flagged
