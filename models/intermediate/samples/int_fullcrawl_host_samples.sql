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

-- Each page's sample keys, one md5 per seed, computed before the windows sort by them
-- (macro sample_keys).
pages_keyed as (
    select
        {{ sample_keys('pages_flagged.page_key') }}
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
        {{ sample_positions('pages_keyed') }}
        pages_keyed.dataset_id,
        pages_keyed.classifier_id,
        pages_keyed.host_id,
        pages_keyed.score,
        pages_keyed.is_hq
    from pages_keyed
),

host_samples as {{ host_samples('pages_positioned') }}

select * from host_samples
