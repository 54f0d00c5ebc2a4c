{# Combinations of the given columns that occur more than once: a compound key check. #}
{% test unique_combination_of_columns(model, combination_of_columns) %}

    select
        {{ combination_of_columns | join(', ') }},
        count(*) as duplicate_count
    from {{ model }}
    group by {{ combination_of_columns | join(', ') }}
    having count(*) > 1

{% endtest %}
