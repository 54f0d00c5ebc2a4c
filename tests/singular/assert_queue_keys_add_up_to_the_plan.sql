-- Every planned host's queue keys share exactly its pages (plan_host_queue_keys), and
-- a host with pages has at least one key.
with

host_fetch_budget as (
    select * from {{ ref('plan_host_fetch_budget') }}
),

queue_keys as (
    select * from {{ ref('plan_host_queue_keys') }}
),

key_totals as (
    select
        queue_keys.surt_host_name,
        sum(queue_keys.pages_to_fetch) as pages_to_fetch

    from queue_keys
    group by all
),

mismatched_hosts as (
    select
        host_fetch_budget.surt_host_name,
        host_fetch_budget.pages_to_fetch as plan_pages,
        key_totals.pages_to_fetch as key_pages

    from host_fetch_budget
    full outer join key_totals
        on host_fetch_budget.surt_host_name = key_totals.surt_host_name
    where
        coalesce(host_fetch_budget.pages_to_fetch, 0)
        <> coalesce(key_totals.pages_to_fetch, 0)
)

select * from mismatched_hosts
