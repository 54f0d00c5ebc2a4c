-- Each Spearman rho's bootstrap variance over hosts, to first order
-- (docs/definitions.md B, "Rank statistics"): a replicate moves rho by sum_h (w_hb - 1)
-- psi_h over the stratum's hosts, whose variance under Poisson(1) weights is sum_h
-- psi_h^2; the mart gives its normal limit. No rows when the intervals are off (the
-- influences have none).

with

pairs_influence as (
    select * from {{ ref('int_centrality_quality_influence') }}
),

pair_groups as (
    select * from {{ ref('int_centrality_quality_pair_groups') }}
),

spearman_variances as (
    select
        pair_groups.classifier,
        pair_groups.centrality_metric,
        pair_groups.stratum_type,
        pair_groups.stratum,
        sum(power(pairs_influence.influence, 2)) as spearman_rho_variance

    from pairs_influence
    inner join pair_groups
        on
            pairs_influence.classifier_id = pair_groups.classifier_id
            and pairs_influence.centrality_metric_id = pair_groups.centrality_metric_id
            and pairs_influence.stratum_id = pair_groups.stratum_id
    group by all
)

select * from spearman_variances
