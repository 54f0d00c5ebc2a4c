{{ config(materialized='table') }}

{#- `| int`: the linter renders var() as the var's name -#}
{%- set seeds = range(1, (var('sample_seeds') | int) + 1) %}
{#- the sampled positions whose HQ flags are kept: every k of SPEC A5 and A6 -#}
{%- set mask_positions = [var('sample_size_max') | int, var('depth_sample_size') | int]
    | max %}
{%- if mask_positions > 62 %}
    {{ exceptions.raise_compiler_error(
        "sample_size_max and depth_sample_size must be at most 62 (a 64-bit mask of positions)"
    ) }}
{%- endif %}

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

host_classifier_stats as (
    select * from {{ ref('int_host_classifier_stats') }}
),

hosts_profiled as (
    select * from {{ ref('int_hosts_profiled') }}
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

-- A classifier that scored only some of a host's pages samples among those: there the
-- positions are renumbered (rare: the ingest scores every page with every classifier;
-- the full crawl's pages are those with a score, so its hosts are always complete).
partly_scored_hosts as (
    select
        1 as dataset_id,
        host_classifier_stats.classifier_id,
        hosts_profiled.host_id
    from host_classifier_stats
    inner join hosts_profiled
        on host_classifier_stats.surt_host_name = hosts_profiled.surt_host_name
    where host_classifier_stats.doc_count < hosts_profiled.doc_count
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
),

-- Per host, for each seed: which of its first sampled pages are high quality (bit j - 1
-- of the mask for the j-th page), and the mean score of sample_then_deepen's sample,
-- summed as decimals (15 places): exact, so that equal means tie whatever order threads
-- add them in (the md5 of the host then decides).
hosts_sampled_by_seed as (
    select
        signal_pages_positioned.dataset_id,
        signal_pages_positioned.classifier_id,
        signal_pages_positioned.host_id,
        signal_pages_positioned.is_renumbered,
        count(*) as page_count,
        count(*) filter (where signal_pages_positioned.is_hq) as hq_page_count,
        {% call list_of() %}
        {%- for seed in seeds %}
                {%- set position = list_element(
                    'signal_pages_positioned.sample_positions', seed
                ) %}
                coalesce(
                    -- a case, not a filter: the shift must not see the later positions
                    bit_or(
                        case
                            when
                                signal_pages_positioned.is_hq
                                and {{ position }}
                                <= {{ mask_positions }}
                                then
                                    1::bigint << (
                                        {{ position }}
                                        - 1
                                    )
                        end
                    ),
                    0
                ){{ ',' if not loop.last }}
        {%- endfor %}
        {% endcall %} as hq_sample_masks,
        {% call list_of() %}
        {%- for seed in seeds %}
                {%- set position = list_element(
                    'signal_pages_positioned.sample_positions', seed
                ) %}
                avg(signal_pages_positioned.score::decimal(38, 15)) filter (
                    where
                    {{ position }}
                    <= {{ var('depth_sample_size') }}
                )::double{{ ',' if not loop.last }}
        {%- endfor %}
        {% endcall %} as depth_sample_score_means

    from signal_pages_positioned
    group by all
),

-- A partly scored host's first aggregate (positions among all its pages) gives
-- way to the renumbered one.
hosts_sampled_by_seed_kept as (
    select hosts_sampled_by_seed.*
    from hosts_sampled_by_seed
    where hosts_sampled_by_seed.is_renumbered
    union all
    select hosts_sampled_by_seed.*
    from hosts_sampled_by_seed
    anti join partly_scored_hosts
        on
            hosts_sampled_by_seed.dataset_id = partly_scored_hosts.dataset_id
            and hosts_sampled_by_seed.classifier_id = partly_scored_hosts.classifier_id
            and hosts_sampled_by_seed.host_id = partly_scored_hosts.host_id
    where not hosts_sampled_by_seed.is_renumbered
),

host_samples as (
    select
        ---------- ids
        hosts_sampled_by_seed_kept.dataset_id,
        hosts_sampled_by_seed_kept.classifier_id,
        hosts_sampled_by_seed_kept.host_id,

        ---------- numerics
        hosts_sampled_by_seed_kept.page_count,
        hosts_sampled_by_seed_kept.hq_page_count,
        -- sample_seed, then each seed's mask and sample mean
        {{ unnest_lists({
            'sample_seed': list_literal(seeds),
            'hq_sample_mask': 'hosts_sampled_by_seed_kept.hq_sample_masks',
            'depth_sample_score_mean':
                'hosts_sampled_by_seed_kept.depth_sample_score_means',
        }) }}

    from hosts_sampled_by_seed_kept
)

select * from host_samples
