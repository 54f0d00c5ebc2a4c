{%- set thresholds = var('icc_min_docs') | sort %}

with

host_classifier_stats as (
    select * from {{ ref('int_host_classifier_stats') }}
),

min_doc_thresholds as (
    select {{ unnest_values(thresholds, 'integer') }} as min_docs
),

-- Each host once per classifier, in the band of the largest threshold it reaches: the
-- replicates' sums are taken per band, and a threshold's are its bands' and those
-- above (a host of 12 pages counts at 3, 5 and 10 without being joined three times).
-- An integer per host: the weights' join is on it, not on the name.
hosts_banded as (
    select
        host_classifier_stats.classifier,
        host_classifier_stats.surt_host_name,
        dense_rank() over (order by host_classifier_stats.surt_host_name)::integer
            as host_key,
        case
            {%- for threshold in thresholds | reverse %}
                when host_classifier_stats.doc_count >= {{ threshold }}
                    then {{ threshold }}
            {%- endfor %}
        end as band,
        host_classifier_stats.doc_count,
        host_classifier_stats.quality_score_mean,
        host_classifier_stats.quality_score_var

    from host_classifier_stats
    where host_classifier_stats.doc_count >= {{ thresholds[0] }}
),

-- Each classifier's grand mean over its hosts in scope: every sum is taken about it
-- (near every replicate's and threshold's own mean, so the between-host sum of
-- squares does not cancel).
sample_means as (
    select
        hosts_banded.classifier,
        sum(hosts_banded.doc_count * hosts_banded.quality_score_mean)
        / sum(hosts_banded.doc_count) as center

    from hosts_banded
    group by all
),

-- Each host's terms of the sums, before they are multiplied by its weights.
host_terms as (
    select
        hosts_banded.classifier,
        hosts_banded.band,
        hosts_banded.host_key,
        hosts_banded.doc_count,
        hosts_banded.doc_count
        * (hosts_banded.quality_score_mean - sample_means.center) as centered,
        hosts_banded.doc_count
        * power(hosts_banded.quality_score_mean - sample_means.center, 2) as squares,
        (hosts_banded.doc_count - 1) * hosts_banded.quality_score_var as within_squares,
        hosts_banded.doc_count * hosts_banded.doc_count as doc_count_squared

    from hosts_banded
    inner join sample_means
        on hosts_banded.classifier = sample_means.classifier
),

-- Replicate 0 is the sample; 1 .. bootstrap_replicates the Poisson bootstrap's
-- (macros/bootstrap.sql): each statistic below is computed once per replicate. Held,
-- not inlined: each host's weights are read once per classifier.
host_weights as {{ materialized() }} (
    {{ bootstrap_host_weights('hosts_banded', 'host_key', 'surt_host_name') }}
),

-- Each band's sums in each replicate: a host of weight w counts as w hosts.
band_sums as (
    select
        host_terms.classifier,
        host_terms.band,
        host_weights.replicate,
        sum(host_weights.weight) as host_count,
        sum(host_weights.weight * host_terms.doc_count) as doc_count,
        sum(host_weights.weight * host_terms.centered) as centered_sum,
        sum(host_weights.weight * host_terms.squares) as centered_squares,
        sum(host_weights.weight * host_terms.within_squares) as ssw,
        sum(host_weights.weight * host_terms.doc_count_squared)
            as doc_count_sum_of_squares

    from host_terms
    inner join host_weights
        on host_terms.host_key = host_weights.host_key
    where host_weights.weight > 0
    group by all
),

replicate_sums as (
    select
        band_sums.classifier,
        min_doc_thresholds.min_docs,
        band_sums.replicate,
        any_value(sample_means.center) as center,
        sum(band_sums.host_count)::bigint as host_count,
        sum(band_sums.doc_count)::bigint as doc_count,
        sum(band_sums.centered_sum) as centered_sum,
        sum(band_sums.centered_squares) as centered_squares,
        sum(band_sums.ssw) as ssw,
        sum(band_sums.doc_count_sum_of_squares)::double as doc_count_sum_of_squares

    from band_sums
    inner join min_doc_thresholds
        on band_sums.band >= min_doc_thresholds.min_docs
    inner join sample_means
        on band_sums.classifier = sample_means.classifier
    group by all
),

-- Between hosts from each host's distance to the grand mean (through the centred
-- sums), within hosts from each host's sample variance.
mean_squares as (
    select
        replicate_sums.classifier,
        replicate_sums.min_docs,
        replicate_sums.replicate,
        replicate_sums.host_count,
        replicate_sums.doc_count,
        replicate_sums.center
        + replicate_sums.centered_sum / replicate_sums.doc_count as grand_mean,
        replicate_sums.centered_squares
        - power(replicate_sums.centered_sum, 2) / replicate_sums.doc_count as ssb,
        replicate_sums.ssw,
        replicate_sums.host_count - 1 as df_between,
        replicate_sums.doc_count - replicate_sums.host_count as df_within,
        (
            replicate_sums.centered_squares
            - power(replicate_sums.centered_sum, 2) / replicate_sums.doc_count
        )
        / nullif(replicate_sums.host_count - 1, 0) as msb,
        replicate_sums.ssw
        / nullif(replicate_sums.doc_count - replicate_sums.host_count, 0) as msw,
        -- the unbalanced-design average host size (Snedecor & Cochran's n0)
        (
            replicate_sums.doc_count
            - replicate_sums.doc_count_sum_of_squares / replicate_sums.doc_count
        )
        / nullif(replicate_sums.host_count - 1, 0) as n0

    from replicate_sums
),

replicate_icc as (
    select
        mean_squares.*,
        -- ICC(1), one-way random effects; negative values are kept as they are
        (mean_squares.msb - mean_squares.msw)
        / nullif(mean_squares.msb + (mean_squares.n0 - 1) * mean_squares.msw, 0)
            as icc1
    from mean_squares
)

select * from replicate_icc
