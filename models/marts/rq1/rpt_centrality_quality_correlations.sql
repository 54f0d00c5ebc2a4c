with

centrality_quality_spearman as (
    select * from {{ ref('int_centrality_quality_spearman') }}
),

-- a Python model on DuckDB, its SQL twin on Spark (macros/dialect.sql)
centrality_quality_kendall as (
    select * from {{ ref(kendall_taus_model()) }}
),

-- Spearman's bootstrap variances (docs/definitions.md B, "Rank statistics"; none when
-- bootstrap_replicates is 0: the interval columns are null)
spearman_variances as (
    select * from {{ ref('int_centrality_quality_spearman_variances') }}
),

-- The SQL statistics and the Python ones, computed side by side, in one table.
centrality_quality_correlations as (
    select
        ---------- ids
        centrality_quality_spearman.classifier,
        centrality_quality_spearman.centrality_metric,
        centrality_quality_spearman.stratum_type,
        centrality_quality_spearman.stratum,

        ---------- numerics
        centrality_quality_spearman.host_count,
        centrality_quality_spearman.spearman_rho,
        {{ normal_interval(
            'centrality_quality_spearman.spearman_rho',
            'spearman_variances.spearman_rho_variance',
            'spearman_rho',
            '-1.0',
            '1.0'
        ) }},
        centrality_quality_kendall.kendall_tau_b,
        centrality_quality_spearman.weighted_spearman_rho,
        centrality_quality_kendall.weighted_tau

    from centrality_quality_spearman
    left join centrality_quality_kendall
        on
            centrality_quality_spearman.classifier
            = centrality_quality_kendall.classifier
            and centrality_quality_spearman.centrality_metric
            = centrality_quality_kendall.centrality_metric
            and centrality_quality_spearman.stratum_type
            = centrality_quality_kendall.stratum_type
            and centrality_quality_spearman.stratum
            = centrality_quality_kendall.stratum
    left join spearman_variances
        on
            centrality_quality_spearman.classifier = spearman_variances.classifier
            and centrality_quality_spearman.centrality_metric
            = spearman_variances.centrality_metric
            and centrality_quality_spearman.stratum_type
            = spearman_variances.stratum_type
            and centrality_quality_spearman.stratum = spearman_variances.stratum
)

select * from centrality_quality_correlations
