-- What each depth policy (docs/definitions.md A6) is expected to collect at each
-- budget: uniform breadth and HC depth (int_depth_policy_water_filled),
-- sample-then-deepen (int_depth_policy_sample_then_deepen) and the oracle, here, over
-- the universe of int_depth_policy_hosts and the budgets of int_depth_policy_budgets.

with

depth_hosts as (
    select * from {{ ref('int_depth_policy_hosts') }}
),

budgets as (
    select * from {{ ref('int_depth_policy_budgets') }}
),

water_filled as (
    select * from {{ ref('int_depth_policy_water_filled') }}
),

sample_then_deepen as (
    select * from {{ ref('int_depth_policy_sample_then_deepen') }}
),

dataset_signals as (
    select * from {{ ref('int_dataset_signals') }}
),

-- the ids are unique over both families of policies, the names within each
crawl_policies as (
    select * from {{ ref('crawl_policies') }}
),

------------------------------------------------------------------------------ oracle

-- Whole hosts, truest HQ density first. Hosts of equal density yield alike whichever
-- comes first, so they are taken as one.
oracle_density_levels as (
    select
        depth_hosts.dataset_id,
        depth_hosts.classifier_id,
        depth_hosts.hq_page_count / depth_hosts.page_count as hq_density,
        sum(depth_hosts.page_count) as page_count,
        sum(depth_hosts.hq_page_count) as hq_page_count

    from depth_hosts
    group by all
),

oracle_filled as {{ greedy_fill(
    'oracle_density_levels',
    'budgets',
    ['dataset_id', 'classifier_id'],
    'oracle_density_levels.hq_density desc',
) }},

-------------------------------------------------------------------------- together

policy_yields as (
    select
        water_filled.dataset_id,
        water_filled.classifier_id,
        water_filled.policy_id,
        0 as sample_seed,
        water_filled.budget_share,
        water_filled.host_count,
        water_filled.total_page_count,
        water_filled.total_hq_page_count,
        water_filled.budget_pages,
        0 as sample_page_count,
        water_filled.hq_expected,
        water_filled.fill_level,
        water_filled.marginal_hq_density
    from water_filled
    union all
    select
        oracle_filled.dataset_id,
        oracle_filled.classifier_id,
        crawl_policies.policy_id,
        0 as sample_seed,
        oracle_filled.budget_share,
        oracle_filled.host_count,
        oracle_filled.total_page_count,
        oracle_filled.total_hq_page_count,
        oracle_filled.budget_pages,
        0 as sample_page_count,
        oracle_filled.hq_expected,
        null::double as fill_level,
        -- levels of one density: the boundary level's is the curve's slope there
        oracle_filled.boundary_hq_density as marginal_hq_density
    from oracle_filled
    inner join crawl_policies
        on
            crawl_policies.family = 'depth_policy'
            and crawl_policies.policy = 'oracle'
    union all
    select
        sample_then_deepen.dataset_id,
        sample_then_deepen.classifier_id,
        crawl_policies.policy_id,
        sample_then_deepen.sample_seed,
        sample_then_deepen.budget_share,
        sample_then_deepen.host_count,
        sample_then_deepen.total_page_count,
        sample_then_deepen.total_hq_page_count,
        sample_then_deepen.budget_pages,
        sample_then_deepen.sample_page_count,
        sample_then_deepen.hq_expected,
        null::double as fill_level,
        -- not the boundary host's density: hosts in sample order are not in density
        -- order, and one host's is the slope of one step of a jagged curve
        null::double as marginal_hq_density
    from sample_then_deepen
    inner join crawl_policies
        on
            crawl_policies.family = 'depth_policy'
            and crawl_policies.policy = 'sample_then_deepen'
),

depth_policy_yields as (
    select
        ---------- ids
        dataset_signals.dataset,
        dataset_signals.classifier,
        crawl_policies.policy,
        policy_yields.sample_seed,
        policy_yields.budget_share,

        ---------- numerics
        policy_yields.host_count,
        policy_yields.total_page_count::bigint as total_page_count,
        policy_yields.total_hq_page_count::bigint as total_hq_page_count,
        policy_yields.budget_pages,
        policy_yields.sample_page_count::bigint as sample_page_count,
        policy_yields.hq_expected,
        policy_yields.fill_level,
        policy_yields.marginal_hq_density

    from policy_yields
    inner join dataset_signals
        on
            policy_yields.dataset_id = dataset_signals.dataset_id
            and policy_yields.classifier_id = dataset_signals.classifier_id
    inner join crawl_policies
        on policy_yields.policy_id = crawl_policies.policy_id
)

select * from depth_policy_yields
