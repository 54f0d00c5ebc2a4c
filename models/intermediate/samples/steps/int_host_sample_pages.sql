{#- `| int`: the linter renders var() as the var's name -#}
{%- set seeds = range(1, (var('sample_seeds') | int) + 1) %}

-- Every page of each RQ3 signal (docs/definitions.md A5) with its positions in its
-- host's sample for every seed (int_dataset_pages_sampled), its score and HQ flag. A
-- host a classifier scored only in part (int_partly_scored_hosts) samples among the
-- pages it scored: its pages come again with their positions renumbered.

with

-- read twice (every page, the pages of incompletely scored hosts): a table scan is
-- cheaper than holding it in memory
pages_sampled as {{ not_materialized() }} (
    select * from {{ ref('int_dataset_pages_sampled') }}
),

document_scores as (
    select * from {{ ref('stg_crawl__document_scores') }}
),

pages_flagged as (
    select * from {{ ref('int_page_annotations_flagged') }}
),

dataset_signals as (
    select * from {{ ref('int_dataset_signals') }}
),

partly_scored_hosts as (
    select * from {{ ref('int_partly_scored_hosts') }}
),

-- Each signal's scores: the classifiers' of the sample's documents, the annotations' of
-- the full crawl's pages (their profile's flag, and score where it has one). Read twice
-- below; reading the files again is cheaper.
signal_scores as {{ not_materialized() }} (
    select
        dataset_signals.dataset_id,
        dataset_signals.classifier_id,
        document_scores.doc_id,
        document_scores.score,
        document_scores.score > dataset_signals.hq_threshold as is_hq
    from document_scores
    inner join dataset_signals
        on
            dataset_signals.dataset_id = 1
            and document_scores.classifier = dataset_signals.classifier
    union all
    select
        dataset_signals.dataset_id,
        dataset_signals.classifier_id,
        pages_flagged.page_key as doc_id,
        pages_flagged.signal_score as score,
        pages_flagged.is_hq
    from pages_flagged
    inner join dataset_signals
        on
            dataset_signals.dataset_id = 2
            and pages_flagged.annotation_profile = dataset_signals.classifier
    where pages_flagged.crawl = '{{ var("fullcrawl_crawl") }}'
),

signal_pages as (
    select
        signal_scores.dataset_id,
        signal_scores.classifier_id,
        pages_sampled.host_id,
        pages_sampled.sample_positions,
        signal_scores.score,
        signal_scores.is_hq
    from signal_scores
    inner join pages_sampled
        on
            signal_scores.dataset_id = pages_sampled.dataset_id
            and signal_scores.doc_id = pages_sampled.doc_id
),

partly_scored_host_pages as (
    select pages_sampled.*
    from pages_sampled
    semi join partly_scored_hosts
        on
            pages_sampled.dataset_id = partly_scored_hosts.dataset_id
            and pages_sampled.host_id = partly_scored_hosts.host_id
),

signal_pages_renumbered as (
    select
        signal_scores.dataset_id,
        signal_scores.classifier_id,
        partly_scored_host_pages.host_id,
        signal_scores.score,
        signal_scores.is_hq,
        {% call list_of() %}
        {%- for seed in seeds %}
                row_number() over (
                    partition by
                        signal_scores.dataset_id,
                        signal_scores.classifier_id,
                        partly_scored_host_pages.host_id
                    order by {{ list_element('partly_scored_host_pages.sample_positions', seed) }}
                )::integer{{ ',' if not loop.last }}
        {%- endfor %}
        {% endcall %} as sample_positions
    from signal_scores
    inner join partly_scored_host_pages
        on
            signal_scores.dataset_id = partly_scored_host_pages.dataset_id
            and signal_scores.doc_id = partly_scored_host_pages.doc_id
    semi join partly_scored_hosts
        on
            signal_scores.dataset_id = partly_scored_hosts.dataset_id
            and signal_scores.classifier_id = partly_scored_hosts.classifier_id
            and partly_scored_host_pages.host_id = partly_scored_hosts.host_id
),

signal_pages_positioned as (
    select
        signal_pages.*,
        false as is_renumbered
    from signal_pages
    union all
    select
        signal_pages_renumbered.dataset_id,
        signal_pages_renumbered.classifier_id,
        signal_pages_renumbered.host_id,
        signal_pages_renumbered.sample_positions,
        signal_pages_renumbered.score,
        signal_pages_renumbered.is_hq,
        true as is_renumbered
    from signal_pages_renumbered
)

select * from signal_pages_positioned
