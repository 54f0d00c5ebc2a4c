with

documents as (
    select * from {{ source('crawl', 'documents') }}
),

document_manifest as (
    select * from {{ source('crawl', 'document_manifest') }}
),

committed_documents as (
    select
        ---------- ids
        documents.doc_id,
        documents.surt_host_name,
        documents.crawl,

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
    inner join document_manifest
        on
            {{ lake_part_key('documents.filename') }}
            = {{ manifest_key('document_manifest') }}
            and document_manifest.lake_table = 'documents'
)

select * from committed_documents
