-- Each classifier's page scores ranked once, over all the pages it scored (mid-ranks),
-- for the page-level agreement of classifiers (docs/definitions.md A3c). For a pair of
-- classifiers that scored the same pages (the usual case: every page goes through every
-- classifier) these are the ranks the pair's Spearman needs.

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

-- An integer key per page for this query's joins: matching 19M scores on a
-- 47-character record id costs several times more. Any numbering will do (it never
-- leaves the query).
documents_numbered as (
    select
        documents.doc_id,
        (row_number() over (order by documents.doc_id))::integer as doc_key
    from documents
),

scores_numbered as (
    select
        documents_numbered.doc_key,
        classifiers.classifier_id,
        document_scores.score

    from document_scores
    inner join documents_numbered
        on document_scores.doc_id = documents_numbered.doc_id
    inner join classifiers
        on document_scores.classifier = classifiers.classifier
),

scores_ranked as (
    select
        scores_numbered.*,
        {{ mid_rank('scores_numbered.score', 'classifier_id') }} as score_rank,
        count(*) over (partition by scores_numbered.classifier_id)
            as classifier_doc_count

    from scores_numbered
)

select * from scores_ranked
