-- The names of each group of pairs, by its ids (the windows and sums over the pairs
-- carry only numbers: every column a window carries is sorted with it).

with

centrality_quality_pairs as (
    select * from {{ ref('int_centrality_quality_pairs') }}
),

pair_groups as (
    select
        centrality_quality_pairs.classifier_id,
        centrality_quality_pairs.centrality_metric_id,
        centrality_quality_pairs.stratum_id,
        any_value(centrality_quality_pairs.classifier) as classifier,
        any_value(centrality_quality_pairs.centrality_metric) as centrality_metric,
        any_value(centrality_quality_pairs.stratum_type) as stratum_type,
        any_value(centrality_quality_pairs.stratum) as stratum,
        count(*) as host_count

    from centrality_quality_pairs
    group by all
)

select * from pair_groups
