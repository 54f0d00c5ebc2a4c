{# Fails on the part files of manifest rows whose committed rows are not all in the
   lake: a part deleted behind the manifest's back would otherwise drop its rows from
   every model without a word. `model` is a manifest relation, `parts` the lake table
   its rows of `lake_table` commit, read raw (uncommitted parts too; their `filename`
   names the part). A manifest row's records_written are exactly the rows of its parts
   in its own table (ingest.lake: read = written + rejected), so the check is exact:
   for a row whose parts hold another number of rows, one failing row per part file
   it lists, with the rows found there (0: missing). The missing files are also logged,
   so that dbt's output names them. #}
{% test committed_parts_are_present(model, parts, lake_table) %}

    {%- set failures -%}
        with

        manifest_files as (
            select
                {{ manifest_key('manifest') }} as part_key,
                manifest.source_file,
                manifest.records_written,
                {{ unnest_lists({'part_path': 'manifest.output_files'}) }}
            from {{ model }} as manifest
            where manifest.lake_table = '{{ lake_table }}'
        ),

        -- the manifest row's files in its own table (a documents row also lists its
        -- document_scores part: a row count per classifier, not records_written)
        own_files as (
            select * from manifest_files
            where manifest_files.part_path like '{{ lake_table }}/%'
        ),

        part_rows as (
            select
                {{ lake_part_path('lake_parts.filename') }} as part_path,
                count(*) as row_count
            from {{ parts }} as lake_parts
            group by 1
        ),

        files_found as (
            select
                own_files.part_key,
                own_files.source_file,
                own_files.part_path,
                own_files.records_written,
                coalesce(part_rows.row_count, 0) as row_count
            from own_files
            left join part_rows
                on own_files.part_path = part_rows.part_path
        ),

        rows_found as (
            select
                files_found.*,
                sum(files_found.row_count) over (
                    partition by files_found.part_key
                ) as rows_found_count
            from files_found
        )

        select
            rows_found.source_file,
            rows_found.part_path,
            rows_found.row_count,
            rows_found.rows_found_count,
            rows_found.records_written
        from rows_found
        where rows_found.rows_found_count != rows_found.records_written
    {%- endset -%}

    {%- if execute and flags.WHICH in ('test', 'build') -%}
        {%- set found = run_query(failures ~ ' order by 1, 2 limit 20') -%}
        {%- for row in found.rows if row[2] == 0 -%}
            {%- do log(
                'committed_parts_are_present: ' ~ row[1] ~ ' (' ~ lake_table
                ~ ', committed by ' ~ row[0] ~ ', ' ~ row[4] ~ ' rows) is missing from the lake',
                info=true
            ) -%}
        {%- endfor -%}
    {%- endif %}

    {{ failures }}

{% endtest %}
