{# Why: dbt-duckdb's external materialization writes the crawl plan's files under the
   profile's external_root ($HOSTAWARE_HOME/exports) and fails when that folder does not
   exist, as on a fresh home. A partitioned COPY of no rows makes the folder (one level,
   the home exists: the warehouse is in it) and writes no file, so every `dbt build`
   creates what it writes into. Spark writes its plan as a table: nothing to do. The
   folder ($HOSTAWARE_EXPORTS, by default $HOSTAWARE_HOME/exports) is quoted as data;
   dbt-duckdb's external materialization itself writes and reads its files at
   '<folder>/<model>.<format>' unquoted (and as a glob): a folder whose path holds a `'`,
   `[`, `*` or `?` needs HOSTAWARE_EXPORTS set to a plain one (README, Paths). #}
{% macro create_export_folder() -%}
    {{ return(adapter.dispatch('create_export_folder')()) }}
{%- endmacro %}

{% macro default__create_export_folder() -%}
    {{ return('') }}
{%- endmacro %}

{% macro duckdb__create_export_folder() -%}
    copy (select 1 as folder_made, 1 as unused where false)
    to {{ sql_string(adapter.external_root()) }}
    (format csv, partition_by (folder_made), overwrite_or_ignore true)
{%- endmacro %}
