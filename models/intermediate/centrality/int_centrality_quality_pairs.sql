with

host_universe as (
    select * from {{ ref('int_host_universe') }}
),

hosts_by_metric as (
    select
        host_universe.*,
        'hc' as centrality_metric,
        1 as centrality_metric_id,
        host_universe.hc_val as centrality_value
    from host_universe
    union all
    select
        host_universe.*,
        'pr' as centrality_metric,
        2 as centrality_metric_id,
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

-- An integer id per stratum, for the correlation windows to partition by.
strata as (
    select
        strata_present.stratum_type,
        strata_present.stratum,
        row_number() over (
            order by strata_present.stratum_type, strata_present.stratum
        )::integer as stratum_id

    from (
        select distinct
            host_universe.language_stratum as stratum,
            'language' as stratum_type
        from host_universe
        union
        select distinct
            host_universe.tld_macro_category as stratum,
            'tld_category' as stratum_type
        from host_universe
        union
        select
            'all' as stratum,
            'pooled' as stratum_type
    ) as strata_present
),

centrality_quality_pairs as (
    select
        ---------- ids
        hosts_by_stratum.classifier,
        hosts_by_stratum.classifier_id,
        hosts_by_stratum.centrality_metric,
        hosts_by_stratum.centrality_metric_id,
        hosts_by_stratum.stratum_type,
        hosts_by_stratum.stratum,
        strata.stratum_id,
        hosts_by_stratum.host_id,

        ---------- numerics
        hosts_by_stratum.centrality_value,
        hosts_by_stratum.quality_score_median,
        hosts_by_stratum.doc_count

    from hosts_by_stratum
    inner join strata
        on
            hosts_by_stratum.stratum_type = strata.stratum_type
            and hosts_by_stratum.stratum = strata.stratum
    -- a host without the metric (`---` in the ranks file, or NaN) is not a pair
    where
        hosts_by_stratum.centrality_value is not null
        and not isnan(hosts_by_stratum.centrality_value)
)

select * from centrality_quality_pairs
