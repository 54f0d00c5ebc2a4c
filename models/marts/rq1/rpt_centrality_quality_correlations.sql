with

centrality_quality_pairs as (
    select * from {{ ref('int_centrality_quality_pairs') }}
),

kendall_correlations as (
    select * from {{ ref('int_centrality_quality_kendall') }}
),

pairs_ranked as (
    select
        centrality_quality_pairs.*,
        {{ mid_rank(
            'centrality_quality_pairs.centrality_value',
            'classifier_id, centrality_metric, stratum_id'
        ) }} as centrality_rank,
        {{ mid_rank(
            'centrality_quality_pairs.quality_score_median',
            'classifier_id, centrality_metric, stratum_id'
        ) }} as quality_rank

    from centrality_quality_pairs
),

pairs_with_weighted_means as (
    select
        pairs_ranked.*,
        sum(pairs_ranked.doc_count * pairs_ranked.centrality_rank) over stratum_group
        / sum(pairs_ranked.doc_count) over stratum_group
            as centrality_rank_weighted_mean,
        sum(pairs_ranked.doc_count * pairs_ranked.quality_rank) over stratum_group
        / sum(pairs_ranked.doc_count) over stratum_group
            as quality_rank_weighted_mean

    from pairs_ranked
    window
        stratum_group as (
            partition by
                pairs_ranked.classifier_id,
                pairs_ranked.centrality_metric,
                pairs_ranked.stratum_id
        )
),

spearman_correlations as (
    select
        pairs_with_weighted_means.classifier_id,
        pairs_with_weighted_means.centrality_metric,
        pairs_with_weighted_means.stratum_id,
        any_value(pairs_with_weighted_means.classifier) as classifier,
        any_value(pairs_with_weighted_means.stratum_type) as stratum_type,
        any_value(pairs_with_weighted_means.stratum) as stratum,
        count(*) as host_count,
        {{ bounded_correlation(
            'corr(pairs_with_weighted_means.centrality_rank,'
            ~ ' pairs_with_weighted_means.quality_rank)'
        ) }} as spearman_rho,
        {{ bounded_correlation(weighted_corr(
            'pairs_with_weighted_means.centrality_rank',
            'pairs_with_weighted_means.quality_rank',
            'pairs_with_weighted_means.doc_count',
            'pairs_with_weighted_means.centrality_rank_weighted_mean',
            'pairs_with_weighted_means.quality_rank_weighted_mean'
        )) }} as weighted_spearman_rho

    from pairs_with_weighted_means
    group by all
),

centrality_quality_correlations as (
    select
        ---------- ids
        spearman_correlations.classifier,
        spearman_correlations.centrality_metric,
        spearman_correlations.stratum_type,
        spearman_correlations.stratum,

        ---------- numerics
        spearman_correlations.host_count,
        spearman_correlations.spearman_rho,
        kendall_correlations.kendall_tau_b,
        spearman_correlations.weighted_spearman_rho,
        kendall_correlations.weighted_tau

    from spearman_correlations
    left join kendall_correlations
        on
            spearman_correlations.classifier = kendall_correlations.classifier
            and spearman_correlations.centrality_metric
            = kendall_correlations.centrality_metric
            and spearman_correlations.stratum_type = kendall_correlations.stratum_type
            and spearman_correlations.stratum = kendall_correlations.stratum
)

select * from centrality_quality_correlations
