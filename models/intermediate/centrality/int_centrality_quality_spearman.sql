with

centrality_quality_pairs as (
    select * from {{ ref('int_centrality_quality_pairs') }}
),

-- the names of each group (the windows below carry only numbers)
pair_groups as (
    select * from {{ ref('int_centrality_quality_pair_groups') }}
),

pairs_ranked as (
    select
        centrality_quality_pairs.classifier_id,
        centrality_quality_pairs.centrality_metric_id,
        centrality_quality_pairs.stratum_id,
        centrality_quality_pairs.doc_count,
        {{ mid_rank(
            'centrality_quality_pairs.centrality_value',
            'classifier_id, centrality_metric_id, stratum_id'
        ) }} as centrality_rank,
        {{ mid_rank(
            'centrality_quality_pairs.quality_score_median',
            'classifier_id, centrality_metric_id, stratum_id'
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
                pairs_ranked.centrality_metric_id,
                pairs_ranked.stratum_id
        )
),

spearman_correlations as (
    select
        pairs_with_weighted_means.classifier_id,
        pairs_with_weighted_means.centrality_metric_id,
        pairs_with_weighted_means.stratum_id,
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

centrality_quality_spearman as (
    select
        ---------- ids
        pair_groups.classifier,
        pair_groups.centrality_metric,
        pair_groups.stratum_type,
        pair_groups.stratum,

        ---------- numerics
        spearman_correlations.host_count,
        spearman_correlations.spearman_rho,
        spearman_correlations.weighted_spearman_rho

    from spearman_correlations
    inner join pair_groups
        on
            spearman_correlations.classifier_id = pair_groups.classifier_id
            and spearman_correlations.centrality_metric_id
            = pair_groups.centrality_metric_id
            and spearman_correlations.stratum_id = pair_groups.stratum_id
)

select * from centrality_quality_spearman
