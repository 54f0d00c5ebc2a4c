with

-- read three times (its crawls, then each signal's hosts): scanned, not its 30.5M rows
-- held in memory (27.0 s against 22.7 s for the query at paper scale)
host_crawls as {{ not_materialized() }} (
    select * from {{ ref('fct_host_crawls') }}
    where {{ in_updated_partitions('crawl') }}
),

host_classifier_stats as (
    select * from {{ ref('int_host_classifier_stats') }}
),

classifiers as (
    select * from {{ ref('int_classifiers') }}
),

-- Integer ids for the window partitions (DuckDB sorts names several times slower).
crawl_names as (
    select distinct host_crawls.crawl
    from host_crawls
),

crawls as (
    select
        crawl_names.crawl,
        row_number() over (order by crawl_names.crawl)::integer as crawl_id
    from crawl_names
),

-- Densities from one or two pages are 0 or 1; and a crawl fetches (so annotates) more
-- pages of the hosts it covers more: their ties bias the correlation. Each correlation
-- is computed again on hosts with more annotated pages.
page_thresholds as (
    select
        {{ unnest_values(var('coverage_quality_min_annotated_pages'), 'integer') }}
            as min_annotated_pages
),

signals as (
    select
        0 as signal_id,
        'annotations' as signal,
        'crawl_annotations' as signal_source
    union all
    select
        classifiers.classifier_id as signal_id,
        classifiers.classifier as signal,
        'classified_sample' as signal_source
    from classifiers
),

-- docs/definitions.md A7 (RQ4 coverage vs quality): a crawl's coverage of each analysed
-- host against its annotations' HQ density, and against each classifier's host median
-- on the classified sample's hosts.
signal_hosts as (
    select
        crawls.crawl_id,
        0 as signal_id,
        host_crawls.annotated_page_count,
        host_crawls.coverage_rate,
        host_crawls.hq_density as quality
    from host_crawls
    inner join crawls
        on host_crawls.crawl = crawls.crawl
    where host_crawls.is_analysed
    union all
    select
        crawls.crawl_id,
        host_classifier_stats.classifier_id as signal_id,
        host_crawls.annotated_page_count,
        host_crawls.coverage_rate,
        host_classifier_stats.quality_score_median as quality
    from host_crawls
    inner join crawls
        on host_crawls.crawl = crawls.crawl
    inner join host_classifier_stats
        on host_crawls.surt_host_name = host_classifier_stats.surt_host_name
    where
        host_crawls.is_analysed
        and host_classifier_stats.doc_count >= {{ var('min_docs_per_host') }}
),

coverage_quality_pairs as (
    select
        signal_hosts.crawl_id,
        signal_hosts.signal_id,
        page_thresholds.min_annotated_pages,
        signal_hosts.coverage_rate,
        signal_hosts.quality

    from signal_hosts
    inner join page_thresholds
        -- host-level annotations have no page count: they count as one page
        on
            coalesce(signal_hosts.annotated_page_count, 1)
            >= page_thresholds.min_annotated_pages
),

{%- set pair_group = 'coverage_quality_pairs.crawl_id,'
    ~ ' coverage_quality_pairs.signal_id,'
    ~ ' coverage_quality_pairs.min_annotated_pages' %}

coverage_quality_ranked as (
    select
        coverage_quality_pairs.crawl_id,
        coverage_quality_pairs.signal_id,
        coverage_quality_pairs.min_annotated_pages,
        {{ mid_rank('coverage_quality_pairs.coverage_rate', pair_group) }}
            as coverage_rank,
        {{ mid_rank('coverage_quality_pairs.quality', pair_group) }} as quality_rank

    from coverage_quality_pairs
),

signal_correlations as (
    select
        coverage_quality_ranked.crawl_id,
        coverage_quality_ranked.signal_id,
        coverage_quality_ranked.min_annotated_pages,
        count(*) as host_count,
        {{ bounded_correlation(
            'corr(coverage_quality_ranked.coverage_rank, coverage_quality_ranked.quality_rank)'
        ) }} as spearman_rho

    from coverage_quality_ranked
    group by all
),

-- The bootstrap intervals (docs/definitions.md B, "Host-index statistics"): each host's
-- influence on rho, psi_h; the first-order bootstrap's variance is sum_h psi_h^2, and
-- the interval its normal limit (macros/bootstrap.sql: a replicate per host and
-- replicate is out of reach over a crawl's host index). None when bootstrap_replicates
-- is 0.
bootstrapped_pairs as (
    select
        coverage_quality_pairs.crawl_id,
        coverage_quality_pairs.signal_id,
        coverage_quality_pairs.min_annotated_pages,
        coverage_quality_pairs.coverage_rate,
        coverage_quality_pairs.quality
    from coverage_quality_pairs
    where {{ var('bootstrap_replicates') | int }} > 0
),

{{ spearman_influence(
    'pairs_influence',
    'bootstrapped_pairs',
    ['crawl_id', 'signal_id', 'min_annotated_pages'],
    [],
    'coverage_rate',
    'quality'
) }},

signal_variances as (
    select
        pairs_influence.crawl_id,
        pairs_influence.signal_id,
        pairs_influence.min_annotated_pages,
        sum(power(pairs_influence.influence, 2)) as spearman_rho_variance
    from pairs_influence
    group by all
),

coverage_quality_correlation as (
    select
        ---------- ids
        crawls.crawl,
        signals.signal,
        signal_correlations.min_annotated_pages,

        ---------- strings
        signals.signal_source,

        ---------- numerics
        signal_correlations.host_count,
        signal_correlations.spearman_rho,
        {{ normal_interval(
            'signal_correlations.spearman_rho',
            'signal_variances.spearman_rho_variance',
            'spearman_rho',
            '-1.0',
            '1.0'
        ) }}

    from signal_correlations
    inner join crawls
        on signal_correlations.crawl_id = crawls.crawl_id
    inner join signals
        on signal_correlations.signal_id = signals.signal_id
    left join signal_variances
        on
            signal_correlations.crawl_id = signal_variances.crawl_id
            and signal_correlations.signal_id = signal_variances.signal_id
            and signal_correlations.min_annotated_pages
            = signal_variances.min_annotated_pages
)

select * from coverage_quality_correlation
