{%- set sample_size = var('depth_sample_size') %}

-- Sample-then-deepen (docs/definitions.md A6), per sample seed: sample k pages of every
-- host of the universe, then deepen the hosts whose sample was densest, whole hosts
-- while the budget lasts (the `greedy_fill` macro). It collects its sample's actual HQ
-- pages, and is infeasible (null) below the sample's cost.

with

-- read through the sampled hosts below, twice: scanning the table again is cheaper than
-- holding its rows in memory
host_samples as {{ not_materialized() }} (
    select * from {{ ref('int_host_samples') }}
),

dataset_hosts as (
    select * from {{ ref('int_dataset_hosts') }}
),

depth_hosts as (
    select * from {{ ref('int_depth_policy_hosts') }}
),

budgets as (
    select * from {{ ref('int_depth_policy_budgets') }}
),

-- Phase 1: the first k sampled pages of every host, and their actual HQ. Read twice:
-- recomputing it from the table is cheaper than holding its rows in memory.
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
        -- infeasible below the sample's cost; nothing left to deepen adds nothing
        case
            when deepened.deepening_pages >= 0
                then
                    deepened.sample_hq_page_count
                    + coalesce(deepened.hq_expected, 0)
        end as hq_expected

    from deepened
)

select * from sample_then_deepen
