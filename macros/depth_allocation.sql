{# Water-filling (docs/definitions.md A6, RQ3 depth policies, and §6, implementation
   notes): host h gets min(page_count, c * weight) pages, with the level c set so that
   the pages add up to the budget. With weight 1, c is the common depth D of uniform
   breadth (policy uniform_breadth of seeds/crawl_policies.csv); with weight =
   centrality, the HC-depth policy (hc_depth).

   Hosts saturate in order of page_count / weight, so the hosts are grouped by that
   level and walked once: with the levels below saturated and the others taking
   c * weight, a budget spends pages_below + c * weight_from_here. Each budget finds the
   span of levels it ends in (an asof join), solves for c, and collects the saturated
   hosts' HQ pages plus c * sum(weight * HQ density) of the others (expected values).

   hosts: relation with the partition columns, page_count (> 0), weight (> 0) and
   hq_page_count. budgets: relation with the partition columns and the budget column.
   Returns budgets' rows with fill_level (c), hq_expected and marginal_hq_density, the
   HQ pages a further page of budget adds (the yield curve's slope; where the budget fills
   a level exactly, the slope before it): sum(weight * HQ density) / sum(weight) of the
   hosts not yet full. #}
{% macro water_filling(hosts, budgets, partition_by, budget_pages='budget_pages') -%}
    (
        with

        fill_levels as (
            select
                {{ qualified_columns(hosts, partition_by) }},
                {{ hosts }}.page_count / {{ hosts }}.weight as fill_level,
                sum({{ hosts }}.page_count) as page_count,
                sum({{ hosts }}.weight) as weight,
                sum({{ hosts }}.hq_page_count) as hq_page_count,
                sum(
                    {{ hosts }}.hq_page_count / {{ hosts }}.page_count * {{ hosts }}.weight
                ) as hq_weight

            from {{ hosts }}
            group by all
        ),

        fill_levels_cumulated as (
            select
                fill_levels.*,
                coalesce(sum(fill_levels.page_count) over levels_below, 0) as pages_below,
                coalesce(sum(fill_levels.hq_page_count) over levels_below, 0)
                    as hq_pages_below,
                sum(fill_levels.weight) over levels_from_here as weight_from_here,
                sum(fill_levels.hq_weight) over levels_from_here as hq_weight_from_here,
                coalesce(lag(fill_levels.fill_level) over levels_in_order, 0)
                    as previous_fill_level

            from fill_levels
            window
                levels_in_order as (
                    partition by {{ partition_by | join(', ') }}
                    order by fill_levels.fill_level
                ),
                levels_below as (
                    partition by {{ partition_by | join(', ') }}
                    order by fill_levels.fill_level
                    rows between unbounded preceding and 1 preceding
                ),
                -- from this level up, as a running sum from the top level down: Spark
                -- recomputes a frame that ends at `unbounded following` for every row
                -- (quadratic: 30 minutes at paper scale); one from the start it grows
                levels_from_here as (
                    partition by {{ partition_by | join(', ') }}
                    order by fill_levels.fill_level desc
                    rows between unbounded preceding and current row
                )
        ),

        -- The pages a level c between the previous level and this one spends start at
        -- (previous level) * (weight of the unsaturated hosts) + the saturated pages.
        fill_level_spans as (
            select
                fill_levels_cumulated.*,
                fill_levels_cumulated.pages_below
                + fill_levels_cumulated.previous_fill_level
                * fill_levels_cumulated.weight_from_here as pages_at_span_start

            from fill_levels_cumulated
        )

        select
            {{ budgets }}.*,
            ({{ budgets }}.{{ budget_pages }} - fill_level_spans.pages_below)
            / fill_level_spans.weight_from_here as fill_level,
            fill_level_spans.hq_pages_below
            + ({{ budgets }}.{{ budget_pages }} - fill_level_spans.pages_below)
            / fill_level_spans.weight_from_here
            * fill_level_spans.hq_weight_from_here as hq_expected,
            fill_level_spans.hq_weight_from_here / fill_level_spans.weight_from_here
                as marginal_hq_density

        from {{ budgets }}
        {{ asof_join(
            'inner', 'fill_level_spans', 'fill_level_spans', budgets, partition_by,
            budgets ~ '.' ~ budget_pages, 'pages_at_span_start'
        ) }}
    )
{%- endmacro %}

