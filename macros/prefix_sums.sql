{# Why: the crawl plan walks queues of every host of a crawl (335M at a real
   crawl's size) with running sums: the pages before each segment decide what it gets.
   As one window over the ordered partition the database holds each partition whole,
   and at 42M hosts the plan's walk passed an 8 GB spill cap (issue 35,
   docs/performance.md). The same sum in two parts holds no such partition: the rows are
   cut into blocks by keys that follow the order (the queue step, the leading 16 bits of
   a 128-bit random order: order_block()), and a row's sum before it is the sum of the
   blocks before its block (a window over the blocks' totals: a few thousand rows) plus
   its block's rows before it (a window per block: small partitions, sorted and spilled
   one at a time). Exact: the same rows are summed, in the same order. #}

{# prefix_sum_by_blocks(relation, partition_by, blocks, order_by, amount, alias): a
   parenthesised query of relation's rows (and a `prefix_block_<i>` column per block
   key) with `alias`, the sum of `amount` over the rows of the same partition before the
   row in `order_by` order, 0 for the first. `blocks` are expressions over the
   relation's columns (qualified by its name) that never decrease along `order_by`
   within a partition; `partition_by`, `order_by` and `amount` name its columns. #}
{% macro prefix_sum_by_blocks(
    relation, partition_by, blocks, order_by, amount, alias
) -%}
    {%- set block_columns = [] -%}
    {%- set block_selects = [] -%}
    {%- for block in blocks -%}
        {%- do block_columns.append('prefix_block_' ~ loop.index) -%}
        {%- do block_selects.append(block ~ ' as prefix_block_' ~ loop.index) -%}
    {%- endfor -%}
    {%- set keys = partition_by + block_columns -%}
    (
        with

        blocked_rows as (
            select
                {{ relation }}.*,
                {{ block_selects | join(', ') }}

            from {{ relation }}
        ),

        block_totals as (
            select
                {{ qualified_columns('blocked_rows', keys) }},
                sum(blocked_rows.{{ amount }}) as block_amount

            from blocked_rows
            group by all
        ),

        blocks_before as (
            select
                {{ qualified_columns('block_totals', keys) }},
                coalesce(
                    sum(block_totals.block_amount) over (
                        partition by {{ qualified_columns('block_totals', partition_by) }}
                        order by {{ qualified_columns('block_totals', block_columns) }}
                        rows between unbounded preceding and 1 preceding
                    ),
                    0
                ) as amount_before_block

            from block_totals
        )

        select
            blocked_rows.*,
            blocks_before.amount_before_block
            + coalesce(
                sum(blocked_rows.{{ amount }}) over (
                    partition by {{ qualified_columns('blocked_rows', keys) }}
                    order by {{ qualified_columns('blocked_rows', order_by) }}
                    rows between unbounded preceding and 1 preceding
                ),
                0
            ) as {{ alias }}

        from blocked_rows
        inner join blocks_before
            on {{ columns_match('blocked_rows', 'blocks_before', keys) }}
    )
{%- endmacro %}
