with

annotation_manifest as (
    select * from {{ source('annotations', 'annotation_manifest') }}
),

renamed as (
    select
        ---------- ids
        annotation_manifest.lake_table,
        {{ manifest_key('annotation_manifest') }} as part_key,
        annotation_manifest.source_sha256,
        annotation_manifest.crawl,
        annotation_manifest.release,

        ---------- strings
        annotation_manifest.source_file,
        annotation_manifest.rejected_examples,
        annotation_manifest.schema_drift,
        annotation_manifest.output_files,

        ---------- numerics
        annotation_manifest.source_size_bytes,
        annotation_manifest.output_sizes,
        annotation_manifest.records_read as records_read_count,
        annotation_manifest.records_written as records_written_count,
        annotation_manifest.records_rejected as records_rejected_count,
        annotation_manifest.rejected_by_reason,
        annotation_manifest.nulled_by_reason,

        ---------- timestamps
        annotation_manifest.started_at,
        annotation_manifest.finished_at

    from annotation_manifest
)

select * from renamed
