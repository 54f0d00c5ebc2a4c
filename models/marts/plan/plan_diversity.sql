with

host_fetch_budget as (
    select * from {{ ref('plan_host_fetch_budget') }}
),

plan_floors as (
    select * from {{ ref('int_plan_floors') }}
    where scenario = 'plan'
),

-- Each host once per dimension it is counted in (hosts the host index knows URLs of).
host_dimensions as (
    select
        'language_stratum' as dimension,
        host_fetch_budget.language_stratum as dimension_value,
        host_fetch_budget.known_url_count,
        host_fetch_budget.pages_to_fetch,
        host_fetch_budget.expected_hq
    from host_fetch_budget
    where host_fetch_budget.known_url_count > 0
    union all
    select
        'tld_macro_category' as dimension,
        host_fetch_budget.tld_macro_category as dimension_value,
        host_fetch_budget.known_url_count,
        host_fetch_budget.pages_to_fetch,
        host_fetch_budget.expected_hq
    from host_fetch_budget
    where host_fetch_budget.known_url_count > 0
),

dimension_totals as (
    select
        host_dimensions.dimension,
        host_dimensions.dimension_value,
        count(*) as population_host_count,
        count(*) filter (where host_dimensions.pages_to_fetch > 0) as plan_host_count,
        sum(host_dimensions.known_url_count)::bigint as known_url_count,
        sum(host_dimensions.pages_to_fetch)::bigint as plan_page_count,
        sum(host_dimensions.expected_hq) as expected_hq

    from host_dimensions
    group by all
),

-- What the plan's yield costs in diversity: each language stratum's and TLD category's
-- share of the plan's hosts and pages against its share of the host population.
plan_diversity as (
    select
        ---------- ids
        dimension_totals.dimension,
        dimension_totals.dimension_value,

        ---------- numerics
        dimension_totals.population_host_count,
        dimension_totals.population_host_count
        / sum(dimension_totals.population_host_count) over dimensions
            as population_host_share,
        dimension_totals.known_url_count,
        dimension_totals.plan_host_count,
        dimension_totals.plan_host_count
        / nullif(sum(dimension_totals.plan_host_count) over dimensions, 0)
            as plan_host_share,
        dimension_totals.plan_host_count
        / dimension_totals.population_host_count as host_coverage,
        dimension_totals.plan_page_count,
        dimension_totals.plan_page_count
        / nullif(sum(dimension_totals.plan_page_count) over dimensions, 0)
            as plan_page_share,
        dimension_totals.expected_hq,
        dimension_totals.expected_hq
        / nullif(sum(dimension_totals.expected_hq) over dimensions, 0)
            as expected_hq_share,
        -- above 1: the plan reaches more of the group's hosts than its population share
        dimension_totals.plan_host_count
        / nullif(sum(dimension_totals.plan_host_count) over dimensions, 0)
        / (
            dimension_totals.population_host_count
            / sum(dimension_totals.population_host_count) over dimensions
        ) as representation_ratio,
        -- the group's floor (plan_language_floors, plan_tld_category_floors), if any
        plan_floors.floor_share::double as floor_share,
        plan_floors.floor_pages as floor_page_count,

        ---------- booleans
        dimension_totals.plan_page_count >= plan_floors.floor_pages as is_floor_met

    from dimension_totals
    left join plan_floors
        on
            dimension_totals.dimension = plan_floors.dimension
            and dimension_totals.dimension_value = plan_floors.dimension_value
    window dimensions as (partition by dimension_totals.dimension)
)

select * from plan_diversity
