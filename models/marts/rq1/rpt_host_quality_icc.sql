with

host_classifier_stats as (
    select * from {{ ref('int_host_classifier_stats') }}
),

min_doc_thresholds as (
    select {{ unnest_values(var('icc_min_docs'), 'integer') }} as min_docs
),

hosts_in_scope as (
    select
        min_doc_thresholds.min_docs,
        host_classifier_stats.classifier,
        host_classifier_stats.surt_host_name,
        host_classifier_stats.doc_count,
        host_classifier_stats.quality_score_mean,
        host_classifier_stats.quality_score_var

    from host_classifier_stats
    inner join min_doc_thresholds
        on host_classifier_stats.doc_count >= min_doc_thresholds.min_docs
),

grand_means as (
    select
        hosts_in_scope.classifier,
        hosts_in_scope.min_docs,
        count(*) as host_count,
        sum(hosts_in_scope.doc_count)::bigint as doc_count,
        sum(hosts_in_scope.doc_count * hosts_in_scope.quality_score_mean)
        / sum(hosts_in_scope.doc_count) as grand_mean,
        sum(hosts_in_scope.doc_count * hosts_in_scope.doc_count)::double
            as doc_count_sum_of_squares

    from hosts_in_scope
    group by all
),

-- Between hosts from each host's distance to the grand mean (not from raw moments,
-- which cancel badly); within hosts from each host's sample variance.
sums_of_squares as (
    select
        hosts_in_scope.classifier,
        hosts_in_scope.min_docs,
        sum(
            hosts_in_scope.doc_count
            * power(hosts_in_scope.quality_score_mean - grand_means.grand_mean, 2)
        ) as ssb,
        sum((hosts_in_scope.doc_count - 1) * hosts_in_scope.quality_score_var) as ssw

    from hosts_in_scope
    inner join grand_means
        on
            hosts_in_scope.classifier = grand_means.classifier
            and hosts_in_scope.min_docs = grand_means.min_docs
    group by all
),

mean_squares as (
    select
        grand_means.classifier,
        grand_means.min_docs,
        grand_means.host_count,
        grand_means.doc_count,
        grand_means.grand_mean,
        sums_of_squares.ssb,
        sums_of_squares.ssw,
        grand_means.host_count - 1 as df_between,
        grand_means.doc_count - grand_means.host_count as df_within,
        sums_of_squares.ssb / nullif(grand_means.host_count - 1, 0) as msb,
        sums_of_squares.ssw
        / nullif(grand_means.doc_count - grand_means.host_count, 0) as msw,
        -- the unbalanced-design average host size (Snedecor & Cochran's n0)
        (
            grand_means.doc_count
            - grand_means.doc_count_sum_of_squares / grand_means.doc_count
        )
        / nullif(grand_means.host_count - 1, 0) as n0

    from grand_means
    inner join sums_of_squares
        on
            grand_means.classifier = sums_of_squares.classifier
            and grand_means.min_docs = sums_of_squares.min_docs
),

host_quality_icc as (
    select
        ---------- ids
        mean_squares.classifier,
        mean_squares.min_docs,

        ---------- numerics
        mean_squares.host_count,
        mean_squares.doc_count,
        mean_squares.grand_mean,
        mean_squares.ssb,
        mean_squares.ssw,
        mean_squares.df_between,
        mean_squares.df_within,
        mean_squares.msb,
        mean_squares.msw,
        mean_squares.n0,
        -- ICC(1), one-way random effects; negative values are kept as they are
        (mean_squares.msb - mean_squares.msw)
        / nullif(mean_squares.msb + (mean_squares.n0 - 1) * mean_squares.msw, 0)
            as icc1,
        mean_squares.msb / nullif(mean_squares.msw, 0) as f_stat,
        -- sensitivity: the share of score variance between host means
        -- (docs/definitions.md A2 (ICC(1)))
        mean_squares.ssb
        / nullif(mean_squares.ssb + mean_squares.ssw, 0) as icc_variance_ratio

    from mean_squares
)

select * from host_quality_icc
