{#- The plan's constraints, read from the vars and checked once, here. -#}
{%- set robots_policy = var('plan_robots_constraint') %}
{%- if robots_policy not in ['off', 'exclude', 'reduce'] %}
    {{ exceptions.raise_compiler_error(
        "plan_robots_constraint is off, exclude or reduce, not '" ~ robots_policy ~ "'"
    ) }}
{%- endif %}
{%- set crawl_seconds = (var('plan_crawl_days') | float) * 86400 %}
{%- set min_delay = var('plan_min_crawl_delay_seconds') | float %}
{%- if crawl_seconds <= 0 or min_delay < 0 %}
    {{ exceptions.raise_compiler_error(
        "plan_crawl_days must be above 0 and plan_min_crawl_delay_seconds at least 0"
    ) }}
{%- endif %}
{%- if var('plan_max_pages_per_host') is not none %}
    {%- set page_cap = var('plan_max_pages_per_host') | int %}
{%- elif min_delay > 0 %}
    {%- set page_cap = (crawl_seconds / min_delay) | round(0, 'floor') | int %}
{%- else %}
    {%- set page_cap = none %}
{%- endif %}
{%- if page_cap is not none and page_cap < 1 %}
    {{ exceptions.raise_compiler_error("the politeness cap must allow a page per host") }}
{%- endif %}
{%- set floors = plan_floor_groups() %}
{%- set has_robots = robots_policy != 'off' %}
{%- set has_cap = page_cap is not none %}
{%- set has_floors = floors | length > 0 %}
{#- The plan, with every constraint the vars set; then, for plan_constraint_costs, the
    plan without any and with each alone. -#}
{%- set scenarios = [('plan', 'current', has_robots, has_cap, has_floors)] %}
{%- if var('plan_constraint_costs') %}
    {%- do scenarios.extend([
        ('unconstrained', 'current', false, false, false),
        ('robots_only', 'current', has_robots, false, false),
        ('politeness_cap_only', 'current', false, has_cap, false),
        ('floors_only', 'current', false, false, has_floors),
    ]) %}
{%- endif %}
{#- and the crawl before's plan, as it would have been made then, for plan_changes #}
{%- if var('plan_changes') %}
    {%- do scenarios.append(
        ('previous_plan', 'previous', has_robots, has_cap, has_floors)
    ) %}
{%- endif %}

-- One row per way the crawl plan is computed: `plan` (every constraint the vars
-- set) and, with `plan_constraint_costs`, the plan without any constraint and with
-- each alone, so that what each costs in expected HQ is measured rather than guessed;
-- with `plan_changes`, the previous crawl's plan (`previous_plan`, on the `previous`
-- population of int_plan_hosts). The steps key their rows by scenario_id, a small
-- integer (the 30M-row windows and joins of the walk ran 2x faster keyed by integers
-- than by names); the name is joined back where a person reads it.

with

scenarios as (
    {%- for name, role, robots, cap, with_floors in scenarios %}
        select
            {{ loop.index }} as scenario_id,
            '{{ name }}' as scenario,
            '{{ role }}' as plan_role,
            '{{ robots_policy if robots else "off" }}' as robots_policy,
            {{ page_cap if cap else 'null' }}::bigint as page_cap,
            {{ crawl_seconds }}::double as crawl_seconds,
            {{ 'true' if with_floors else 'false' }} as applies_floors
        {%- if not loop.last %}
            union all
        {%- endif %}
    {%- endfor %}
)

select * from scenarios
