with

host_universe as (
    select * from {{ ref('int_host_universe') }}
),

hosts_by_metric as (
    select
        host_universe.*,
        'hc' as centrality_metric,
        host_universe.hc_val as centrality_value
    from host_universe
    union all
    select
        host_universe.*,
        'pr' as centrality_metric,
        host_universe.pr_val as centrality_value
    from host_universe
),

hosts_by_stratum as (
    select
        hosts_by_metric.*,
        'pooled' as stratum_type,
        'all' as stratum
    from hosts_by_metric
    union all
    select
        hosts_by_metric.*,
        'language' as stratum_type,
        hosts_by_metric.language_stratum as stratum
    from hosts_by_metric
    union all
    select
        hosts_by_metric.*,
        'tld_category' as stratum_type,
        hosts_by_metric.tld_macro_category as stratum
    from hosts_by_metric
),

centrality_quality_pairs as (
    select
        ---------- ids
        hosts_by_stratum.classifier,
        hosts_by_stratum.centrality_metric,
        hosts_by_stratum.stratum_type,
        hosts_by_stratum.stratum,
        hosts_by_stratum.surt_host_name,

        ---------- numerics
        hosts_by_stratum.centrality_value,
        hosts_by_stratum.quality_score_median,
        hosts_by_stratum.doc_count

    from hosts_by_stratum
    -- a host without the metric (`---` in the ranks file) is not a pair
    where hosts_by_stratum.centrality_value is not null
)

select * from centrality_quality_pairs
