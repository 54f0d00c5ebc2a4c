{#- `| int`: the linter renders var() as the var's name -#}
{%- set seeds = range(1, (var('sample_seeds') | int) + 1) %}

-- int_host_samples' rows of the full crawl (docs/definitions.md A5, A6): its annotated
-- pages of `fullcrawl_crawl`, each under its one signal (the annotation profile's flag
-- and score), sampled within their host in order of md5(page_key || ':' || seed) as a
-- number. Its own statement: the page windows of both datasets at once outgrow 5 GB.

with

pages_flagged as (
    select * from {{ ref('int_page_annotations_flagged') }}
),

dataset_hosts as (
    select * from {{ ref('int_dataset_hosts') }}
),

dataset_signals as (
    select * from {{ ref('int_dataset_signals') }}
),

-- Each page's sample keys, one md5 per seed, computed before the windows sort by them:
-- a window's sort carries its input's columns, and the page keys are long strings
-- (the query 48.2 -> 43.1 s at paper scale).
pages_keyed as (
    select
        {%- for seed in seeds %}
            {{ md5_number("pages_flagged.page_key || ':" ~ seed ~ "'") }}
                as sample_key_{{ seed }},
        {%- endfor %}
        dataset_signals.dataset_id,
        dataset_signals.classifier_id,
        dataset_hosts.host_id,
        pages_flagged.signal_score as score,
        pages_flagged.is_hq
    from pages_flagged
    inner join dataset_signals
        on
            dataset_signals.dataset_id = 2
            and pages_flagged.annotation_profile = dataset_signals.classifier
    inner join dataset_hosts
        on
            dataset_hosts.dataset_id = 2
            and pages_flagged.surt_host_name = dataset_hosts.surt_host_name
    where pages_flagged.crawl = '{{ var("fullcrawl_crawl") }}'
),

-- Each page's place in its host's sample for each seed: position 1 is sampled first.
pages_positioned as (
    select
        pages_keyed.dataset_id,
        {%- for seed in seeds %}
            row_number() over (
                partition by pages_keyed.host_id
                order by pages_keyed.sample_key_{{ seed }}
            )::integer as sample_position_{{ seed }},
        {%- endfor %}
        pages_keyed.classifier_id,
        pages_keyed.host_id,
        pages_keyed.score,
        pages_keyed.is_hq
    from pages_keyed
),

host_samples as {{ host_samples('pages_positioned') }}

select * from host_samples
