with

graph_manifest as (
    select * from {{ source('webgraph', 'graph_manifest') }}
),

renamed as (
    select
        ---------- ids
        graph_manifest.lake_table,
        {{ manifest_key('graph_manifest') }} as part_key,
        graph_manifest.source_sha256,
        graph_manifest.crawl,
        graph_manifest.release,

        ---------- strings
        graph_manifest.source_file,
        graph_manifest.rejected_examples,
        graph_manifest.schema_drift,
        graph_manifest.output_files,

        ---------- numerics
        graph_manifest.source_size_bytes,
        graph_manifest.output_sizes,
        graph_manifest.records_read as records_read_count,
        graph_manifest.records_written as records_written_count,
        graph_manifest.records_rejected as records_rejected_count,
        graph_manifest.rejected_by_reason,
        graph_manifest.nulled_by_reason,

        ---------- timestamps
        graph_manifest.started_at,
        graph_manifest.finished_at

    from graph_manifest
)

select * from renamed
