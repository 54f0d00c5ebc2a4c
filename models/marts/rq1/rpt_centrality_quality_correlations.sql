with

centrality_quality_spearman as (
    select * from {{ ref('int_centrality_quality_spearman') }}
),

-- a Python model on DuckDB, its SQL twin on Spark (macros/dialect.sql)
centrality_quality_kendall as (
    select * from {{ ref(kendall_taus_model()) }}
),

spearman_replicates as (
    select * from {{ ref('int_centrality_quality_spearman_replicates') }}
),

-- Spearman's percentile intervals and standard errors over the bootstrap replicates,
-- each replicate rho + its first-order shift, within [-1, 1] (none when
-- bootstrap_replicates is 0: the columns are null).
spearman_intervals as (
    select
        centrality_quality_spearman.classifier,
        centrality_quality_spearman.centrality_metric,
        centrality_quality_spearman.stratum_type,
        centrality_quality_spearman.stratum,
        {{ bootstrap_interval(
            'greatest(-1, least(1, centrality_quality_spearman.spearman_rho'
            ~ ' + spearman_replicates.spearman_rho_shift))',
            'spearman_rho'
        ) }}

    from centrality_quality_spearman
    inner join spearman_replicates
        on
            centrality_quality_spearman.classifier = spearman_replicates.classifier
            and centrality_quality_spearman.centrality_metric
            = spearman_replicates.centrality_metric
            and centrality_quality_spearman.stratum_type
            = spearman_replicates.stratum_type
            and centrality_quality_spearman.stratum = spearman_replicates.stratum
    where spearman_replicates.replicate > 0
    group by all
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
        spearman_intervals.spearman_rho_ci_low,
        spearman_intervals.spearman_rho_ci_high,
        spearman_intervals.spearman_rho_se,
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
    left join spearman_intervals
        on
            centrality_quality_spearman.classifier = spearman_intervals.classifier
            and centrality_quality_spearman.centrality_metric
            = spearman_intervals.centrality_metric
            and centrality_quality_spearman.stratum_type
            = spearman_intervals.stratum_type
            and centrality_quality_spearman.stratum = spearman_intervals.stratum
)

select * from centrality_quality_correlations
