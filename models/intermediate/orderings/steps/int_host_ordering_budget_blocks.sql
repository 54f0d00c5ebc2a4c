-- Each host ordering's budgets (docs/definitions.md A4: `budget_shares` of the pages of
-- the universe U_c) and the block where each ends: the blocks' sums of
-- int_host_ordering_block_sums cumulated, and the last block that starts before the
-- budget is spent found by an asof join.

with

ordered_host_sums as (
    select * from {{ ref('int_host_ordering_block_sums') }}
),

budget_shares as (
    select {{ unnest_values(var('budget_shares'), 'double') }} as budget_share
),

blocks_cumulated as (
    select
        ordered_host_sums.classifier_id,
        ordered_host_sums.policy_id,
        ordered_host_sums.random_seed,
        ordered_host_sums.position_block,
        (sum(ordered_host_sums.page_count) over blocks_so_far)
        - ordered_host_sums.page_count as pages_before_block,
        (sum(ordered_host_sums.hq_page_count) over blocks_so_far)
        - ordered_host_sums.hq_page_count as hq_pages_before_block,
        (sum(ordered_host_sums.host_count) over blocks_so_far)
        - ordered_host_sums.host_count as hosts_before_block

    from ordered_host_sums
    where ordered_host_sums.is_block_sum
    window
        blocks_so_far as (
            partition by
                ordered_host_sums.classifier_id,
                ordered_host_sums.policy_id,
                ordered_host_sums.random_seed
            order by ordered_host_sums.position_block
            rows between unbounded preceding and current row
        )
),

order_totals as (
    select
        ordered_host_sums.classifier_id,
        ordered_host_sums.policy_id,
        ordered_host_sums.random_seed,
        sum(ordered_host_sums.page_count) as total_page_count,
        sum(ordered_host_sums.hq_page_count) as total_hq_page_count

    from ordered_host_sums
    where ordered_host_sums.is_block_sum
    group by all
),

budgets as (
    select
        order_totals.*,
        budget_shares.budget_share,
        budget_shares.budget_share * order_totals.total_page_count as pages_fetched

    from order_totals
    cross join budget_shares
),

budget_blocks as (
    select
        budgets.*,
        blocks_cumulated.position_block,
        blocks_cumulated.pages_before_block,
        blocks_cumulated.hq_pages_before_block,
        blocks_cumulated.hosts_before_block,
        budgets.pages_fetched
        - blocks_cumulated.pages_before_block as pages_fetched_in_block

    from budgets
    {{ asof_join(
        'inner', 'blocks_cumulated', 'blocks_cumulated', 'budgets',
        ['classifier_id', 'policy_id', 'random_seed'],
        'budgets.pages_fetched', 'pages_before_block'
    ) }}
)

select * from budget_blocks
