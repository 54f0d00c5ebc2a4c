-- The depth policies' budgets (docs/definitions.md A6): `budget_shares` of the pages of
-- each dataset × signal's universe (int_depth_policy_hosts).

with

depth_hosts as (
    select * from {{ ref('int_depth_policy_hosts') }}
),

budget_shares as (
    select {{ unnest_values(var('budget_shares'), 'double') }} as budget_share
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
)

select * from budgets
