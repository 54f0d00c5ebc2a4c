with

host_classifier_stats as (
    select * from {{ ref('int_host_classifier_stats') }}
),

hosts_profiled as (
    select * from {{ ref('int_hosts_profiled') }}
),

-- The host universe U_c (SPEC §4.0): enough classified pages, and a node of the graph.
hosts_in_universe as (
    select
        host_classifier_stats.classifier,
        host_classifier_stats.surt_host_name,
        host_classifier_stats.doc_count,
        host_classifier_stats.quality_score_median,
        hosts_profiled.language_stratum,
        hosts_profiled.tld_macro_category,
        hosts_profiled.hc_val,
        hosts_profiled.pr_val

    from host_classifier_stats
    inner join hosts_profiled
        on host_classifier_stats.surt_host_name = hosts_profiled.surt_host_name
    where
        host_classifier_stats.doc_count >= {{ var('min_docs_per_host') }}
        and hosts_profiled.is_in_graph
),

hosts_by_metric as (
    select
        hosts_in_universe.*,
        'hc' as centrality_metric,
        hosts_in_universe.hc_val as centrality_value
    from hosts_in_universe
    union all
    select
        hosts_in_universe.*,
        'pr' as centrality_metric,
        hosts_in_universe.pr_val as centrality_value
    from hosts_in_universe
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
