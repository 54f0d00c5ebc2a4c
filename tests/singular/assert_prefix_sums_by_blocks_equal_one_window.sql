-- prefix_sum_by_blocks (macros/prefix_sums.sql) against the one window it replaces, on
-- 3,000 rows in 3 partitions: blocks of 100 rows of a position (several rows a block),
-- and blocks of a 128-bit random order (order_block(), about a row a block), amounts
-- of 0 included. Returns the rows where the two sums differ: none.

with

numbers as (
    select {{ unnest_values(range(1, 3001) | list, 'bigint') }} as n
),

summed_rows as (
    select
        numbers.n % 3 as part_id,
        numbers.n as row_position,
        {{ md5_number("cast(numbers.n as string)") }} as random_order,
        (numbers.n * 7) % 5 as amount

    from numbers
),

by_position_blocks as (
    select
        'position' as order_kind,
        row_position_sums.part_id,
        row_position_sums.row_position,
        row_position_sums.amount_before

    from {{ prefix_sum_by_blocks(
        'summed_rows',
        ['part_id'],
        [int_div('summed_rows.row_position', 100)],
        ['row_position'],
        'amount',
        'amount_before'
    ) }} as row_position_sums
),

by_random_blocks as (
    select
        'random' as order_kind,
        random_sums.part_id,
        random_sums.row_position,
        random_sums.amount_before

    from {{ prefix_sum_by_blocks(
        'summed_rows',
        ['part_id'],
        [order_block('summed_rows.random_order')],
        ['random_order'],
        'amount',
        'amount_before'
    ) }} as random_sums
),

by_windows as (
    select
        'position' as order_kind,
        summed_rows.part_id,
        summed_rows.row_position,
        coalesce(
            sum(summed_rows.amount) over (
                partition by summed_rows.part_id
                order by summed_rows.row_position
                rows between unbounded preceding and 1 preceding
            ),
            0
        ) as amount_before

    from summed_rows
    union all
    select
        'random' as order_kind,
        summed_rows.part_id,
        summed_rows.row_position,
        coalesce(
            sum(summed_rows.amount) over (
                partition by summed_rows.part_id
                order by summed_rows.random_order
                rows between unbounded preceding and 1 preceding
            ),
            0
        ) as amount_before

    from summed_rows
),

by_blocks as (
    select * from by_position_blocks
    union all
    select * from by_random_blocks
)

select
    coalesce(by_windows.order_kind, by_blocks.order_kind) as order_kind,
    coalesce(by_windows.row_position, by_blocks.row_position) as row_position,
    by_windows.amount_before as window_amount_before,
    by_blocks.amount_before as block_amount_before

from by_windows
full outer join by_blocks
    on
        by_windows.order_kind = by_blocks.order_kind
        and by_windows.row_position = by_blocks.row_position
where
    by_windows.row_position is null
    or by_blocks.row_position is null
    or by_windows.amount_before != by_blocks.amount_before
