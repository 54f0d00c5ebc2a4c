-- Each host of each classifier's universe in each order compared with random (hc, pr,
-- cc_coverage, oracle), with the pages before it and the sums of squares and products
-- of its pages and HQ pages up to it and over the order: what the bootstrap's first
-- order needs of the orders (docs/definitions.md B, "Yields at a budget"). No rows
-- when the intervals are off.

with

host_positions as (
    select * from {{ ref('int_host_ordering_positions') }}
    where random_seed = 0 and {{ var('bootstrap_replicates') | int }} > 0
),

hosts_to_order as (
    select * from {{ ref('int_host_ordering_hosts') }}
),

host_places as (
    select
        hosts_to_order.classifier_id,
        host_positions.policy_id,
        hosts_to_order.host_id,
        host_positions.order_position,
        hosts_to_order.page_count,
        hosts_to_order.hq_page_count,
        -- (the window in brackets: Spark reads `up_to - x` as one identifier)
        (sum(hosts_to_order.page_count) over up_to) - hosts_to_order.page_count
            as pages_before,
        sum(hosts_to_order.page_count * hosts_to_order.page_count) over up_to
            as page_squares_up_to,
        sum(hosts_to_order.page_count * hosts_to_order.page_count) over whole_order
            as page_squares,
        -- the ratio's variance sums HQ_h^2, HQ_h p_h and p_h^2 before the boundary and
        -- over the order
        sum(power(hosts_to_order.hq_page_count, 2)) over up_to as hq_squares_up_to,
        sum(hosts_to_order.hq_page_count * hosts_to_order.page_count) over up_to
            as hq_page_products_up_to,
        sum(power(hosts_to_order.hq_page_count, 2)) over whole_order as hq_squares,
        sum(hosts_to_order.hq_page_count * hosts_to_order.page_count) over whole_order
            as hq_page_products,
        sum(hosts_to_order.hq_page_count) over whole_order as hq_pages

    from hosts_to_order
    inner join host_positions
        on
            hosts_to_order.host_id = host_positions.host_id
            and coalesce(host_positions.classifier_id, hosts_to_order.classifier_id)
            = hosts_to_order.classifier_id
    window
        whole_order as (
            partition by hosts_to_order.classifier_id, host_positions.policy_id
        ),
        up_to as (
            partition by hosts_to_order.classifier_id, host_positions.policy_id
            order by host_positions.order_position
            rows between unbounded preceding and current row
        )
)

select * from host_places
