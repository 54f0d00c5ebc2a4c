{# Why: a model whose rows each belong to one crawl (the host index, the annotations and
   what RQ4 makes of them) is built incrementally by `python -m update`: only the crawls
   whose lake partitions changed since the last update are computed again. Such a model is
   `materialized: incremental` with the pre-hook `drop_updated_partitions` (dbt_project.yml,
   the `by_crawl` anchor) and reads its inputs through `in_updated_partitions`.

   The update says which crawls in the var `update_partitions`: a map from model name to
   the crawls to recompute. A model it leaves out is recomputed whole; without the var (a
   plain `dbt build`) every such model is rebuilt as a table, as before (its `full_refresh`
   follows the var). The update's rules are in update/__init__.py. #}

{# updated_partitions(): the crawls this run recomputes, or none for all of them. #}
{% macro updated_partitions() -%}
    {%- set chosen = var('update_partitions', none) or {} -%}
    {#- the name first: a unit test has no relation for is_incremental() to look up -#}
    {%- if model.name in chosen and is_incremental() -%}
        {{ return(chosen[model.name] | list) }}
    {%- endif -%}
    {{ return(none) }}
{%- endmacro %}

{# in_updated_partitions(column): a predicate on `column` (the crawl) keeping the rows
   this run recomputes: `true` in a whole build, `false` when no crawl is named. #}
{% macro in_updated_partitions(column) -%}
    {%- set crawls = updated_partitions() -%}
    {%- if crawls is none -%}
        true
    {%- elif crawls | length == 0 -%}
        false
    {%- else -%}
        {{ column }} in ({{ quoted_crawls(crawls) | join(', ') }})
    {%- endif -%}
{%- endmacro %}

{# quoted_crawls(crawls): each crawl as an SQL string literal. #}
{% macro quoted_crawls(crawls) -%}
    {%- set quoted = [] -%}
    {%- for crawl in crawls -%}
        {%- do quoted.append("'" ~ (crawl | replace("'", "''")) ~ "'") -%}
    {%- endfor -%}
    {{ return(quoted) }}
{%- endmacro %}

{# drop_updated_partitions(column): the pre-hook removing the rows this run recomputes
   from the existing table (nothing on a first or full build, which replaces the table): a
   crawl gone from the lake stays gone, a crawl ingested again is replaced, and the
   run's rows are appended (`incremental_strategy: append`). #}
{% macro drop_updated_partitions(column) -%}
    {{ return(adapter.dispatch('drop_updated_partitions')(column)) }}
{%- endmacro %}

{% macro default__drop_updated_partitions(column) -%}
    {%- if is_incremental() -%}
        delete from {{ this }} where {{ in_updated_partitions(column) }}
    {%- endif -%}
{%- endmacro %}

{# Spark's Parquet tables have no DELETE: a per-crawl model is partitioned by its crawl
   there (`partition_by` in dbt_project.yml), and the crawls recomputed are dropped as
   partitions; recomputed whole, the table is emptied. #}
{% macro spark__drop_updated_partitions(column) -%}
    {%- if is_incremental() -%}
        {%- set crawls = updated_partitions() -%}
        {%- if crawls is none -%}
            truncate table {{ this }}
        {%- elif crawls | length > 0 -%}
            {%- set partitions = [] -%}
            {%- for crawl in quoted_crawls(crawls) -%}
                {%- set spec = 'partition (' ~ column ~ ' = ' ~ crawl ~ ')' -%}
                {%- do partitions.append(spec) -%}
            {%- endfor -%}
            alter table {{ this }} drop if exists {{ partitions | join(', ') }}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
