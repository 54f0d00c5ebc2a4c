-- int_host_samples' rows of the full crawl (docs/definitions.md A5, A6): its annotated
-- pages of `fullcrawl_crawl`, each under its one signal (the annotation profile's flag
-- and score), sampled within their host in order of md5(page_key || ':' || seed) as a
-- number. Its own statement: the page windows of both datasets at once outgrow 5 GB.

with

-- a view over the lake's pages, read by each of host_samples' three reads: never held
pages_flagged as {{ not_materialized() }} (
    select * from {{ ref('int_page_annotations_flagged') }}
),

dataset_hosts as (
    select * from {{ ref('int_dataset_hosts') }}
),

dataset_signals as (
    select * from {{ ref('int_dataset_signals') }}
),

-- Each page's sample keys, one md5 per seed (macro sample_keys). Read three times by
-- host_samples: recomputed, never held (the keys of every page would fill the disk).
pages_keyed as {{ not_materialized() }} (
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

host_samples as {{ host_samples('pages_keyed') }}

select * from host_samples
