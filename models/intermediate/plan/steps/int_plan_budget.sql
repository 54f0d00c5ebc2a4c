-- The crawl plan's budget, one row: the total fetches (`plan_budget_pages`, or
-- `plan_budget_share` of the known URLs), the exploration share taken first (at most
-- what the exploration hosts hold), the most the sample of hosts of unknown quality may
-- use before deepening starts (`plan_max_sample_share`), and the expected HQ density of
-- a host not yet sampled.

with

plan_hosts as (
    select * from {{ ref('int_plan_hosts') }}
),

plan_budget as (
    select
        1 as plan_id,
        {%- if var('plan_budget_pages') is not none %}
            {{ var('plan_budget_pages') | int }}::bigint as budget_pages,
        {%- else %}
            floor(
                sum(plan_hosts.known_url_count) * {{ var('plan_budget_share') }}
            )::bigint as budget_pages,
        {%- endif %}
        -- the pooled HQ share of the hosts whose quality is known: the expected density
        -- of a host not yet sampled
        coalesce(
            sum(plan_hosts.sampled_hq_page_count)
            filter (where plan_hosts.quality_group = 'known_quality')
            / nullif(
                sum(plan_hosts.sampled_page_count)
                filter (where plan_hosts.quality_group = 'known_quality'),
                0
            ),
            0
        ) as prior_hq_density

    from plan_hosts
),

plan_shares as (
    select
        plan_budget.*,
        floor(
            plan_budget.budget_pages * {{ var('plan_exploration_share') }}
        )::bigint as exploration_pages,
        floor(
            plan_budget.budget_pages * {{ var('plan_max_sample_share') }}
        )::bigint as sample_pages_max

    from plan_budget
),

-- what the hosts whose quality the classifier cannot judge hold
exploration_capacity as (
    select
        1 as plan_id,
        coalesce(sum(plan_hosts.known_url_count), 0) as capacity_pages

    from plan_hosts
    where
        plan_hosts.quality_group = 'unreliable_quality'
        and plan_hosts.known_url_count > 0
),

-- the exploration share, or all the exploration hosts have when that is less
plan_budget_split as (
    select
        plan_shares.*,
        least(
            plan_shares.exploration_pages,
            exploration_capacity.capacity_pages
        ) as exploration_budget_pages

    from plan_shares
    inner join exploration_capacity
        on plan_shares.plan_id = exploration_capacity.plan_id
)

select * from plan_budget_split
