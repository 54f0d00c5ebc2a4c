-- The crawl plan's budget, one row per way it is computed (int_plan_scenarios): the
-- total fetches (`plan_budget_pages`, or `plan_budget_share` of the known URLs of the
-- crawl planned: the same in every scenario of a crawl, so that they compare), the
-- exploration share taken first (at most what the exploration hosts may be given), the
-- most the sample of hosts of unknown quality may use before deepening starts
-- (`plan_max_sample_share`), and the expected HQ density of a host not yet sampled
-- with its bootstrap variance.

with

plan_hosts as (
    select * from {{ ref('int_plan_hosts') }}
),

scenarios as (
    select * from {{ ref('int_plan_scenarios') }}
),

host_capacity as (
    select * from {{ ref('int_plan_capacity') }}
),

plan_budget as (
    select
        plan_hosts.plan_role,
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
        ) as prior_hq_density,
        -- what the bootstrap of the plan's expected HQ needs of the prior
        -- (docs/definitions.md B, "The plan's expected HQ"): the pages sampled on the
        -- hosts of known quality and the sums of their squares and products
        coalesce(
            sum(plan_hosts.sampled_page_count)
            filter (where plan_hosts.quality_group = 'known_quality'),
            0
        ) as prior_sampled_page_count,
        sum(power(plan_hosts.sampled_hq_page_count, 2))
        filter (where plan_hosts.quality_group = 'known_quality') as prior_hq_squares,
        sum(plan_hosts.sampled_hq_page_count * plan_hosts.sampled_page_count)
        filter (where plan_hosts.quality_group = 'known_quality') as prior_hq_products,
        sum(power(plan_hosts.sampled_page_count, 2))
        filter (where plan_hosts.quality_group = 'known_quality') as prior_page_squares

    from plan_hosts
    group by all
),

plan_shares as (
    select
        scenarios.*,
        plan_budget.budget_pages,
        plan_budget.prior_hq_density,
        plan_budget.prior_sampled_page_count,
        -- the Poisson bootstrap's variance of the prior over the hosts of known
        -- quality, to first order sum_h ((hq_h - prior s_h) / S)^2, the square
        -- expanded
        greatest(
            plan_budget.prior_hq_squares
            - 2 * plan_budget.prior_hq_density * plan_budget.prior_hq_products
            + power(plan_budget.prior_hq_density, 2) * plan_budget.prior_page_squares,
            0
        )
        / power(nullif(plan_budget.prior_sampled_page_count, 0), 2)
            as prior_hq_density_variance,
        floor(
            plan_budget.budget_pages * {{ var('plan_exploration_share') }}
        )::bigint as exploration_pages,
        floor(
            plan_budget.budget_pages * {{ var('plan_max_sample_share') }}
        )::bigint as sample_pages_max

    from scenarios
    inner join plan_budget
        on scenarios.plan_role = plan_budget.plan_role
),

-- what the hosts whose quality the classifier cannot judge may be given
exploration_capacity as (
    select
        host_capacity.scenario_id,
        sum(host_capacity.plannable_page_count) as capacity_pages

    from host_capacity
    where host_capacity.quality_group = 'unreliable_quality'
    group by all
),

-- the exploration share, or all the exploration hosts may have when that is less
plan_budget_split as (
    select
        plan_shares.*,
        least(
            plan_shares.exploration_pages,
            coalesce(exploration_capacity.capacity_pages, 0)
        ) as exploration_budget_pages

    from plan_shares
    left join exploration_capacity
        on plan_shares.scenario_id = exploration_capacity.scenario_id
)

select * from plan_budget_split
