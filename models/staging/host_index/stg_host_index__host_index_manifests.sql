with

host_index_manifest as (
    select * from {{ source('host_index', 'host_index_manifest') }}
),

renamed as (
    select
        ---------- ids
        host_index_manifest.lake_table,
        {{ manifest_key('host_index_manifest') }} as part_key,
        host_index_manifest.source_sha256,
        host_index_manifest.crawl,
        host_index_manifest.release,

        ---------- strings
        host_index_manifest.source_file,
        host_index_manifest.rejected_examples,
        host_index_manifest.schema_drift,
        host_index_manifest.output_files,

        ---------- numerics
        host_index_manifest.source_size_bytes,
        host_index_manifest.output_sizes,
        host_index_manifest.records_read as records_read_count,
        host_index_manifest.records_written as records_written_count,
        host_index_manifest.records_rejected as records_rejected_count,
        host_index_manifest.rejected_by_reason,
        host_index_manifest.nulled_by_reason,

        ---------- timestamps
        host_index_manifest.started_at,
        host_index_manifest.finished_at

    from host_index_manifest
)

select * from renamed
