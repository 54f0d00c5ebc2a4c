{# Why: the crawl plan walks queues of every host of a crawl (335M at a real
   crawl's size) with running sums, and what each segment gets depends only on where its
   running sum stands against a limit (the budget, a floor's reserve, the sample's cap):
   taken whole below it, not at all past it, in part where the limit falls. As one
   window over the ordered partition the database buffers every row of the queue, and
   at 42M hosts the plan's walk passed an 8 GB spill cap (issue 35,
   docs/performance.md). So the rows are cut into blocks by keys that follow the order
   (the queue step, the leading 16 bits of a 128-bit random order: order_block()); the
   blocks' totals (a few thousand rows) place each block against the limit; only the
   rows of the block where the limit falls need their exact running sum, a window over
   that block alone. Every other row streams through a join with the blocks. #}

{# prefix_sum_to_limit(relation, partition_by, blocks, order_by, amount, limits,
   limit_column, alias): a parenthesised query of relation's rows (with a
   `prefix_block_<i>` column per block key, `prefix_limit` and `is_limit_block`) and
   `alias`: for a row of the block where its partition's limit falls (its running total
   passes the limit inside the block), or of a partition without a limit, the sum of
   `amount` over the rows of the same partition before it in `order_by` order, exactly;
   for any other row the sum before its block's first row, which sides with the limit as
   the exact sum does (every row of a block that ends at or below the limit has
   alias + amount <= limit; every row of a block that starts at or past it has alias >=
   limit, and so alias + amount > limit when its amount is above 0). `blocks` are expressions over the relation's columns (qualified by its name)
   that never decrease along `order_by` within a partition; `partition_by`, `order_by`
   and `amount` (never negative) name its columns; `limits` is a relation with a row per
   partition (its `partition_by` columns) and the limit in `limit_column`. #}
{% macro prefix_sum_to_limit(
    relation, partition_by, blocks, order_by, amount, limits, limit_column, alias
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

        -- each read twice (the blocks' totals and the rows; the rows off and at the
        -- limit): recomputed, not held (DuckDB would hold every row of the queue)
        blocked_rows as {{ not_materialized() }} (
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

        blocks_placed as (
            select
                {{ qualified_columns('block_totals', keys) }},
                {{ limits }}.{{ limit_column }} as prefix_limit,
                coalesce(
                    sum(block_totals.block_amount) over (
                        partition by {{ qualified_columns('block_totals', partition_by) }}
                        order by {{ qualified_columns('block_totals', block_columns) }}
                        rows between unbounded preceding and 1 preceding
                    ),
                    0
                ) as amount_before_block,
                block_totals.block_amount

            from block_totals
            left join {{ limits }}
                on {{ columns_match('block_totals', limits, partition_by) }}
        ),

        rows_placed as {{ not_materialized() }} (
            select
                blocked_rows.*,
                blocks_placed.prefix_limit,
                blocks_placed.amount_before_block,
                case
                    when blocks_placed.prefix_limit is null then true
                    else
                        blocks_placed.amount_before_block < blocks_placed.prefix_limit
                        and blocks_placed.amount_before_block
                        + blocks_placed.block_amount
                        > blocks_placed.prefix_limit
                end as is_limit_block

            from blocked_rows
            inner join blocks_placed
                on {{ columns_match('blocked_rows', 'blocks_placed', keys) }}
        )

        select
            rows_placed.*,
            rows_placed.amount_before_block as {{ alias }}

        from rows_placed
        where not rows_placed.is_limit_block
        union all
        select
            rows_placed.*,
            rows_placed.amount_before_block
            + coalesce(
                sum(rows_placed.{{ amount }}) over (
                    partition by {{ qualified_columns('rows_placed', keys) }}
                    order by {{ qualified_columns('rows_placed', order_by) }}
                    rows between unbounded preceding and 1 preceding
                ),
                0
            ) as {{ alias }}

        from rows_placed
        where rows_placed.is_limit_block
    )
{%- endmacro %}
