{%- set seeds_per_name = var('plan_seed_urls_per_host') | int %}

-- The URLs a crawler starts each planned queue key from (docs/exports.md#seed-urls):
-- the URLs the warehouse knows on that host name (classified pages first, then
-- annotated pages, each in a fixed random order), at most `plan_seed_urls_per_host`
-- and never more than the name's pages; a name with no known URL starts from its root
-- over https.

with

queue_keys as (
    select * from {{ ref('plan_host_queue_keys') }}
),

known_urls as (
    select * from {{ ref('int_plan_known_urls') }}
),

known_seeds as (
    select
        queue_keys.surt_host_name,
        queue_keys.url_host_name,
        known_urls.url,
        known_urls.url_source as seed_source,
        row_number() over (
            partition by queue_keys.surt_host_name, queue_keys.url_host_name
            order by known_urls.source_order, known_urls.random_order, known_urls.url
        ) as seed_rank,
        queue_keys.pages_to_fetch,
        queue_keys.hq_density_estimate

    from queue_keys
    inner join known_urls
        on
            queue_keys.surt_host_name = known_urls.surt_host_name
            and queue_keys.url_host_name = known_urls.url_host_name
),

root_seeds as (
    select
        queue_keys.surt_host_name,
        queue_keys.url_host_name,
        'https://' || queue_keys.url_host_name || '/' as url,
        'host_root' as seed_source,
        1 as seed_rank,
        queue_keys.pages_to_fetch,
        queue_keys.hq_density_estimate

    from queue_keys
    where queue_keys.seen_url_count = 0
),

seed_urls as (
    select
        ---------- ids
        known_seeds.surt_host_name,
        known_seeds.url_host_name,
        known_seeds.url,

        ---------- strings
        known_seeds.seed_source,

        ---------- numerics
        known_seeds.seed_rank,
        known_seeds.pages_to_fetch,
        known_seeds.hq_density_estimate

    from known_seeds
    where
        known_seeds.seed_rank
        <= least(known_seeds.pages_to_fetch, {{ seeds_per_name }})
    union all
    select
        root_seeds.surt_host_name,
        root_seeds.url_host_name,
        root_seeds.url,
        root_seeds.seed_source,
        root_seeds.seed_rank,
        root_seeds.pages_to_fetch,
        root_seeds.hq_density_estimate

    from root_seeds
)

select * from seed_urls
