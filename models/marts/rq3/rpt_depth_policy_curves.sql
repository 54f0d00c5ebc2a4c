with

depth_policy_yields as (
    select * from {{ ref('int_depth_policy_yields') }}
),

-- the bootstrap's variances (docs/definitions.md B, "Depth policies at a budget")
depth_policy_variances as (
    select * from {{ ref('int_depth_policy_variances') }}
),

-- sample_then_deepen averages its seeds; the other policies have one (seed 0).
policy_budgets as (
    select
        depth_policy_yields.dataset,
        depth_policy_yields.classifier,
        depth_policy_yields.policy,
        depth_policy_yields.budget_share,
        any_value(depth_policy_yields.host_count) as host_count,
        any_value(depth_policy_yields.total_page_count) as total_page_count,
        any_value(depth_policy_yields.total_hq_page_count) as total_hq_page_count,
        any_value(depth_policy_yields.budget_pages) as budget_pages,
        any_value(depth_policy_yields.sample_page_count) as sample_page_count,
        count(*) as seed_count,
        -- a budget is feasible for every seed or none (the sample's cost is the same)
        avg(depth_policy_yields.hq_expected) as hq_expected,
        stddev_samp(depth_policy_yields.hq_expected) as hq_expected_sd

    from depth_policy_yields
    group by all
),

depth_policy_curves as (
    select
        ---------- ids
        policy_budgets.dataset,
        policy_budgets.classifier,
        policy_budgets.policy,
        policy_budgets.budget_share,

        ---------- numerics
        policy_budgets.host_count,
        policy_budgets.total_page_count,
        policy_budgets.total_hq_page_count,
        policy_budgets.budget_pages,
        case
            when policy_budgets.hq_expected is not null
                then policy_budgets.budget_pages
        end as pages_fetched,
        policy_budgets.hq_expected,
        {{ normal_interval(
            'policy_budgets.hq_expected',
            'depth_policy_variances.hq_expected_variance',
            'hq_expected',
            '0.0'
        ) }},
        -- a spread over seeds only where seeds differ
        case
            when policy_budgets.policy = 'sample_then_deepen'
                then policy_budgets.hq_expected_sd
        end as hq_expected_sd,
        policy_budgets.hq_expected / policy_budgets.budget_pages as yield_per_fetch,
        policy_budgets.hq_expected
        / nullif(uniform_breadth.hq_expected, 0) as ratio_vs_uniform,
        {{ normal_interval(
            'policy_budgets.hq_expected / nullif(uniform_breadth.hq_expected, 0)',
            'depth_policy_variances.ratio_vs_uniform_variance',
            'ratio_vs_uniform',
            '0.0'
        ) }},
        policy_budgets.sample_page_count
        / policy_budgets.total_page_count as min_feasible_budget_share,
        policy_budgets.seed_count::integer as seed_count,

        ---------- booleans
        policy_budgets.hq_expected is not null as is_feasible

    from policy_budgets
    inner join policy_budgets as uniform_breadth
        on
            policy_budgets.dataset = uniform_breadth.dataset
            and policy_budgets.classifier = uniform_breadth.classifier
            and policy_budgets.budget_share = uniform_breadth.budget_share
            and uniform_breadth.policy = 'uniform_breadth'
    left join depth_policy_variances
        on
            policy_budgets.dataset = depth_policy_variances.dataset
            and policy_budgets.classifier = depth_policy_variances.classifier
            and policy_budgets.policy = depth_policy_variances.policy
            and policy_budgets.budget_share = depth_policy_variances.budget_share
)

select * from depth_policy_curves
