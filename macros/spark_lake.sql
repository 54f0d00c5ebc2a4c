{# Why: dbt-duckdb reads each lake table through its source's external_location; Spark
   has no such thing, so before a Spark run (on-run-start) every source table with
   `spark_lake_folders` in its meta becomes a catalog table over those folders of the
   lake (lake_root(): $HOSTAWARE_LAKE, by default $HOSTAWARE_HOME/lake: a local path,
   hdfs:// or s3a://, quoted by glob_literal and sql_string, macros/lake_path.sql), typed by the source's
   declared columns. Spark discovers the crawl=/release=
   partitions, skips the .tmp files of an unfinished ingest (hidden names), reads a
   column a part lacks as null and a missing folder as empty, as read_parquet's
   union_by_name and the lake's _schemas files do on DuckDB. A view on top adds each
   row's part file as `filename`, which staging joins to the manifests. On DuckDB the
   hook does nothing. #}
{% macro create_lake_tables() -%}
    {{ return(adapter.dispatch('create_lake_tables')()) }}
{%- endmacro %}

{% macro default__create_lake_tables() -%}
    {{ return('') }}
{%- endmacro %}

{% macro spark__create_lake_tables() -%}
    {%- if execute -%}
        {%- set schemas_created = [] -%}
        {%- for source in graph.sources.values()
            if source.config.meta.get('spark_lake_folders') -%}
            {%- if source.schema not in schemas_created -%}
                {%- do run_query('create database if not exists ' ~ source.schema) -%}
                {%- do schemas_created.append(source.schema) -%}
            {%- endif -%}
            {%- set columns = [] -%}
            {%- for column in source.columns.values() if column.name != 'filename' -%}
                {%- do columns.append(
                    column.name ~ ' ' ~ spark_type(column.data_type)
                ) -%}
            {%- endfor -%}
            {%- set relation = source.schema ~ '.' ~ source.identifier -%}
            {%- set parts = [] -%}
            {%- do run_query('drop view if exists ' ~ relation) -%}
            {%- for folder in source.config.meta['spark_lake_folders'] -%}
                {%- set part_table = relation ~ '__parts_' ~ loop.index -%}
                {%- do run_query('drop table if exists ' ~ part_table) -%}
                {%- do run_query(
                    'create table ' ~ part_table ~ ' (' ~ columns | join(', ') ~ ')'
                    ~ ' using parquet location '
                    ~ sql_string(glob_literal(lake_root() ~ '/' ~ folder))
                ) -%}
                {%- do parts.append(
                    'select *, _metadata.file_path as filename from ' ~ part_table
                ) -%}
            {%- endfor -%}
            {%- do run_query(
                'create view ' ~ relation ~ ' as ' ~ parts | join(' union all ')
            ) -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return('') }}
{%- endmacro %}

{# A source column's declared DuckDB type in Spark's words (the lake's types only). #}
{% macro spark_type(duckdb_type) -%}
    {%- set spark_types = {
        'varchar': 'string',
        'timestamp with time zone': 'timestamp',
        'varchar[]': 'array<string>',
        'bigint[]': 'array<bigint>',
        'map(varchar, bigint)': 'map<string, bigint>',
    } -%}
    {{- spark_types.get(duckdb_type | lower, duckdb_type) -}}
{%- endmacro %}
