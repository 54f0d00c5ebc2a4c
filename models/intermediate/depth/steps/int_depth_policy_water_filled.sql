-- Uniform breadth and HC depth (docs/definitions.md A6), by water-filling (the
-- `water_filling` macro): host h gets min(pages, c * weight) pages, the level c set so
-- that the pages add up to the budget; weight 1 for uniform breadth (c is the common
-- depth D), the host's `hc_depth_weight` for HC depth.

with

depth_hosts as (
    select * from {{ ref('int_depth_policy_hosts') }}
),

budgets as (
    select * from {{ ref('int_depth_policy_budgets') }}
),

policies as (
    select
        crawl_policies.policy_id,
        crawl_policies.policy
    from {{ ref('crawl_policies') }} as crawl_policies
    where crawl_policies.family = 'depth_policy'
),

water_filling_hosts as (
    select
        depth_hosts.dataset_id,
        depth_hosts.classifier_id,
        policies.policy_id,
        depth_hosts.page_count,
        1.0 as weight,
        depth_hosts.hq_page_count
    from depth_hosts
    inner join policies on policies.policy = 'uniform_breadth'
    union all
    select
        depth_hosts.dataset_id,
        depth_hosts.classifier_id,
        policies.policy_id,
        depth_hosts.page_count,
        depth_hosts.hc_weight as weight,
        depth_hosts.hq_page_count
    from depth_hosts
    inner join policies on policies.policy = 'hc_depth'
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
) }}

select * from water_filled
