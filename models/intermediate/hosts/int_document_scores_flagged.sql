with

document_scores as (
    select * from {{ ref('stg_crawl__document_scores') }}
),

documents as (
    select * from {{ ref('stg_crawl__documents') }}
),

classifiers as (
    select * from {{ ref('int_classifiers') }}
),

document_scores_flagged as (
    select
        ---------- ids
        document_scores.doc_id,
        documents.surt_host_name,
        document_scores.classifier,
        classifiers.classifier_id,

        ---------- strings
        documents.language,

        ---------- numerics
        document_scores.score,

        ---------- booleans
        document_scores.score > classifiers.hq_threshold as is_hq

    from document_scores
    inner join documents
        on document_scores.doc_id = documents.doc_id
    inner join classifiers
        on document_scores.classifier = classifiers.classifier
)

select * from document_scores_flagged
