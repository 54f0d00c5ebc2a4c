{# Why: a lake file's location is data, never SQL or a glob: `HOSTAWARE_HOME` (or
   `HOSTAWARE_LAKE` on Spark) may hold any character a folder name may, and a `'` would
   end the SQL string literal it is written into. On DuckDB the sources' external_location
   quote the lake's folder through the `lake_literal` meta of dbt_project.yml (a source's
   properties are rendered before macros exist); Spark's catalog tables over the lake
   (create_lake_tables, macros/spark_lake.sql) through lake_root(), glob_literal() (Spark
   globs a table's location as Hadoop paths: `[1]` or `{x}` would be patterns) and
   sql_string(). #}

{# lake_root(): the lake folder as Spark reads it: $HOSTAWARE_LAKE, by default
   $HOSTAWARE_HOME/lake (dbt-duckdb's sources always read $HOSTAWARE_HOME/lake). #}
{% macro lake_root() -%}
    {{ return(env_var('HOSTAWARE_LAKE', env_var('HOSTAWARE_HOME', 'data') ~ '/lake')) }}
{%- endmacro %}

{# sql_string(text): text as a SQL string literal, quoted for the engine: DuckDB
   doubles a `'`; Spark SQL reads backslash escapes, so there `\` and `'` are
   backslash-escaped. #}
{% macro sql_string(text) -%}
    {{ return(adapter.dispatch('sql_string')(text)) }}
{%- endmacro %}

{% macro default__sql_string(text) -%}
    {{ return("'" ~ text | replace("'", "''") ~ "'") }}
{%- endmacro %}

{% macro spark__sql_string(text) -%}
    {{ return("'" ~ text | replace('\\', '\\\\') | replace("'", "\\'") ~ "'") }}
{%- endmacro %}

{# glob_literal(text): text that a Hadoop path glob (Spark's reading of a location)
   matches only literally: each of `\`, `[`, `]`, `{`, `}`, `*` and `?` backslash-escaped. #}
{% macro glob_literal(text) -%}
    {%- set escaped = namespace(text='') -%}
    {%- for character in text -%}
        {%- if character in '\\[]{}*?' -%}
            {%- set escaped.text = escaped.text ~ '\\' ~ character -%}
        {%- else -%}
            {%- set escaped.text = escaped.text ~ character -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(escaped.text) }}
{%- endmacro %}
