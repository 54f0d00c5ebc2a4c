{# Rows for which a boolean SQL expression over the model's columns is not true. #}
{% test expression_is_true(model, expression, where_clause='true') %}

    select *
    from {{ model }}
    where ({{ where_clause }}) and not coalesce(({{ expression }}), false)

{% endtest %}
