{%- set block_size = var('ordering_block_size') %}

-- The first of the host orderings' running sums in two steps (docs/definitions.md
-- A4). A running sum over every host of every order is slow at 77M rows; instead the
-- positions are cut into blocks of `ordering_block_size`, the blocks summed here and
-- cumulated next (int_host_ordering_budget_blocks), and hosts cumulated only inside the
-- block where a budget ends (int_host_ordering_boundaries). The numbers are those of
-- one running sum.
--
-- One pass over the ordered hosts gives both the block sums and the place where each
-- TLD is first met in each order (a budget reaches the TLDs first met at or before its
-- boundary host).

with

hosts_to_order as (
    select * from {{ ref('int_host_ordering_hosts') }}
),

host_positions as (
    select * from {{ ref('int_host_ordering_positions') }}
),

-- Every classifier's hosts in every order (77M rows at paper scale, never stored).
hosts_ordered as (
    select
        hosts_to_order.classifier_id,
        host_positions.policy_id,
        host_positions.random_seed,
        host_positions.order_position,
        hosts_to_order.page_count,
        hosts_to_order.hq_page_count,
        hosts_to_order.tld_id
    from hosts_to_order
    inner join host_positions
        on hosts_to_order.host_id = host_positions.host_id
    where host_positions.classifier_id is null
    union all
    select
        hosts_to_order.classifier_id,
        host_positions.policy_id,
        host_positions.random_seed,
        host_positions.order_position,
        hosts_to_order.page_count,
        hosts_to_order.hq_page_count,
        hosts_to_order.tld_id
    from hosts_to_order
    inner join host_positions
        on
            hosts_to_order.classifier_id = host_positions.classifier_id
            and hosts_to_order.host_id = host_positions.host_id
),

ordered_host_sums as (
    select
        hosts_ordered.classifier_id,
        hosts_ordered.policy_id,
        hosts_ordered.random_seed,
        {{ int_div('hosts_ordered.order_position', block_size) }} as position_block,
        hosts_ordered.tld_id,
        grouping(hosts_ordered.tld_id) = 1 as is_block_sum,  -- noqa: RF03
        sum(hosts_ordered.page_count) as page_count,
        sum(hosts_ordered.hq_page_count) as hq_page_count,
        count(*) as host_count,
        min(hosts_ordered.order_position) as first_position

    from hosts_ordered
    -- sqlfluff's duckdb dialect does not parse grouping sets yet
    -- noqa: disable=all
    group by grouping sets (
        (
            hosts_ordered.classifier_id,
            hosts_ordered.policy_id,
            hosts_ordered.random_seed,
            position_block
        ),
        (
            hosts_ordered.classifier_id,
            hosts_ordered.policy_id,
            hosts_ordered.random_seed,
            hosts_ordered.tld_id
        )
    )
    -- noqa: enable=all
)

select * from ordered_host_sums
