{# Combinations of the given columns that occur more than once: a compound key check.
   Grouping a 165M-row table on its text keys takes a minute; grouping it on one 64-bit hash
   of them first takes a third of that, and only the rows whose hash repeats (a repeated key,
   or a collision) are then grouped on the keys themselves. #}
{% test unique_combination_of_columns(model, combination_of_columns) %}

    {%- set columns = combination_of_columns | join(', ') %}

    with

    repeated_hashes as (
        select {{ key_hash(combination_of_columns) }} as key_hash
        from {{ model }}
        group by {{ key_hash(combination_of_columns) }}
        having count(*) > 1
    )

    select
        {{ columns }},
        count(*) as duplicate_count
    from {{ model }}
    where {{ key_hash(combination_of_columns) }} in (select repeated_hashes.key_hash from repeated_hashes)
    group by {{ columns }}
    having count(*) > 1

{% endtest %}