{# Greedy whole-host fill (docs/definitions.md A4, RQ2 host orderings, and A6): hosts in
   the given order are taken whole while the budget lasts; the boundary host gives the
   share of its HQ pages that the budget left covers of its pages (the expected-value
   rule). The depth policies' oracle and sample_then_deepen's deepening use it.

   A running sum over millions of hosts is slow and memory-hungry in DuckDB (a segment
   tree per partition), so the walk takes two steps, as the host orderings do
   (int_host_ordering_block_sums, int_host_ordering_boundaries): hosts are numbered in
   order and summed per block of `block_size` positions; the blocks' running sums (a few
   thousand rows) locate the block where each budget ends, and only the hosts of those
   blocks are summed one by one. The numbers are those of one running sum.

   hosts: relation with the partition columns, page_count (> 0), hq_page_count and the
   columns order_by names. budgets: relation with the partition columns and the budget
   column. Returns budgets' rows with hq_expected, null where the budget is not positive
   or there is no host, and boundary_hq_density, the boundary host's HQ density (the
   slope of the yield curve's step the budget ends on). #}
{% macro greedy_fill(
    hosts, budgets, partition_by, order_by, budget_pages='budget_pages', block_size=1024
) -%}
    {%- set walk_position -%}
        row_number() over (
            partition by {{ partition_by | join(', ') }} order by {{ order_by }}
        )
    {%- endset %}
    (
        with

        hosts_placed as (
            select
                {{ qualified_columns(hosts, partition_by) }},
                {{ hosts }}.page_count,
                {{ hosts }}.hq_page_count,
                {{ int_div(walk_position, block_size) }} as walk_block,
                {{ walk_position }} as walk_position

            from {{ hosts }}
        ),

        blocks_walked as (
            select
                {{ qualified_columns('hosts_placed', partition_by) }},
                hosts_placed.walk_block,
                (sum(sum(hosts_placed.page_count)) over blocks_so_far)
                - sum(hosts_placed.page_count) as pages_before_block,
                (sum(sum(hosts_placed.hq_page_count)) over blocks_so_far)
                - sum(hosts_placed.hq_page_count) as hq_pages_before_block

            from hosts_placed
            group by {{ qualified_columns('hosts_placed', partition_by) }},
                hosts_placed.walk_block
            window
                blocks_so_far as (
                    partition by {{ qualified_columns('hosts_placed', partition_by) }}
                    order by hosts_placed.walk_block
                    rows between unbounded preceding and current row
                )
        ),

        -- the block where each budget ends: the last that starts before it is spent
        budget_blocks as (
            select
                {{ budgets }}.*,
                blocks_walked.walk_block,
                blocks_walked.pages_before_block,
                blocks_walked.hq_pages_before_block

            from {{ budgets }}
            {{ asof_join(
                'left', 'blocks_walked', 'blocks_walked', budgets, partition_by,
                budgets ~ '.' ~ budget_pages, 'pages_before_block'
            ) }}
        ),

        boundary_block_hosts as (
            select
                hosts_placed.*,
                (sum(hosts_placed.page_count) over hosts_so_far)
                - hosts_placed.page_count as pages_before_in_block,
                (sum(hosts_placed.hq_page_count) over hosts_so_far)
                - hosts_placed.hq_page_count as hq_pages_before_in_block

            from hosts_placed
            semi join budget_blocks
                on
                    {{ columns_match('hosts_placed', 'budget_blocks', partition_by) }}
                    and hosts_placed.walk_block = budget_blocks.walk_block
            window
                hosts_so_far as (
                    partition by
                        {{ qualified_columns('hosts_placed', partition_by) }},
                        hosts_placed.walk_block
                    order by hosts_placed.walk_position
                    rows between unbounded preceding and current row
                )
        )

        select
            {{ star_exclude(
                'budget_blocks',
                ['walk_block', 'pages_before_block', 'hq_pages_before_block']
            ) }},
            -- a budget beyond the last host takes it whole, no more
            budget_blocks.hq_pages_before_block
            + boundary_block_hosts.hq_pages_before_in_block
            + least(
                budget_blocks.{{ budget_pages }}
                - budget_blocks.pages_before_block
                - boundary_block_hosts.pages_before_in_block,
                boundary_block_hosts.page_count
            )
            / boundary_block_hosts.page_count
            * boundary_block_hosts.hq_page_count as hq_expected,
            boundary_block_hosts.hq_page_count / boundary_block_hosts.page_count
                as boundary_hq_density

        from budget_blocks
        {{ asof_join(
            'left', 'boundary_block_hosts', 'boundary_block_hosts', 'budget_blocks',
            partition_by + ['walk_block'],
            'budget_blocks.' ~ budget_pages ~ ' - budget_blocks.pages_before_block',
            'pages_before_in_block'
        ) }}
    )
{%- endmacro %}

{# Helpers of the two above: `relation.a, relation.b` and `left.a = right.a and …`. #}
{% macro qualified_columns(relation, columns) -%}
    {{ relation }}.{{ columns | join(', ' ~ relation ~ '.') }}
{%- endmacro %}

{% macro columns_match(left, right, columns) -%}
    {%- for column in columns -%}
        {{ left }}.{{ column }} = {{ right }}.{{ column }}{{ ' and ' if not loop.last }}
    {%- endfor -%}
{%- endmacro %}

{# deepening_order(relation): the order sample-then-deepen deepens hosts in
   (docs/definitions.md A6) — densest sample first, then the sample's higher mean score,
   then the md5 of the host (tie_breaker). Its yields and its bootstrap walk it. #}
{% macro deepening_order(relation) -%}
    {{ relation }}.sample_hq_density desc,
    {{ relation }}.depth_sample_score_mean desc,
    {{ relation }}.tie_breaker asc
{%- endmacro %}
