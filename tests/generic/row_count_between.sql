{# One failing row when the model's row count is outside [min_count, max_count]. #}
{% test row_count_between(model, min_count=0, max_count=none) %}

    with counted as (
        select count(*) as row_count
        from {{ model }}
    )

    select row_count
    from counted
    where
        row_count < {{ min_count }}
        {%- if max_count is not none %}
            or row_count > {{ max_count }}
        {%- endif %}

{% endtest %}
