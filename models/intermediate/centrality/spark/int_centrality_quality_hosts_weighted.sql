{#- Spark only: each host of each centrality-quality stratum, numbered and weighted for
    the Kendall statistics (int_centrality_quality_kendall_spark). A table of its own
    because five parts of that model read it, and Spark would recompute the three window
    sorts of a shared CTE for each. -#}

with

centrality_quality_pairs as (
    select * from {{ ref('int_centrality_quality_pairs') }}
),

-- Each host's weights: 1 for tau-b; for the weighted tau (scipy's weightedtau,
-- hyperbolic weigher), 1 / (n - position) in the lexicographic order by (x, y) and by
-- (y, x) (weight_2, weight_3).
hosts_weighted as (
    select
        centrality_quality_pairs.classifier_id,
        centrality_quality_pairs.centrality_metric_id,
        centrality_quality_pairs.stratum_id,
        centrality_quality_pairs.centrality_value as x,
        centrality_quality_pairs.quality_score_median as y,
        count(*) over (stratum_hosts) as stratum_host_count,
        row_number() over (by_xy) - 1 as xy_position,
        cast(1 as double) / (
            count(*) over (stratum_hosts) - row_number() over (by_xy) + 1
        ) as weight_2,
        cast(1 as double) / (
            count(*) over (stratum_hosts) - row_number() over (by_yx) + 1
        ) as weight_3
    from centrality_quality_pairs
    window
        stratum_hosts as (
            partition by
                centrality_quality_pairs.classifier_id,
                centrality_quality_pairs.centrality_metric_id,
                centrality_quality_pairs.stratum_id
        ),
        by_xy as (
            partition by
                centrality_quality_pairs.classifier_id,
                centrality_quality_pairs.centrality_metric_id,
                centrality_quality_pairs.stratum_id
            order by
                centrality_quality_pairs.centrality_value,
                centrality_quality_pairs.quality_score_median
        ),
        by_yx as (
            partition by
                centrality_quality_pairs.classifier_id,
                centrality_quality_pairs.centrality_metric_id,
                centrality_quality_pairs.stratum_id
            order by
                centrality_quality_pairs.quality_score_median,
                centrality_quality_pairs.centrality_value
        )
)

select * from hosts_weighted
