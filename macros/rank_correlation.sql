{# The mid-rank of a value within its group: tied values share the average of the
   ranks they span, as scipy.stats.rankdata(method='average') does. Spearman's rho is
   corr() of two mid-ranks. rank() is the first rank of the value's ties and count(*)
   over the same ordered window (whose default frame ends with the row's last peer)
   the last, so one sort gives both. #}
{% macro mid_rank(value, partition_by) -%}
    (
        rank() over (partition by {{ partition_by }} order by {{ value }})
        + count(*) over (partition by {{ partition_by }} order by {{ value }})
    ) / 2
{%- endmacro %}

{# Weighted Pearson correlation of x and y with weights w, given each group's
   weighted means (computed first, so that the sums are of centred terms and do not
   cancel): sum w(x - mx)(y - my) / sqrt(sum w(x - mx)^2 * sum w(y - my)^2). #}
{% macro weighted_corr(x, y, weight, x_mean, y_mean) -%}
    sum({{ weight }} * ({{ x }} - {{ x_mean }}) * ({{ y }} - {{ y_mean }}))
    / nullif(
        sqrt(
            sum({{ weight }} * power({{ x }} - {{ x_mean }}, 2))
            * sum({{ weight }} * power({{ y }} - {{ y_mean }}, 2))
        ),
        0
    )
{%- endmacro %}

{# A correlation as reported: null where it is undefined (fewer than two rows, or no
   variance: DuckDB's corr() gives NaN there, which would compare above 1), and clamped
   to [-1, 1] against rounding (a perfect correlation summed in another order by
   parallel threads can come out as 1.0000000000000002). #}
{% macro bounded_correlation(expression) -%}
    case
        when {{ expression }} is null or isnan({{ expression }}) then null
        -- greatest() and least() skip nulls, hence the test above
        else greatest(-1.0, least(1.0, {{ expression }}))
    end
{%- endmacro %}

{# spearman_influence(name, pairs, groups, keys, x, y, weight=none): CTEs, to be placed
   in a with clause, ending in `name`: a row per row of `pairs` whose group has a defined
   rho, its `groups` and `keys` columns and `influence`, the derivative of the group's
   Spearman rho (mid-ranks) with respect to the row's bootstrap weight at the sample
   (docs/definitions.md B, "Rank statistics"): psi_h = (G_h - C_ab (F_h / C_aa + H_h /
   C_bb) / 2) / sqrt(C_aa C_bb), a and b the mid-ranks less 1/2 of x and y, C their sums
   of (co)squares about n / 2 and G, F, H those sums' derivatives. Three sorts: by x
   (a), by y (b, and a summed in y's order), by x again (b summed in x's order), then
   the C sums over each group beside its rows; a sum
   of a rank over its own order is a function of counts (the ranks up to c sum to c^2 /
   2). With `weight`, a row stands for that many hosts alike (the same x and y): counts
   become sums of the weight, and `influence` is each of its hosts' (the row's total is
   weight times it). Windows spelled out in full: Spark's cannot extend another. #}
{% macro spearman_influence(name, pairs, groups, keys, x, y, weight=none) -%}
    {%- set partition = 'partition by ' ~ groups | join(', ') -%}
    {%- set carried = (groups + keys) | join(', ') -%}
    {#- where a row stands for `weight` hosts: its weight carried along, counts and the
        ties' counts its sums, and each rank summed times it -#}
    {%- set weighted = weight is not none -%}
    {%- set carried_weight = ', host_weight' if weighted else '' -%}
    {%- set hosts = 'sum(host_weight)' if weighted else 'count(*)' -%}
    {%- set times = 'host_weight * ' if weighted else '' -%}
    {%- set peers = 'range between current row and current row' -%}
    {%- if weighted -%}
        {%- set x_ties = 'sum(host_weight) over (' ~ partition ~ ' order by x_value '
            ~ peers ~ ')' -%}
        {%- set y_ties = 'sum(host_weight) over (' ~ partition ~ ' order by y_value '
            ~ peers ~ ')' -%}
    {%- else -%}
        {%- set x_ties = 'count(*) over up_to - rank() over up_to + 1' -%}
        {%- set y_ties = x_ties -%}
    {%- endif %}
-- the pairs with their weights (1 each unless `weight`), under the names used below
{{ name }}_weighted as (
    select
        {{ carried }},
        {{ weight if weighted else 1 }} as host_weight,
        {{ x }} as x_value,
        {{ y }} as y_value
    from {{ pairs }}
),

-- a = rows below x_h + half the ties (c_le - t / 2, t the ties with x_h), b likewise
{{ name }}_by_x as (
    select
        {{ carried }}{{ carried_weight }},
        x_value,
        y_value,
        {{ hosts }} over up_to as x_count_le,
        {{ x_ties }} as x_ties
    from {{ name }}_weighted
    window up_to as ({{ partition }} order by x_value)
),

-- sums of a over y <= y_h and over y's ties with y_h (a over y >= y_h is n^2 / 2 less the
-- first plus the second: a frame that ends at `unbounded following` Spark recomputes
-- for every row, quadratic in the group)
{{ name }}_by_y as (
    select
        {{ carried }}{{ carried_weight }},
        x_value,
        y_value,
        x_count_le,
        x_ties,
        x_count_le - x_ties / 2 as x_rank,
        {{ hosts }} over up_to as y_count_le,
        {{ y_ties }} as y_ties,
        {{ hosts }} over whole_group as host_count,
        sum({{ times }}(x_count_le - x_ties / 2)) over up_to as x_rank_le,
        sum({{ times }}(x_count_le - x_ties / 2)) over ties as x_rank_tied
    from {{ name }}_by_x
    window
        whole_group as ({{ partition }}),
        up_to as ({{ partition }} order by y_value),
        ties as ({{ partition }} order by y_value {{ peers }})
),

-- sums of b over x <= x_h and over x's ties with x_h
{{ name }}_by_x_again as (
    select
        {{ carried }}{{ carried_weight }},
        x_count_le,
        x_ties,
        x_rank,
        y_count_le,
        y_ties,
        host_count,
        x_rank_le,
        x_rank_tied,
        y_count_le - y_ties / 2 as y_rank,
        sum({{ times }}(y_count_le - y_ties / 2)) over up_to as y_rank_le,
        sum({{ times }}(y_count_le - y_ties / 2)) over ties as y_rank_tied
    from {{ name }}_by_y
    window
        up_to as ({{ partition }} order by x_value),
        ties as ({{ partition }} order by x_value {{ peers }})
),

-- sum_i K(x_h, x_i) v_i (K(s, t) = 1 if s < t, 1/2 if s = t) is n^2 / 2 - (sum over
-- x <= x_h) + (sum over x's ties) / 2 (either rank sums to n^2 / 2); for v = a itself,
-- n^2 / 2 - c_le^2 / 2 + t a_h / 2.
{{ name }}_terms as (
    select
        {{ carried }}{{ carried_weight }},
        x_rank,
        y_rank,
        host_count,
        x_rank * y_rank + power(host_count, 2) - y_rank_le - x_rank_le
        + (y_rank_tied + x_rank_tied) / 2 - 3 * power(host_count, 2) / 4 as cross_term,
        power(x_rank, 2) + power(host_count, 2) - power(x_count_le, 2)
        + x_ties * x_rank - 3 * power(host_count, 2) / 4 as x_term,
        power(y_rank, 2) + power(host_count, 2) - power(y_count_le, 2)
        + y_ties * y_rank - 3 * power(host_count, 2) / 4 as y_term
    from {{ name }}_by_x_again
),

-- C_aa = sum a^2 - n^3 / 4 (and so on): the ranks' sums of squares about their mean
-- n / 2, beside each row (a window over its group, so that the terms are read once:
-- read twice, DuckDB holds them to the query's end and Spark computes them twice)
{{ name }}_moments as (
    select
        {{ carried }},
        cross_term,
        x_term,
        y_term,
        sum({{ times }}power(x_rank, 2)) over whole_group - power(host_count, 3) / 4
            as x_moment,
        sum({{ times }}power(y_rank, 2)) over whole_group - power(host_count, 3) / 4
            as y_moment,
        sum({{ times }}x_rank * y_rank) over whole_group - power(host_count, 3) / 4
            as cross_moment
    from {{ name }}_terms
    window whole_group as ({{ partition }})
),

{{ name }} as (
    select
        {{ carried }},
        (cross_term - cross_moment / 2 * (x_term / x_moment + y_term / y_moment))
        / sqrt(x_moment * y_moment) as influence
    from {{ name }}_moments
    -- rho is undefined where either variable is constant in the group
    where x_moment > 0 and y_moment > 0
)
{%- endmacro %}
