with

document_manifest as (
    select * from {{ source('crawl', 'document_manifest') }}
),

renamed as (
    select
        ---------- ids
        document_manifest.source_sha256,
        document_manifest.crawl,

        ---------- strings
        document_manifest.lake_table,
        document_manifest.source_file,
        document_manifest.output_files,

        ---------- numerics
        document_manifest.source_size_bytes,
        document_manifest.output_sizes,
        document_manifest.records_read as records_read_count,
        document_manifest.records_written as records_written_count,
        document_manifest.records_rejected as records_rejected_count,
        document_manifest.rejected_by_reason,
        document_manifest.nulled_by_reason,

        ---------- timestamps
        document_manifest.started_at,
        document_manifest.finished_at

    from document_manifest
)

select * from renamed
