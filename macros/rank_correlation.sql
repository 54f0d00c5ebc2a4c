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
