with

host_classifier_stats as (
    select * from {{ ref('int_host_classifier_stats') }}
),

hosts_profiled as (
    select * from {{ ref('int_hosts_profiled') }}
),

host_medians as (
    select
        host_classifier_stats.classifier,
        hosts_profiled.language_stratum,
        host_classifier_stats.quality_score_median

    from host_classifier_stats
    inner join hosts_profiled
        on host_classifier_stats.surt_host_name = hosts_profiled.surt_host_name
    where host_classifier_stats.doc_count >= {{ var('min_docs_per_host') }}
),

score_by_language as (
    select
        ---------- ids
        host_medians.classifier,
        host_medians.language_stratum,

        ---------- numerics
        count(*) as host_count,
        {{ quantile_cont('host_medians.quality_score_median', 0.25) }}
            as host_median_score_p25,
        {{ quantile_cont('host_medians.quality_score_median', 0.5) }}
            as host_median_score_p50,
        {{ quantile_cont('host_medians.quality_score_median', 0.75) }}
            as host_median_score_p75,
        avg(host_medians.quality_score_median) as host_median_score_mean

    from host_medians
    group by all
)

select * from score_by_language
