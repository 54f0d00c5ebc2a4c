with

replicate_icc as (
    select * from {{ ref('int_host_quality_icc_replicates') }}
),

-- Percentile intervals and the standard error over the bootstrap replicates (none when
-- bootstrap_replicates is 0: the columns are null).
icc_intervals as (
    select
        replicate_icc.classifier,
        replicate_icc.min_docs,
        {{ bootstrap_interval('replicate_icc.icc1', 'icc1') }}
    from replicate_icc
    where replicate_icc.replicate > 0
    group by all
),

host_quality_icc as (
    select
        ---------- ids
        replicate_icc.classifier,
        replicate_icc.min_docs,

        ---------- numerics
        replicate_icc.host_count,
        replicate_icc.doc_count,
        replicate_icc.grand_mean,
        replicate_icc.ssb,
        replicate_icc.ssw,
        replicate_icc.df_between,
        replicate_icc.df_within,
        replicate_icc.msb,
        replicate_icc.msw,
        replicate_icc.n0,
        replicate_icc.icc1,
        icc_intervals.icc1_ci_low,
        icc_intervals.icc1_ci_high,
        icc_intervals.icc1_se,
        replicate_icc.msb / nullif(replicate_icc.msw, 0) as f_stat,
        -- sensitivity: the share of score variance between host means
        -- (docs/definitions.md A2 (ICC(1)))
        replicate_icc.ssb
        / nullif(replicate_icc.ssb + replicate_icc.ssw, 0) as icc_variance_ratio

    from replicate_icc
    left join icc_intervals
        on
            replicate_icc.classifier = icc_intervals.classifier
            and replicate_icc.min_docs = icc_intervals.min_docs
    where replicate_icc.replicate = 0
)

select * from host_quality_icc
