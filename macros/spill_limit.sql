{# Why: DuckDB spills what outgrows its memory_limit into temp_directory (by default
   `<warehouse>.tmp`, beside the warehouse) up to max_temp_directory_size, by default 90%
   of the disk's free space. A run that must keep inside a disk budget (the scale bench,
   bench/bench_scale.py) sets HOSTAWARE_MAX_TEMP_SIZE (a size, e.g. 20GB); unset, DuckDB's
   default holds. A hook rather than a profile setting: a profile's value cannot be left
   unset, and DuckDB's default is no size one could write there. The setting is global, so
   it holds for every model of the run. Spark spills under its own settings: nothing to do. #}
{% macro set_spill_limit() -%}
    {{ return(adapter.dispatch('set_spill_limit')()) }}
{%- endmacro %}

{% macro default__set_spill_limit() -%}
    {{ return('') }}
{%- endmacro %}

{% macro duckdb__set_spill_limit() -%}
    {%- set size = env_var('HOSTAWARE_MAX_TEMP_SIZE', '') -%}
    {%- if size -%}
        set global max_temp_directory_size = {{ sql_string(size) }}
    {%- endif -%}
{%- endmacro %}
