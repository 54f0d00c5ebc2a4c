{#- Why: a host's phase in the crawl plan is read off its allocation in two marts
    (plan_host_fetch_budget, and plan_changes before and after): one definition. Null for
    a host without an allocation (a host the other crawl's plan has and this one lacks). -#}
{% macro plan_phase(allocation) -%}
    case
        when {{ allocation }}.pages_to_fetch = 0 then 'skip'
        when {{ allocation }}.quality_group = 'unreliable_quality' then 'explore'
        when {{ allocation }}.pages_deepened > 0 then 'deepen'
        when {{ allocation }}.pages_to_fetch > 0 then 'sample'
    end
{%- endmacro %}
