{# The input-file key in a lake part's name (part-<key>.parquet): the first 20
   hex digits of the input file's SHA-256. It joins lake rows to their manifest. #}
{% macro lake_part_key(filename_column) -%}
    regexp_extract({{ filename_column }}, 'part-([0-9a-f]+)\.parquet$', 1)
{%- endmacro %}

{# The same key from a manifest row's checksum. #}
{% macro manifest_key(sha256_column) -%}
    left({{ sha256_column }}, 20)
{%- endmacro %}
