{{ config(materialized='table') }}

{%- set sample_size = var('depth_sample_size') %}
{#- SPEC §5 #10: the weight of HC depth -#}
{%- if var('hc_depth_weight') == 'log_hc_val' %}
    {%- set hc_weight = 'ln(dataset_hosts.hc_val)' %}
{%- else %}
    {%- set hc_weight = 'dataset_hosts.hc_val' %}
{%- endif %}

with

-- read twice (the universe, the samples): scanning the table again is cheaper than
-- holding its rows in memory; likewise the sampled hosts below
host_samples as {{ not_materialized() }} (
    select * from {{ ref('int_host_samples') }}
),

dataset_hosts as (
    select * from {{ ref('int_dataset_hosts') }}
),

dataset_signals as (
    select * from {{ ref('int_dataset_signals') }}
),

budget_shares as (
    select {{ unnest_values(var('budget_shares'), 'double') }} as budget_share
),

policies as (
    select
        policy_values.policy_id,
        policy_values.policy
    from (
        values
        (1, 'uniform_breadth'),
        (2, 'hc_depth'),
        (3, 'sample_then_deepen'),
        (4, 'oracle')
    ) as policy_values (policy_id, policy)
),

------------------------------------------------------------------------- the universe

-- SPEC A6: hosts with their already-fetched pages. Enough of them to be a host of the
-- analyses (min_docs_per_host) and a positive, finite weight for HC depth
-- (`hc_depth_weight`; a ranks file may hold NaN, which DuckDB orders above any number).
depth_hosts as (
    select
        host_samples.dataset_id,
        host_samples.classifier_id,
        host_samples.host_id,
        host_samples.page_count,
        host_samples.hq_page_count,
        {{ hc_weight }} as hc_weight,
        dataset_hosts.tie_breaker

    from host_samples
    inner join dataset_hosts
        on
            host_samples.dataset_id = dataset_hosts.dataset_id
            and host_samples.host_id = dataset_hosts.host_id
    where
        host_samples.sample_seed = 1  -- page and HQ counts are the same for every seed
        and host_samples.page_count >= {{ var('min_docs_per_host') }}
        and {{ hc_weight }} > 0
        and {{ is_finite(hc_weight) }}
),

universe_totals as (
    select
        depth_hosts.dataset_id,
        depth_hosts.classifier_id,
        count(*) as host_count,
        sum(depth_hosts.page_count) as total_page_count,
        sum(depth_hosts.hq_page_count) as total_hq_page_count

    from depth_hosts
    group by all
),

budgets as (
    select
        universe_totals.*,
        budget_shares.budget_share,
        budget_shares.budget_share * universe_totals.total_page_count as budget_pages

    from universe_totals
    cross join budget_shares
),

------------------------------------------ uniform breadth and HC depth: water-filling

water_filling_hosts as (
    select
        depth_hosts.dataset_id,
        depth_hosts.classifier_id,
        1 as policy_id,
        depth_hosts.page_count,
        1.0 as weight,
        depth_hosts.hq_page_count
    from depth_hosts
    union all
    select
        depth_hosts.dataset_id,
        depth_hosts.classifier_id,
        2 as policy_id,
        depth_hosts.page_count,
        depth_hosts.hc_weight as weight,
        depth_hosts.hq_page_count
    from depth_hosts
),

water_filling_budgets as (
    select
        budgets.*,
        policies.policy_id

    from budgets
    inner join policies
        on policies.policy in ('uniform_breadth', 'hc_depth')
),

water_filled as {{ water_filling(
    'water_filling_hosts',
    'water_filling_budgets',
    ['dataset_id', 'classifier_id', 'policy_id'],
) }},

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

------------------------------------------------------------------ sample then deepen

-- Phase 1 (SPEC A6): the first k sampled pages of every host, and their actual HQ.
sampled_hosts as {{ not_materialized() }} (
    select
        host_samples.dataset_id,
        host_samples.classifier_id,
        host_samples.sample_seed,
        host_samples.host_id,
        host_samples.page_count,
        host_samples.hq_page_count,
        least(host_samples.page_count, {{ sample_size }}) as sample_page_count,
        bit_count(
            host_samples.hq_sample_mask
            & ((1::bigint << least(host_samples.page_count, {{ sample_size }})) - 1)
        ) as sample_hq_page_count,
        host_samples.depth_sample_score_mean

    from host_samples
    semi join depth_hosts
        on
            host_samples.dataset_id = depth_hosts.dataset_id
            and host_samples.classifier_id = depth_hosts.classifier_id
            and host_samples.host_id = depth_hosts.host_id
),

sample_costs as (
    select
        sampled_hosts.dataset_id,
        sampled_hosts.classifier_id,
        sampled_hosts.sample_seed,
        sum(sampled_hosts.sample_page_count) as sample_page_count,
        sum(sampled_hosts.sample_hq_page_count) as sample_hq_page_count

    from sampled_hosts
    group by all
),

-- Phase 2: the pages left on each host, hosts whose sample was densest first (ties: the
-- sample's mean score, then the md5 of the host). A host's HQ pages left are its
-- expected HQ there: pages left times the density of the pages left.
deepening_hosts as (
    select
        sampled_hosts.dataset_id,
        sampled_hosts.classifier_id,
        sampled_hosts.sample_seed,
        sampled_hosts.page_count - sampled_hosts.sample_page_count as page_count,
        sampled_hosts.hq_page_count - sampled_hosts.sample_hq_page_count
            as hq_page_count,
        sampled_hosts.sample_hq_page_count / sampled_hosts.sample_page_count
            as sample_hq_density,
        sampled_hosts.depth_sample_score_mean,
        dataset_hosts.tie_breaker

    from sampled_hosts
    inner join dataset_hosts
        on
            sampled_hosts.dataset_id = dataset_hosts.dataset_id
            and sampled_hosts.host_id = dataset_hosts.host_id
    where sampled_hosts.page_count > sampled_hosts.sample_page_count
),

deepening_budgets as (
    select
        budgets.*,
        sample_costs.sample_seed,
        sample_costs.sample_page_count,
        sample_costs.sample_hq_page_count,
        budgets.budget_pages
        {%- if var('depth_sample_is_charged') %}
            - sample_costs.sample_page_count
        {%- endif %} as deepening_pages

    from budgets
    inner join sample_costs
        on
            budgets.dataset_id = sample_costs.dataset_id
            and budgets.classifier_id = sample_costs.classifier_id
),

deepened as {{ greedy_fill(
    'deepening_hosts',
    'deepening_budgets',
    ['dataset_id', 'classifier_id', 'sample_seed'],
    'deepening_hosts.sample_hq_density desc,'
    ~ ' deepening_hosts.depth_sample_score_mean desc,'
    ~ ' deepening_hosts.tie_breaker asc',
    budget_pages='deepening_pages',
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
        water_filled.hq_expected
    from water_filled
    union all
    select
        oracle_filled.dataset_id,
        oracle_filled.classifier_id,
        4 as policy_id,
        0 as sample_seed,
        oracle_filled.budget_share,
        oracle_filled.host_count,
        oracle_filled.total_page_count,
        oracle_filled.total_hq_page_count,
        oracle_filled.budget_pages,
        0 as sample_page_count,
        oracle_filled.hq_expected
    from oracle_filled
    union all
    select
        deepened.dataset_id,
        deepened.classifier_id,
        3 as policy_id,
        deepened.sample_seed,
        deepened.budget_share,
        deepened.host_count,
        deepened.total_page_count,
        deepened.total_hq_page_count,
        deepened.budget_pages,
        deepened.sample_page_count,
        -- infeasible below the sample's cost; nothing left to deepen adds nothing
        case
            when deepened.deepening_pages >= 0
                then
                    deepened.sample_hq_page_count
                    + coalesce(deepened.hq_expected, 0)
        end as hq_expected
    from deepened
),

depth_policy_yields as (
    select
        ---------- ids
        dataset_signals.dataset,
        dataset_signals.classifier,
        policies.policy,
        policy_yields.sample_seed,
        policy_yields.budget_share,

        ---------- numerics
        policy_yields.host_count,
        policy_yields.total_page_count::bigint as total_page_count,
        policy_yields.total_hq_page_count::bigint as total_hq_page_count,
        policy_yields.budget_pages,
        policy_yields.sample_page_count::bigint as sample_page_count,
        policy_yields.hq_expected

    from policy_yields
    inner join dataset_signals
        on
            policy_yields.dataset_id = dataset_signals.dataset_id
            and policy_yields.classifier_id = dataset_signals.classifier_id
    inner join policies
        on policy_yields.policy_id = policies.policy_id
)

select * from depth_policy_yields
