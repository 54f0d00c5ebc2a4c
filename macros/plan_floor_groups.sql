{#- Why: the crawl plan's floors (vars plan_language_floors, plan_tld_category_floors)
    are read by two steps (int_plan_scenarios, int_plan_floors): checked once, here.
    Returns a list of (dimension, value, share), refusing shares outside [0, 1] and
    floors that with the exploration share could not all be met (their shares and
    plan_exploration_share summed above 1). -#}
{% macro plan_floor_groups() -%}
    {%- set groups = [] %}
    {%- set total = namespace(all=var('plan_exploration_share') | float) %}
    {%- for dimension, floors in [
        ('language_stratum', var('plan_language_floors')),
        ('tld_macro_category', var('plan_tld_category_floors')),
    ] %}
        {%- if floors is not none and floors is not mapping %}
            {{ exceptions.raise_compiler_error(
                "the " ~ dimension ~ " floors are a mapping of value to share, not " ~ floors
            ) }}
        {%- endif %}
        {%- for value, share in (floors or {}).items() | sort %}
            {%- if share is not number or share < 0 or share > 1 %}
                {{ exceptions.raise_compiler_error(
                    "the " ~ dimension ~ " floor of '" ~ value ~ "' is a share of the budget"
                    ~ " in [0, 1], not " ~ share
                ) }}
            {%- endif %}
            {%- set total.all = total.all + share %}
            {%- do groups.append((dimension, value, share)) %}
        {%- endfor %}
    {%- endfor %}
    {%- if total.all > 1 + 1e-12 %}
        {{ exceptions.raise_compiler_error(
            "the plan's floors and plan_exploration_share add up to " ~ total.all
            ~ " of the budget: at most 1, so that every floor can be met"
        ) }}
    {%- endif %}
    {{- return(groups) }}
{%- endmacro %}
