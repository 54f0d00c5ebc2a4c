-- The k-sample predictiveness (docs/definitions.md A5): per seed, Spearman's rho of the
-- first k sampled pages' HQ density against the rest's, over the ranked pairs of
-- int_sample_density_ranks; then its mean, sd, min and max over the seeds, and the
-- mean's bootstrap interval over hosts.

with

ranked_pairs as (
    select * from {{ ref('int_sample_density_ranks') }}
),

dataset_signals as (
    select * from {{ ref('int_dataset_signals') }}
),

host_sets as (
    select * from {{ ref('int_sample_host_sets') }}
),

-- the bootstrap's variances (docs/definitions.md B, "Rank statistics")
sample_size_variances as (
    select * from {{ ref('int_sample_size_variances') }}
),

-- Spearman's rho per seed: Pearson's of the mid-ranks, each pair weighted by its hosts.
seed_correlations as (
    select
        ranked_pairs.dataset_id,
        ranked_pairs.classifier_id,
        ranked_pairs.sample_seed,
        ranked_pairs.host_set_id,
        ranked_pairs.sample_size,
        sum(ranked_pairs.host_count) as host_count,
        {{ bounded_correlation(weighted_corr(
            'ranked_pairs.sample_density_rank',
            'ranked_pairs.remaining_density_rank',
            'ranked_pairs.host_count',
            'ranked_pairs.rank_mean',
            'ranked_pairs.rank_mean'
        )) }} as spearman_rho

    from ranked_pairs
    group by all
),

sample_size_correlation as (
    select
        ---------- ids
        dataset_signals.dataset,
        dataset_signals.classifier,
        seed_correlations.sample_size,
        host_sets.host_set,

        ---------- numerics
        max(seed_correlations.host_count)::bigint as host_count,
        count(seed_correlations.spearman_rho)::integer as seed_count,
        avg(seed_correlations.spearman_rho) as spearman_rho,
        stddev_samp(seed_correlations.spearman_rho) as spearman_rho_sd,
        min(seed_correlations.spearman_rho) as spearman_rho_min,
        max(seed_correlations.spearman_rho) as spearman_rho_max,
        {{ normal_interval(
            'avg(seed_correlations.spearman_rho)',
            'any_value(sample_size_variances.spearman_rho_variance)',
            'spearman_rho',
            '-1.0',
            '1.0'
        ) }}

    from seed_correlations
    inner join dataset_signals
        on
            seed_correlations.dataset_id = dataset_signals.dataset_id
            and seed_correlations.classifier_id = dataset_signals.classifier_id
    inner join host_sets
        on seed_correlations.host_set_id = host_sets.host_set_id
    left join sample_size_variances
        on
            seed_correlations.dataset_id = sample_size_variances.dataset_id
            and seed_correlations.classifier_id = sample_size_variances.classifier_id
            and seed_correlations.host_set_id = sample_size_variances.host_set_id
            and seed_correlations.sample_size = sample_size_variances.sample_size
    group by all
)

select * from sample_size_correlation
