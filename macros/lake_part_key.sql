{# The input-file key in a lake part's name (part-<key>.parquet). It joins lake
   rows to the manifest row that committed them. #}
{% macro lake_part_key(filename_column) -%}
    regexp_extract({{ filename_column }}, 'part-([0-9a-f]+)[.]parquet$', 1)
{%- endmacro %}

{# The same key from a manifest row: its part_key, or, for manifests written
   before part_key existed, the first 20 hex digits of the file's SHA-256. #}
{% macro manifest_key(manifest_relation) -%}
    coalesce(
        {{ manifest_relation }}.part_key,
        left({{ manifest_relation }}.source_sha256, 20)
    )
{%- endmacro %}
