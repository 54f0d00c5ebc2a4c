{# Rows where a column decreases (or, with increasing=false, increases) along order_by
   within each group: cumulative curves must never step back. #}
{% test is_monotonic(model, column_name, order_by, group_by=[], increasing=true) %}

    with ordered as (
        select
            {{ column_name }} as checked_value,
            lag({{ column_name }}) over (
                {%- if group_by %} partition by {{ group_by | join(', ') }}{% endif %}
                order by {{ order_by }}
            ) as previous_value
        from {{ model }}
    )

    select *
    from ordered
    where
        previous_value is not null
        and checked_value {{ '<' if increasing else '>' }} previous_value

{% endtest %}
