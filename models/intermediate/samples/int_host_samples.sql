{#- `| int`: the linter renders var() as the var's name -#}
{%- set seeds = range(1, (var('sample_seeds') | int) + 1) %}

-- Per RQ3 signal × sample seed × host (docs/definitions.md A5, A6): which of the first
-- sampled pages are HQ, as a bit mask, and the mean score of sample_then_deepen's
-- sample (macro host_samples). A host's sample for seed s is its pages in order of
-- md5(doc_id || ':' || s) as a number (docs/definitions.md §4.0): here the classified
-- sample's documents, with the full crawl's rows (int_fullcrawl_host_samples).

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

partly_scored_hosts as (
    select * from {{ ref('int_partly_scored_hosts') }}
),

-- The classified sample's documents with their place in their host's sample for each
-- seed (position 1 is sampled first): one md5 per document and seed, whatever the
-- classifiers, computed before the windows sort by them (int_fullcrawl_host_samples).
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

documents_positioned as (
    select
        {{ sample_positions('documents_keyed') }}
        documents_keyed.host_id,
        documents_keyed.doc_id
    from documents_keyed
),

-- Each classifier's scores of those documents. Read twice below: joining again is
-- cheaper than holding it.
classified_pages as {{ not_materialized() }} (
    select
        dataset_signals.dataset_id,
        dataset_signals.classifier_id,
        {%- for seed in seeds %}
            documents_positioned.sample_position_{{ seed }},
        {%- endfor %}
        documents_positioned.host_id,
        document_scores.score,
        document_scores.score > dataset_signals.hq_threshold as is_hq
    from document_scores
    inner join dataset_signals
        on
            dataset_signals.dataset_id = 1
            and document_scores.classifier = dataset_signals.classifier
    inner join documents_positioned
        on document_scores.doc_id = documents_positioned.doc_id
),

-- A host a classifier scored only in part samples among the pages it scored: their
-- positions renumbered in the same order.
classified_pages_positioned as (
    select classified_pages.*
    from classified_pages
    anti join partly_scored_hosts
        on
            classified_pages.dataset_id = partly_scored_hosts.dataset_id
            and classified_pages.classifier_id = partly_scored_hosts.classifier_id
            and classified_pages.host_id = partly_scored_hosts.host_id
    union all
    select
        classified_pages.dataset_id,
        classified_pages.classifier_id,
        {%- for seed in seeds %}
            row_number() over (
                partition by classified_pages.classifier_id, classified_pages.host_id
                order by classified_pages.sample_position_{{ seed }}
            )::integer as sample_position_{{ seed }},
        {%- endfor %}
        classified_pages.host_id,
        classified_pages.score,
        classified_pages.is_hq
    from classified_pages
    semi join partly_scored_hosts
        on
            classified_pages.dataset_id = partly_scored_hosts.dataset_id
            and classified_pages.classifier_id = partly_scored_hosts.classifier_id
            and classified_pages.host_id = partly_scored_hosts.host_id
),

fullcrawl_host_samples as (
    select * from {{ ref('int_fullcrawl_host_samples') }}
),

classified_host_samples as {{ host_samples('classified_pages_positioned') }},

host_samples as (
    select * from classified_host_samples
    union all
    select * from fullcrawl_host_samples
)

select * from host_samples
