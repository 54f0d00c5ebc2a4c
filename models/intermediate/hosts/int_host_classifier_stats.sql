with

document_scores_flagged as (
    select * from {{ ref('int_document_scores_flagged') }}
),

host_classifier_stats as (
    select
        ---------- ids
        document_scores_flagged.surt_host_name,
        document_scores_flagged.classifier,
        document_scores_flagged.classifier_id,

        ---------- numerics
        count(*) as doc_count,
        median(document_scores_flagged.score) as quality_score_median,
        avg(document_scores_flagged.score) as quality_score_mean,
        var_samp(document_scores_flagged.score) as quality_score_var,
        count(*) filter (where document_scores_flagged.is_hq) as hq_doc_count,
        count(*) filter (where document_scores_flagged.is_hq)
        / count(*) as hq_density

    from document_scores_flagged
    group by all
)

select * from host_classifier_stats
