-- The page-level Spearman correlation of each pair of classifiers (docs/definitions.md
-- A3c) over the pages both scored, from their pages' ranks
-- (int_classifier_scores_ranked); a pair whose classifiers scored different pages is
-- ranked again over its own pages.

with

scores_ranked as (
    select * from {{ ref('int_classifier_scores_ranked') }}
),

classifiers as (
    select * from {{ ref('int_classifiers') }}
),

classifier_pairs as (
    select
        classifiers_a.classifier_id as classifier_a_id,
        classifiers_b.classifier_id as classifier_b_id

    from classifiers as classifiers_a
    inner join classifiers as classifiers_b
        on classifiers_a.classifier_id < classifiers_b.classifier_id
),

-- The pages both classifiers of a pair scored. Each side is matched on page and
-- classifier, so a page meets each of its rows once. Not materialized: it is read for
-- every pair, and again (usually for no pair) for the pairs ranked over their own
-- pages.
pair_pages as {{ not_materialized() }} (
    select
        classifier_pairs.classifier_a_id,
        classifier_pairs.classifier_b_id,
        scores_a.score as score_a,
        scores_b.score as score_b,
        scores_a.score_rank as score_rank_a,
        scores_b.score_rank as score_rank_b,
        scores_a.classifier_doc_count as classifier_doc_count_a,
        scores_b.classifier_doc_count as classifier_doc_count_b

    from classifier_pairs
    inner join scores_ranked as scores_a
        on classifier_pairs.classifier_a_id = scores_a.classifier_id
    inner join scores_ranked as scores_b
        on
            scores_a.doc_key = scores_b.doc_key
            and classifier_pairs.classifier_b_id = scores_b.classifier_id
),

pairs_over_all_pages as (
    select
        pair_pages.classifier_a_id,
        pair_pages.classifier_b_id,
        count(*) as doc_count,
        corr(pair_pages.score_rank_a, pair_pages.score_rank_b) as rank_correlation,
        count(*) = any_value(pair_pages.classifier_doc_count_a)
        and count(*) = any_value(pair_pages.classifier_doc_count_b) as is_same_pages

    from pair_pages
    group by all
),

-- A pair whose classifiers scored different pages: its pages ranked again, among
-- themselves.
pair_pages_reranked as (
    select
        pair_pages.classifier_a_id,
        pair_pages.classifier_b_id,
        {{ mid_rank('pair_pages.score_a', 'classifier_a_id, classifier_b_id') }}
            as score_rank_a,
        {{ mid_rank('pair_pages.score_b', 'classifier_a_id, classifier_b_id') }}
            as score_rank_b

    from pair_pages
    semi join pairs_over_all_pages
        on
            pair_pages.classifier_a_id = pairs_over_all_pages.classifier_a_id
            and pair_pages.classifier_b_id = pairs_over_all_pages.classifier_b_id
            and not pairs_over_all_pages.is_same_pages
),

pairs_over_their_pages as (
    select
        pair_pages_reranked.classifier_a_id,
        pair_pages_reranked.classifier_b_id,
        count(*) as doc_count,
        corr(pair_pages_reranked.score_rank_a, pair_pages_reranked.score_rank_b)
            as rank_correlation

    from pair_pages_reranked
    group by all
),

pair_correlations as (
    select
        pairs_over_all_pages.classifier_a_id,
        pairs_over_all_pages.classifier_b_id,
        pairs_over_all_pages.doc_count,
        pairs_over_all_pages.rank_correlation
    from pairs_over_all_pages
    where pairs_over_all_pages.is_same_pages
    union all
    select
        pairs_over_their_pages.classifier_a_id,
        pairs_over_their_pages.classifier_b_id,
        pairs_over_their_pages.doc_count,
        pairs_over_their_pages.rank_correlation
    from pairs_over_their_pages
),

-- Both orders of every pair, so that the matrix reads either way.
pair_correlations_both_orders as (
    select
        pair_correlations.classifier_a_id,
        pair_correlations.classifier_b_id,
        pair_correlations.doc_count,
        pair_correlations.rank_correlation
    from pair_correlations
    union all
    select
        pair_correlations.classifier_b_id as classifier_a_id,
        pair_correlations.classifier_a_id as classifier_b_id,
        pair_correlations.doc_count,
        pair_correlations.rank_correlation
    from pair_correlations
),

classifier_agreement as (
    select
        ---------- ids
        classifiers_a.classifier as classifier_a,
        classifiers_b.classifier as classifier_b,

        ---------- numerics
        pair_correlations_both_orders.doc_count,
        {{ bounded_correlation('pair_correlations_both_orders.rank_correlation') }}
            as spearman_rho

    from pair_correlations_both_orders
    inner join classifiers as classifiers_a
        on pair_correlations_both_orders.classifier_a_id = classifiers_a.classifier_id
    inner join classifiers as classifiers_b
        on pair_correlations_both_orders.classifier_b_id = classifiers_b.classifier_id
)

select * from classifier_agreement
