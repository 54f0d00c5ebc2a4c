-- Sample-then-deepen (docs/definitions.md A6), per sample seed: sample k pages of every
-- host of the universe, then deepen the hosts whose sample was densest, whole hosts
-- while the budget lasts (the `greedy_fill` macro). It collects its sample's actual HQ
-- pages, and is infeasible (null) below the sample's cost.

with

-- read twice below: scanning it again is cheaper than holding its rows in memory
sampled_hosts as {{ not_materialized() }} (
    select * from {{ ref('int_depth_policy_sampled_hosts') }}
),

budgets as (
    select * from {{ ref('int_depth_policy_budgets') }}
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

-- Phase 2: the pages left on each host, hosts whose sample was densest first
-- (`deepening_order`).
deepening_hosts as (
    select
        sampled_hosts.dataset_id,
        sampled_hosts.classifier_id,
        sampled_hosts.sample_seed,
        sampled_hosts.pages_left as page_count,
        sampled_hosts.hq_pages_left as hq_page_count,
        sampled_hosts.sample_hq_density,
        sampled_hosts.depth_sample_score_mean,
        sampled_hosts.tie_breaker

    from sampled_hosts
    where sampled_hosts.pages_left > 0
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
    deepening_order('deepening_hosts'),
    budget_pages='deepening_pages',
) }},

sample_then_deepen as (
    select
        deepened.dataset_id,
        deepened.classifier_id,
        deepened.sample_seed,
        deepened.budget_share,
        deepened.host_count,
        deepened.total_page_count,
        deepened.total_hq_page_count,
        deepened.budget_pages,
        deepened.sample_page_count,
        -- infeasible below the sample's cost, charged or free (as
        -- docs/definitions.md A6 has it); nothing left to deepen adds nothing
        case
            when deepened.budget_pages >= deepened.sample_page_count
                then
                    deepened.sample_hq_page_count
                    + coalesce(deepened.hq_expected, 0)
        end as hq_expected

    from deepened
)

select * from sample_then_deepen
