-- prefix_sum_to_limit (macros/prefix_sums.sql) against the one window it replaces, on
-- 3,000 rows in 3 partitions, each under six limits (none, 0, a third and half of the
-- partition's total, the total, past it): blocks of 100 rows of a position, and blocks
-- of a 128-bit random order (order_block(), about a row a block), amounts of 0
-- included. What the plan reads of the sum must agree: the pages a row takes under the
-- limit, whether it ends within it (a row with an amount), whether it starts before
-- it; and in the block where the limit falls the sum itself. Returns the rows where
-- they differ: none.

with

numbers as (
    select {{ unnest_values(range(1, 3001) | list, 'bigint') }} as n
),

limit_cases as (
    select {{ unnest_values(range(6) | list, 'integer') }} as limit_case
),

summed_rows as (
    select
        numbers.n % 3 as part_id,
        limit_cases.limit_case,
        numbers.n as row_position,
        {{ md5_number("cast(numbers.n as string)") }} as random_order,
        (numbers.n * 7) % 5 as amount

    from numbers
    cross join limit_cases
),

part_totals as (
    select
        summed_rows.part_id,
        summed_rows.limit_case,
        sum(summed_rows.amount) as total_amount

    from summed_rows
    group by all
),

part_limits as (
    select
        part_totals.part_id,
        part_totals.limit_case,
        case part_totals.limit_case
            when 1 then 0
            when 2 then {{ int_div('part_totals.total_amount', 3) }}
            when 3 then {{ int_div('part_totals.total_amount', 2) }} + 1
            when 4 then part_totals.total_amount
            when 5 then part_totals.total_amount + 5
        end as amount_limit

    from part_totals
),

-- the two orders: a position in blocks of 100 rows, a random order in order_block()'s
{%- set orders = [
    ('position', int_div('summed_rows.row_position', 100), 'row_position'),
    ('random', order_block('summed_rows.random_order'), 'random_order'),
] %}

by_blocks as (
    {%- for order_kind, block, order_column in orders %}
        select
            '{{ order_kind }}' as order_kind,
            block_sums.part_id,
            block_sums.limit_case,
            block_sums.row_position,
            block_sums.amount,
            block_sums.prefix_limit,
            block_sums.is_limit_block,
            block_sums.amount_before

        from {{ prefix_sum_to_limit(
            'summed_rows',
            ['part_id', 'limit_case'],
            [block],
            [order_column],
            'amount',
            'part_limits',
            'amount_limit',
            'amount_before'
        ) }} as block_sums
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
),

by_windows as (
    {%- for order_kind, block, order_column in orders %}
        select
            '{{ order_kind }}' as order_kind,
            summed_rows.part_id,
            summed_rows.limit_case,
            summed_rows.row_position,
            coalesce(
                sum(summed_rows.amount) over (
                    partition by summed_rows.part_id, summed_rows.limit_case
                    order by summed_rows.{{ order_column }}
                    rows between unbounded preceding and 1 preceding
                ),
                0
            ) as amount_before

        from summed_rows
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
),

compared as (
    select
        coalesce(by_windows.order_kind, by_blocks.order_kind) as order_kind,
        coalesce(by_windows.limit_case, by_blocks.limit_case) as limit_case,
        coalesce(by_windows.row_position, by_blocks.row_position) as row_position,
        by_blocks.amount,
        by_blocks.prefix_limit,
        by_blocks.is_limit_block,
        by_windows.amount_before as window_amount_before,
        by_blocks.amount_before as block_amount_before

    from by_windows
    full outer join by_blocks
        on
            by_windows.order_kind = by_blocks.order_kind
            and by_windows.part_id = by_blocks.part_id
            and by_windows.limit_case = by_blocks.limit_case
            and by_windows.row_position = by_blocks.row_position
)

select *
from compared
where
    window_amount_before is null
    or block_amount_before is null
    or (
        (is_limit_block or prefix_limit is null)
        and window_amount_before != block_amount_before
    )
    or least(amount, greatest(prefix_limit - window_amount_before, 0))
    != least(amount, greatest(prefix_limit - block_amount_before, 0))
    or (
        amount > 0
        and (window_amount_before + amount <= prefix_limit)
        != (block_amount_before + amount <= prefix_limit)
    )
    or (window_amount_before < prefix_limit) != (block_amount_before < prefix_limit)
