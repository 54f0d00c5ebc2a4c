-- Per RQ3 signal × sample seed × host (docs/definitions.md A5, A6): which of the first
-- sampled pages are HQ, as a bit mask, and the mean score of sample_then_deepen's
-- sample (macro host_samples). A host's sample for seed s is its pages in order of
-- md5(doc_id || ':' || s) as a number (docs/definitions.md §4.0), among the pages the
-- signal scored: here the classified sample's documents, with the full crawl's rows
-- (int_fullcrawl_host_samples).

with

documents as (
    select * from {{ ref('stg_crawl__documents') }}
),

document_scores as (
    select * from {{ ref('stg_crawl__document_scores') }}
),

dataset_hosts as (
    select * from {{ ref('int_dataset_hosts') }}
),

dataset_signals as (
    select * from {{ ref('int_dataset_signals') }}
),

-- The classified sample's documents with their sample keys: one md5 per document and
-- seed, whatever the classifiers.
documents_keyed as (
    select
        {{ sample_keys('documents.doc_id') }}
        dataset_hosts.host_id,
        documents.doc_id
    from documents
    inner join dataset_hosts
        on
            dataset_hosts.dataset_id = 1
            and documents.surt_host_name = dataset_hosts.surt_host_name
),

-- Each classifier's scores of those documents, with their keys: a classifier that
-- scored only some of a host's pages samples among those. Held: host_samples reads it
-- once per seed and twice more, and the classified sample is small (15M rows for 2.5M
-- documents and 6 classifiers: 13 s held, 49 s joined again each time).
classified_pages as {{ materialized() }} (
    select
        dataset_signals.dataset_id,
        dataset_signals.classifier_id,
        documents_keyed.host_id,
        {%- for seed in range(1, (var('sample_seeds') | int) + 1) %}
            documents_keyed.sample_key_{{ seed }},
        {%- endfor %}
        document_scores.score,
        document_scores.score > dataset_signals.hq_threshold as is_hq
    from document_scores
    inner join dataset_signals
        on
            dataset_signals.dataset_id = 1
            and document_scores.classifier = dataset_signals.classifier
    inner join documents_keyed
        on document_scores.doc_id = documents_keyed.doc_id
),

fullcrawl_host_samples as (
    select * from {{ ref('int_fullcrawl_host_samples') }}
),

classified_host_samples as {{ host_samples('classified_pages') }},

host_samples as (
    select * from classified_host_samples
    union all
    select * from fullcrawl_host_samples
)

select * from host_samples
