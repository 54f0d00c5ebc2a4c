-- The crawl plan's exploration share, breadth first over the hosts whose quality the
-- classifier cannot judge: every host the same number of pages (or all it has), the
-- level set so that the pages add up to the exploration budget (water-filling with
-- weight 1), then one page more for as many hosts (in random order) as the whole pages
-- leave over. Each way the plan is computed (int_plan_scenarios) on its own, over the
-- pages its constraints leave each host (int_plan_capacity).

with

host_capacity as (
    select * from {{ ref('int_plan_capacity') }}
),

plan_budget as (
    select * from {{ ref('int_plan_budget') }}
),

exploration_hosts as (
    select
        host_capacity.scenario_id,
        host_capacity.plan_host_id,
        host_capacity.random_order,
        host_capacity.plannable_page_count as page_count,
        host_capacity.language_stratum,
        host_capacity.tld_macro_category,
        1 as weight,
        0 as hq_page_count

    from host_capacity
    where
        host_capacity.quality_group = 'unreliable_quality'
        and host_capacity.plannable_page_count > 0
),

exploration_budget as (
    select
        plan_budget.scenario_id,
        plan_budget.exploration_budget_pages as budget_pages

    from plan_budget
),

exploration_fill as (
    select *
    from {{ water_filling('exploration_hosts', 'exploration_budget', ['scenario_id']) }}
),

exploration_level as (
    select
        exploration_budget.scenario_id,
        exploration_budget.budget_pages,
        -- whole pages per host: the level, less a rounding error of the division (no
        -- level when there is nothing to spend)
        floor(coalesce(exploration_fill.fill_level, 0) + 1e-9)::bigint as page_level

    from exploration_budget
    left join exploration_fill
        on exploration_budget.scenario_id = exploration_fill.scenario_id
),

exploration_base as (
    select
        exploration_hosts.scenario_id,
        exploration_hosts.plan_host_id,
        exploration_hosts.random_order,
        exploration_hosts.page_count,
        exploration_hosts.language_stratum,
        exploration_hosts.tld_macro_category,
        least(exploration_hosts.page_count, exploration_level.page_level) as base_pages,
        exploration_hosts.page_count > exploration_level.page_level as has_pages_left,
        1 as host_count

    from exploration_hosts
    inner join exploration_level
        on exploration_hosts.scenario_id = exploration_level.scenario_id
),

exploration_base_totals as (
    select
        exploration_base.scenario_id,
        sum(exploration_base.base_pages) as base_pages

    from exploration_base
    group by all
),

-- the whole pages the level leaves of the budget: a page more for as many hosts
exploration_left_over as (
    select
        exploration_level.scenario_id,
        exploration_level.budget_pages - exploration_base_totals.base_pages
            as pages_left_over

    from exploration_level
    inner join exploration_base_totals
        on exploration_level.scenario_id = exploration_base_totals.scenario_id
),

exploration_pages_left as (
    select exploration_base.*

    from exploration_base
    where exploration_base.has_pages_left
),

-- the hosts with pages left, in random order: how many come before each where the
-- pages left over end (counted by blocks of the order: macros/prefix_sums.sql)
exploration_ordered as (
    select hosts_before.*

    from {{ prefix_sum_to_limit(
        'exploration_pages_left',
        ['scenario_id'],
        [order_block('exploration_pages_left.random_order')],
        ['random_order'],
        'host_count',
        'exploration_left_over',
        'pages_left_over',
        'hosts_before'
    ) }} as hosts_before
),

exploration_pages as (
    select
        exploration_ordered.scenario_id,
        exploration_ordered.plan_host_id,
        exploration_ordered.random_order,
        exploration_ordered.page_count,
        exploration_ordered.language_stratum,
        exploration_ordered.tld_macro_category,
        exploration_ordered.base_pages
        + case
            when exploration_ordered.hosts_before < exploration_ordered.prefix_limit
                then 1
            else 0
        end as pages_explored

    from exploration_ordered
    union all
    select
        exploration_base.scenario_id,
        exploration_base.plan_host_id,
        exploration_base.random_order,
        exploration_base.page_count,
        exploration_base.language_stratum,
        exploration_base.tld_macro_category,
        exploration_base.base_pages as pages_explored

    from exploration_base
    where not exploration_base.has_pages_left
)

select * from exploration_pages
