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

pages_sampled as (
    select * from {{ ref('int_dataset_pages_sampled') }}
),

document_scores as (
    select * from {{ ref('stg_crawl__document_scores') }}
),

page_annotations as (
    select * from {{ ref('stg_gneissweb__page_annotations') }}
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

-- Each signal's pages: its score and HQ flag, and the page's sampled positions. Read
-- twice below (hosts scored completely and not), rather than held in memory.
signal_pages as not materialized (
    select
        pages_sampled.dataset_id,
        dataset_signals.classifier_id,
        pages_sampled.host_id,
        pages_sampled.sample_positions,
        document_scores.score,
        document_scores.score > dataset_signals.hq_threshold as is_hq
    from document_scores
    inner join pages_sampled
        on
            pages_sampled.dataset_id = 1
            and document_scores.doc_id = pages_sampled.doc_id
    inner join dataset_signals
        on
            dataset_signals.dataset_id = 1
            and document_scores.classifier = dataset_signals.classifier
    union all
    select
        pages_sampled.dataset_id,
        dataset_signals.classifier_id,
        pages_sampled.host_id,
        pages_sampled.sample_positions,
        page_annotations.gneissweb_quality_score as score,
        page_annotations.gneissweb_quality_score > dataset_signals.hq_threshold as is_hq
    from page_annotations
    inner join pages_sampled
        on
            pages_sampled.dataset_id = 2
            and page_annotations.doc_id = pages_sampled.doc_id
    inner join dataset_signals
        on dataset_signals.dataset_id = 2
    where page_annotations.crawl = '{{ var("fullcrawl_crawl") }}'
),

-- A classifier that scored only some of a host's pages samples among those: there the
-- positions are renumbered (rare: the ingest scores every page with every classifier).
-- The full crawl's pages are those with a score, so its hosts are always complete.
incompletely_scored_hosts as (
    select
        1 as dataset_id,
        host_classifier_stats.classifier_id,
        hosts_profiled.host_id
    from host_classifier_stats
    inner join hosts_profiled
        on host_classifier_stats.surt_host_name = hosts_profiled.surt_host_name
    where host_classifier_stats.doc_count < hosts_profiled.doc_count
),

signal_pages_renumbered as (
    select
        signal_pages.dataset_id,
        signal_pages.classifier_id,
        signal_pages.host_id,
        signal_pages.score,
        signal_pages.is_hq,
        [
            {%- for seed in seeds %}
                row_number() over (
                    partition by
                        signal_pages.dataset_id,
                        signal_pages.classifier_id,
                        signal_pages.host_id
                    order by signal_pages.sample_positions[{{ seed }}]
                )::integer{{ ',' if not loop.last }}
            {%- endfor %}
        ] as sample_positions
    from signal_pages
    semi join incompletely_scored_hosts
        on
            signal_pages.dataset_id = incompletely_scored_hosts.dataset_id
            and signal_pages.classifier_id = incompletely_scored_hosts.classifier_id
            and signal_pages.host_id = incompletely_scored_hosts.host_id
),

signal_pages_positioned as (
    select
        signal_pages.dataset_id,
        signal_pages.classifier_id,
        signal_pages.host_id,
        signal_pages.score,
        signal_pages.is_hq,
        signal_pages.sample_positions
    from signal_pages
    anti join incompletely_scored_hosts
        on
            signal_pages.dataset_id = incompletely_scored_hosts.dataset_id
            and signal_pages.classifier_id = incompletely_scored_hosts.classifier_id
            and signal_pages.host_id = incompletely_scored_hosts.host_id
    union all
    select * from signal_pages_renumbered
),

-- Per host, for each seed: which of its first sampled pages are high quality (bit j - 1
-- of the mask for the j-th page), and the mean score of sample_then_deepen's sample.
hosts_sampled_by_seed as (
    select
        signal_pages_positioned.dataset_id,
        signal_pages_positioned.classifier_id,
        signal_pages_positioned.host_id,
        count(*) as page_count,
        count(*) filter (where signal_pages_positioned.is_hq) as hq_page_count,
        [
            {%- for seed in seeds %}
                coalesce(
                    -- a case, not a filter: the shift must not see the later positions
                    bit_or(
                        case
                            when
                                signal_pages_positioned.is_hq
                                and signal_pages_positioned.sample_positions[{{ seed }}]
                                <= {{ mask_positions }}
                                then
                                    1::bigint << (
                                        signal_pages_positioned.sample_positions[{{ seed }}]
                                        - 1
                                    )
                        end
                    ),
                    0
                ){{ ',' if not loop.last }}
            {%- endfor %}
        ] as hq_sample_masks,
        [
            {%- for seed in seeds %}
                avg(signal_pages_positioned.score) filter (
                    where
                    signal_pages_positioned.sample_positions[{{ seed }}]
                    <= {{ var('depth_sample_size') }}
                ){{ ',' if not loop.last }}
            {%- endfor %}
        ] as depth_sample_score_means

    from signal_pages_positioned
    group by all
),

host_samples as (
    select
        ---------- ids
        hosts_sampled_by_seed.dataset_id,
        hosts_sampled_by_seed.classifier_id,
        hosts_sampled_by_seed.host_id,
        unnest(range(1, {{ var('sample_seeds') }} + 1))::integer as sample_seed,

        ---------- numerics
        hosts_sampled_by_seed.page_count,
        hosts_sampled_by_seed.hq_page_count,
        unnest(hosts_sampled_by_seed.hq_sample_masks) as hq_sample_mask,
        unnest(hosts_sampled_by_seed.depth_sample_score_means)
            as depth_sample_score_mean

    from hosts_sampled_by_seed
)

select * from host_samples
