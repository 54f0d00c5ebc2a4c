{#- The variance of the plan's expected HQ E = sum_own a_h d_h + A prior: the prior's
    bootstrap over the hosts of known quality (A^2 var), the own estimates' binomial
    variances (sum a^2 d (1 - d) / s) and twice their covariance, each known host's
    sampled pages being in both (A / S sum_known a d (1 - d)). Null without hosts of known
    quality when pages take the prior. -#}
{%- set expected_hq_variance -%}
    case
        when scenario_totals.prior_page_count = 0 then 0
        else
            power(scenario_totals.prior_page_count, 2)
            * plan_budget.prior_hq_density_variance
            + 2 * scenario_totals.prior_page_count
            / nullif(plan_budget.prior_sampled_page_count, 0)
            * scenario_totals.known_binomial_sum
    end
    + scenario_totals.own_estimate_variance
{%- endset %}

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
        sum(host_allocations.pages_reserved)::bigint as floor_reserved_page_count,
        -- the expected HQ's variance, in parts (docs/definitions.md B, "The plan's
        -- expected HQ"): the pages that take the prior, the hosts' own estimates, and
        -- their covariance with the prior through the known hosts' samples
        coalesce(
            sum(host_allocations.pages_to_fetch)
            filter (where host_allocations.is_prior_estimate),
            0
        ) as prior_page_count,
        coalesce(
            sum(
                power(host_allocations.pages_to_fetch, 2)
                * host_allocations.hq_density_variance
            ),
            0
        ) as own_estimate_variance,
        coalesce(
            sum(
                host_allocations.pages_to_fetch * host_allocations.sampled_page_count
                * host_allocations.hq_density_variance
            ) filter (where host_allocations.quality_group = 'known_quality'),
            0
        ) as known_binomial_sum

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
        {{ normal_interval(
            'scenario_totals.expected_hq', expected_hq_variance, 'expected_hq', '0.0'
        ) }},
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
