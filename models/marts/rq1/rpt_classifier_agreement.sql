with

document_scores as (
    select * from {{ ref('stg_crawl__document_scores') }}
),

-- Every ordered pair of classifiers, over the pages both scored.
score_pairs as (
    select
        scores_a.classifier as classifier_a,
        scores_b.classifier as classifier_b,
        scores_a.doc_id,
        scores_a.score as score_a,
        scores_b.score as score_b

    from document_scores as scores_a
    inner join document_scores as scores_b
        on
            scores_a.doc_id = scores_b.doc_id
            and scores_a.classifier != scores_b.classifier
),

score_pairs_ranked as (
    select
        score_pairs.classifier_a,
        score_pairs.classifier_b,
        {{ mid_rank('score_pairs.score_a', 'classifier_a, classifier_b') }} as rank_a,
        {{ mid_rank('score_pairs.score_b', 'classifier_a, classifier_b') }} as rank_b

    from score_pairs
),

classifier_agreement as (
    select
        ---------- ids
        score_pairs_ranked.classifier_a,
        score_pairs_ranked.classifier_b,

        ---------- numerics
        count(*) as doc_count,
        {{ bounded_correlation(
            'corr(score_pairs_ranked.rank_a, score_pairs_ranked.rank_b)'
        ) }} as spearman_rho

    from score_pairs_ranked
    group by all
)

select * from classifier_agreement
