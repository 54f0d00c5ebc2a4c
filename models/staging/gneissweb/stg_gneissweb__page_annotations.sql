with

page_annotations as (
    select * from {{ source('gneissweb', 'page_annotations') }}
),

annotation_manifest as (
    select * from {{ source('gneissweb', 'annotation_manifest') }}
),

committed_page_annotations as (
    select
        ---------- ids
        page_annotations.crawl,
        page_annotations.doc_id,
        page_annotations.surt_host_name,

        ---------- strings
        page_annotations.url,
        page_annotations.url_surtkey,
        page_annotations.language,
        page_annotations.cosmo_fasttext_label as gneissweb_quality_label,
        page_annotations.dclm_fasttext_label as dclm_quality_label,
        page_annotations.medical_label,
        page_annotations.education_label,
        page_annotations.technology_computing_label,
        page_annotations.science_label,

        ---------- numerics
        page_annotations.language_score,
        page_annotations.cosmo_fasttext_score as gneissweb_quality_score,
        page_annotations.dclm_fasttext_score as dclm_quality_score,
        page_annotations.medical_score,
        page_annotations.education_score,
        page_annotations.technology_computing_score,
        page_annotations.science_score,
        page_annotations.mcalpine_eflaw_textstat as mcalpine_eflaw_readability,
        page_annotations.tokens_per_doc_num_chars as tokens_per_char,

        ---------- booleans
        page_annotations.in_gneissweb as is_in_gneissweb

    from page_annotations
    inner join annotation_manifest
        on
            {{ lake_part_key('page_annotations.filename') }}
            = {{ manifest_key('annotation_manifest') }}
            and annotation_manifest.lake_table = 'page_annotations'
)

select * from committed_page_annotations
