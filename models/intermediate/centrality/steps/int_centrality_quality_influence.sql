-- Each pair's influence on its group's Spearman rho, psi_h, the derivative of rho with
-- respect to the host's bootstrap weight at the sample (docs/definitions.md B, "Rank
-- statistics"; the macro spearman_influence). A group is a classifier x metric x
-- stratum. No rows when the intervals are off.

with

centrality_quality_pairs as (
    select * from {{ ref('int_centrality_quality_pairs') }}
    where {{ var('bootstrap_replicates') | int }} > 0
),

{{ spearman_influence(
    'pairs_influence',
    'centrality_quality_pairs',
    ['classifier_id', 'centrality_metric_id', 'stratum_id'],
    ['host_id'],
    'centrality_value',
    'quality_score_median'
) }}

select * from pairs_influence
