with

host_classifier_stats as (
    select * from {{ ref('int_host_classifier_stats') }}
),

hosts_profiled as (
    select * from {{ ref('int_hosts_profiled') }}
),

-- U_c (docs/definitions.md §4.0 (Conventions)): enough classified pages, and a node of
-- the graph release.
host_universe as (
    select
        ---------- ids
        host_classifier_stats.classifier,
        host_classifier_stats.classifier_id,
        host_classifier_stats.surt_host_name,
        hosts_profiled.host_id,

        ---------- strings
        hosts_profiled.url_host_tld,
        hosts_profiled.language_stratum,
        hosts_profiled.tld_macro_category,

        ---------- numerics
        host_classifier_stats.doc_count,
        host_classifier_stats.quality_score_median,
        host_classifier_stats.hq_doc_count,
        host_classifier_stats.hq_density,
        hosts_profiled.hc_val,
        hosts_profiled.pr_val,
        hosts_profiled.fetched_url_count

    from host_classifier_stats
    inner join hosts_profiled
        on host_classifier_stats.surt_host_name = hosts_profiled.surt_host_name
    where
        host_classifier_stats.doc_count >= {{ var('min_docs_per_host') }}
        and hosts_profiled.is_in_graph
)

select * from host_universe
