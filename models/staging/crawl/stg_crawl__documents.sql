with

documents as (
    select * from {{ source('crawl', 'documents') }}
),

document_manifest as (
    select * from {{ source('crawl', 'document_manifest') }}
),

-- The part files the manifest commits (macros/lake_part_key.sql): a part counts by
-- its path, key and partition, not by its key alone.
committed_parts as (
    select * from {{ committed_parts('document_manifest', ['documents']) }}
),

committed_documents as (
    select
        ---------- ids
        documents.doc_id,
        documents.surt_host_name,
        -- from the part's lake-relative path: a crawl= folder above the lake
        -- (in $HOSTAWARE_HOME) would be read by hive partitioning instead
        {{ lake_part_partition('documents.filename') }} as crawl,

        ---------- strings
        documents.url,
        documents.url_host_registered_domain,
        documents.url_host_tld,
        documents.url_host_registry_suffix,
        documents.warc_file,
        documents.language,
        documents.language_source,
        documents.payload_digest,

        ---------- numerics
        documents.warc_record_offset,
        documents.language_score,
        documents.text_length,

        ---------- timestamps
        documents.fetched_at

    from documents
    inner join committed_parts
        on {{ lake_part_path('documents.filename') }} = committed_parts.part_path
)

select * from committed_documents
