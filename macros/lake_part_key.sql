{# Why: a lake row counts only when the part file it was read from is committed: when
   its path is one of the `output_files` of a manifest row of its table. A part's key
   alone (part-<key>.parquet) is not enough: a crashed run under another crawl= (or
   release=) folder leaves a part with the same key there, which a key join would count
   as a second, phantom crawl. Key AND partition, as ingest.lake.committed_parts decides
   in Python. `output_files` are lake-relative (documents/crawl=CC-MAIN-2024-10/
   part-<key>.parquet) in every manifest ever written, before part_key existed too. #}

{# lake_part_path(filename_column): the lake-relative path of the part a row was read
   from (<table>/<partition>/part-<key>.parquet): the last three folders of its file
   name, whatever the lake's own path (read_parquet's `filename`, Spark's file URI). #}
{% macro lake_part_path(filename_column) -%}
    regexp_extract({{ filename_column }}, '([^/]+/[^/]+/part-[^/]+[.]parquet)$', 1)
{%- endmacro %}

{# lake_part_partition(filename_column): the value of a row's partition folder (its
   crawl= or release=) from the lake-relative path of the part it was read from — what
   committed_parts gives as partition_value for that part, taken from the row's own file
   name, so that a filter on it reaches the scan: DuckDB then opens only the files of the
   crawl asked for (RQ3's full crawl reads 28.8M of the paper lake's 165.7M annotation
   rows, not all of them). #}
{% macro lake_part_partition(filename_column) -%}
    regexp_extract(
        {{ filename_column }}, '[^/]+/[^/=]+=([^/]+)/part-[^/]+[.]parquet$', 1
    )
{%- endmacro %}

{# committed_parts(manifest_relation, lake_tables): one row per part file the manifest
   rows of `lake_tables` commit (`part_path`, lake-relative: its table, partition and
   key), its partition folder's value (`partition_value`: the crawl or release, from
   the lake-relative path, which no folder above the lake can change, unlike hive
   partitioning of the whole path) and the manifest row's lake_table. A from-clause
   subquery. #}
{% macro committed_parts(manifest_relation, lake_tables) -%}
    (
        select
            committed_part_paths.lake_table,
            committed_part_paths.part_path,
            regexp_extract(
                committed_part_paths.part_path, '^[^/]+/[^/=]+=([^/]+)/', 1
            ) as partition_value
        from (
            select
                committing_rows.lake_table,
                {{ unnest_lists({'part_path': 'committing_rows.output_files'}) }}
            from {{ manifest_relation }} as committing_rows
            where committing_rows.lake_table in ('{{ lake_tables | join("', '") }}')
        ) as committed_part_paths
    ) as committed_part_files
{%- endmacro %}

{# manifest_key(manifest_relation): a manifest row's part key: its part_key, or, for
   manifests written before part_key existed, the first 20 hex digits of the file's
   SHA-256. #}
{% macro manifest_key(manifest_relation) -%}
    coalesce(
        {{ manifest_relation }}.part_key,
        left({{ manifest_relation }}.source_sha256, 20)
    )
{%- endmacro %}
