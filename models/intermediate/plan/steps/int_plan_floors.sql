{%- set floors = plan_floor_groups() %}

-- The crawl plan's floors, one row per floor (`plan_language_floors`,
-- `plan_tld_category_floors`) in each way of computing the plan that applies them
-- (int_plan_scenarios): the least pages the group's hosts get (the share of the budget,
-- rounded down), what the exploration share already gives them, and what the queue must
-- reserve for them before the rest of the budget walks it.

with

plan_shares as (
    select * from {{ ref('int_plan_budget') }}
),

exploration_pages as (
    select * from {{ ref('int_plan_exploration') }}
),

floor_groups as (
    select
        'none' as dimension,
        'none' as dimension_value,
        0.0 as floor_share
    where false
    {%- for dimension, value, share in floors %}
        union all
        select
            '{{ dimension }}' as dimension,
            '{{ value }}' as dimension_value,
            {{ share }} as floor_share
    {%- endfor %}
),

-- the exploration share's pages of each floorable group (int_plan_exploration carries
-- each host's groups)
explored_hosts as (
    select
        exploration_pages.scenario_id,
        exploration_pages.pages_explored,
        exploration_pages.language_stratum,
        exploration_pages.tld_macro_category

    from exploration_pages
),

explored_by_group as (
    select
        explored_hosts.scenario_id,
        'language_stratum' as dimension,
        explored_hosts.language_stratum as dimension_value,
        sum(explored_hosts.pages_explored) as explored_pages
    from explored_hosts
    group by all
    union all
    select
        explored_hosts.scenario_id,
        'tld_macro_category' as dimension,
        explored_hosts.tld_macro_category as dimension_value,
        sum(explored_hosts.pages_explored) as explored_pages
    from explored_hosts
    group by all
),

floors as (
    select
        plan_shares.scenario_id,
        plan_shares.scenario,
        floor_groups.dimension,
        floor_groups.dimension_value,
        floor_groups.floor_share,
        floor(
            plan_shares.budget_pages * floor_groups.floor_share
        )::bigint as floor_pages,
        coalesce(explored_by_group.explored_pages, 0)::bigint as explored_pages

    from plan_shares
    cross join floor_groups
    left join explored_by_group
        on
            plan_shares.scenario_id = explored_by_group.scenario_id
            and floor_groups.dimension = explored_by_group.dimension
            and floor_groups.dimension_value = explored_by_group.dimension_value
    where plan_shares.applies_floors
),

floor_needs as (
    select
        floors.*,
        greatest(floors.floor_pages - floors.explored_pages, 0) as reserve_pages

    from floors
)

select * from floor_needs
