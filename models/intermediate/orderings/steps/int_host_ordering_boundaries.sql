{%- set block_size = var('ordering_block_size') %}

-- The boundary host of each host ordering's budget (docs/definitions.md A4): the last
-- host whose first page fits in the budget. Hosts before it are taken whole; it adds
-- the share of its pages the budget leaves (the expected-value rule). The hosts of the
-- blocks where budgets end (int_host_ordering_budget_blocks) are found from the (small)
-- list of blocks, the shared orders' positions first, then each classifier's hosts
-- among them, and cumulated from the start of their block.

with

budget_blocks as (
    select * from {{ ref('int_host_ordering_budget_blocks') }}
),

host_positions as (
    select * from {{ ref('int_host_ordering_positions') }}
),

hosts_to_order as (
    select * from {{ ref('int_host_ordering_hosts') }}
),

boundary_blocks as (
    select distinct
        budget_blocks.classifier_id,
        budget_blocks.policy_id,
        budget_blocks.random_seed,
        budget_blocks.position_block

    from budget_blocks
),

boundary_block_positions as (
    select host_positions.*
    from host_positions
    semi join boundary_blocks
        on
            host_positions.policy_id = boundary_blocks.policy_id
            and host_positions.random_seed = boundary_blocks.random_seed
            and {{ int_div('host_positions.order_position', block_size) }}
            = boundary_blocks.position_block
    where host_positions.classifier_id is null
    union all
    select host_positions.*
    from host_positions
    semi join boundary_blocks
        on
            host_positions.classifier_id = boundary_blocks.classifier_id
            and host_positions.policy_id = boundary_blocks.policy_id
            and {{ int_div('host_positions.order_position', block_size) }}
            = boundary_blocks.position_block
),

boundary_block_hosts as (
    select
        hosts_to_order.classifier_id,
        boundary_block_positions.policy_id,
        boundary_block_positions.random_seed,
        {{ int_div('boundary_block_positions.order_position', block_size) }}
            as position_block,
        boundary_block_positions.order_position,
        hosts_to_order.page_count,
        hosts_to_order.hq_page_count

    from boundary_block_positions
    inner join hosts_to_order
        on
            boundary_block_positions.host_id = hosts_to_order.host_id
            and coalesce(
                boundary_block_positions.classifier_id, hosts_to_order.classifier_id
            ) = hosts_to_order.classifier_id
    semi join boundary_blocks
        on
            hosts_to_order.classifier_id = boundary_blocks.classifier_id
            and boundary_block_positions.policy_id = boundary_blocks.policy_id
            and boundary_block_positions.random_seed = boundary_blocks.random_seed
            and {{ int_div('boundary_block_positions.order_position', block_size) }}
            = boundary_blocks.position_block
),

boundary_block_hosts_cumulated as (
    select
        boundary_block_hosts.*,
        (sum(boundary_block_hosts.page_count) over hosts_so_far)
        - boundary_block_hosts.page_count as pages_before_in_block,
        (sum(boundary_block_hosts.hq_page_count) over hosts_so_far)
        - boundary_block_hosts.hq_page_count as hq_pages_before_in_block,
        count(*) over hosts_so_far as host_rank_in_block

    from boundary_block_hosts
    window
        hosts_so_far as (
            partition by
                boundary_block_hosts.classifier_id,
                boundary_block_hosts.policy_id,
                boundary_block_hosts.random_seed,
                boundary_block_hosts.position_block
            order by boundary_block_hosts.order_position
            rows between unbounded preceding and current row
        )
),

budget_boundaries as (
    select
        budget_blocks.classifier_id,
        budget_blocks.policy_id,
        budget_blocks.random_seed,
        budget_blocks.budget_share,
        budget_blocks.pages_fetched,
        budget_blocks.total_page_count,
        budget_blocks.total_hq_page_count,
        boundary.order_position as boundary_position,
        budget_blocks.pages_before_block
        + boundary.pages_before_in_block as pages_before,
        budget_blocks.hq_pages_before_block
        + boundary.hq_pages_before_in_block as hq_pages_before,
        budget_blocks.hosts_before_block + boundary.host_rank_in_block as host_count,
        boundary.page_count as boundary_page_count,
        boundary.hq_page_count as boundary_hq_page_count

    from budget_blocks
    {{ asof_join(
        'inner', 'boundary_block_hosts_cumulated', 'boundary', 'budget_blocks',
        ['classifier_id', 'policy_id', 'random_seed', 'position_block'],
        'budget_blocks.pages_fetched_in_block', 'pages_before_in_block'
    ) }}
)

select * from budget_boundaries
