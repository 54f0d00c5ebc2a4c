-- What each of the crawl plan's constraints costs: the plan computed without any, with
-- each alone and with all of them (int_plan_allocations' scenarios), on the same
-- budget.

with

host_allocations as (
    select * from {{ ref('int_plan_allocations') }}
),

plan_budget as (
    select * from {{ ref('int_plan_budget') }}
),

scenario_totals as (
    select
        host_allocations.scenario,
        count(*) filter (where host_allocations.pages_to_fetch > 0) as plan_host_count,
        sum(host_allocations.pages_to_fetch)::bigint as plan_page_count,
        sum(host_allocations.expected_hq) as expected_hq,
        sum(host_allocations.plannable_page_count)::bigint as plannable_page_count,
        count(*) filter (
            where
            host_allocations.robots_allowed_page_count = 0
            and host_allocations.known_url_count > 0
        ) as robots_excluded_host_count,
        count(*) filter (
            where
            host_allocations.robots_allowed_page_count > 0
            and host_allocations.robots_allowed_page_count
            < host_allocations.known_url_count
        ) as robots_reduced_host_count,
        sum(
            host_allocations.known_url_count
            - host_allocations.robots_allowed_page_count
        )::bigint as robots_removed_page_count,
        count(*) filter (
            where
            host_allocations.plannable_page_count
            < host_allocations.robots_allowed_page_count
        ) as capped_host_count,
        sum(
            host_allocations.robots_allowed_page_count
            - host_allocations.plannable_page_count
        )::bigint as capped_page_count,
        sum(host_allocations.pages_reserved)::bigint as floor_reserved_page_count

    from host_allocations
    group by all
),

scenario_costs as (
    select
        ---------- ids
        scenario_totals.scenario,

        ---------- strings
        plan_budget.robots_policy,

        ---------- numerics
        plan_budget.budget_pages,
        plan_budget.page_cap,
        plan_budget.crawl_seconds
        / plan_budget.page_cap as page_cap_crawl_delay_seconds,
        scenario_totals.plannable_page_count,
        scenario_totals.plan_host_count,
        scenario_totals.plan_page_count,
        scenario_totals.expected_hq,
        scenario_totals.expected_hq
        / nullif(scenario_totals.plan_page_count, 0) as expected_hq_share,
        -- the expected HQ pages this way of planning gives up against no constraint
        max(
            case
                when scenario_totals.scenario = 'unconstrained'
                    then scenario_totals.expected_hq
            end
        ) over () - scenario_totals.expected_hq as expected_hq_cost,
        scenario_totals.robots_excluded_host_count,
        scenario_totals.robots_reduced_host_count,
        scenario_totals.robots_removed_page_count,
        scenario_totals.capped_host_count,
        scenario_totals.capped_page_count,
        scenario_totals.floor_reserved_page_count,

        ---------- booleans
        plan_budget.applies_floors

    from scenario_totals
    inner join plan_budget
        on scenario_totals.scenario = plan_budget.scenario
    -- plan_crawl's plans (the previous crawl's is plan_changes')
    where plan_budget.plan_role = 'current'
)

select * from scenario_costs
