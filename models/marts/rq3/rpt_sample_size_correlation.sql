with

host_samples as (
    select * from {{ ref('int_host_samples') }}
),

dataset_signals as (
    select * from {{ ref('int_dataset_signals') }}
),

sample_sizes as (
    select
        {{ unnest_values(range(1, (var('sample_size_max') | int) + 1), 'integer') }}
            as sample_size
),

host_sets as (
    select
        host_set_values.host_set_id,
        host_set_values.host_set
    from (
        values
        (1, 'variable'),
        (2, 'fixed')
    ) as host_set_values (host_set_id, host_set)
),

-- Hosts alike in page count, HQ count and which sampled pages are HQ give the same
-- densities at every k: counted once, with how many hosts they stand for.
host_sample_shapes as (
    select
        host_samples.dataset_id,
        host_samples.classifier_id,
        host_samples.sample_seed,
        host_samples.page_count,
        host_samples.hq_page_count,
        host_samples.hq_sample_mask,
        count(*) as host_count

    from host_samples
    where host_samples.page_count >= 2
    group by all
),

-- SPEC A5: the first k sampled pages' HQ density against that of the pages left, on
-- hosts with a page left ('variable': n >= k + 1) or with enough pages for every k
-- ('fixed').
host_densities as (
    select
        host_sample_shapes.dataset_id,
        host_sample_shapes.classifier_id,
        host_sample_shapes.sample_seed,
        host_sets.host_set_id,
        sample_sizes.sample_size,
        host_sample_shapes.host_count,
        bit_count(
            host_sample_shapes.hq_sample_mask
            & ((1::bigint << sample_sizes.sample_size) - 1)
        ) as sample_hq_page_count,
        host_sample_shapes.page_count,
        host_sample_shapes.hq_page_count

    from host_sample_shapes
    cross join sample_sizes
    inner join host_sets
        on
            (
                host_sets.host_set = 'variable'
                and host_sample_shapes.page_count >= sample_sizes.sample_size + 1
            )
            or (
                -- a page left after every sample, whatever the vars
                host_sets.host_set = 'fixed'
                and host_sample_shapes.page_count >= greatest(
                    {{ var('fixed_host_set_min_pages') }},
                    {{ var('sample_size_max') }} + 1
                )
            )
),

-- The joint distribution of the two densities: equal fractions are equal doubles, so
-- tied hosts group together.
density_pairs as (
    select
        host_densities.dataset_id,
        host_densities.classifier_id,
        host_densities.sample_seed,
        host_densities.host_set_id,
        host_densities.sample_size,
        host_densities.sample_hq_page_count / host_densities.sample_size
            as sample_density,
        (host_densities.hq_page_count - host_densities.sample_hq_page_count)
        / (host_densities.page_count - host_densities.sample_size)
            as remaining_density,
        sum(host_densities.host_count) as host_count

    from host_densities
    group by all
),

-- How many hosts hold each value of either density.
{%- for density in ['sample_density', 'remaining_density'] %}

    {{ density }}_counts as (
        select
            density_pairs.dataset_id,
            density_pairs.classifier_id,
            density_pairs.sample_seed,
            density_pairs.host_set_id,
            density_pairs.sample_size,
            density_pairs.{{ density }},
            sum(density_pairs.host_count) as host_count

        from density_pairs
        group by all
    ),

    -- Mid-ranks (scipy's rankdata 'average') from the distinct values: a value held
    -- by w hosts after c hosts with smaller values spans ranks c + 1 .. c + w,
    -- mid-rank c + (w + 1) / 2.
    {{ density }}_ranks as (
        select
            {{ density }}_counts.dataset_id,
            {{ density }}_counts.classifier_id,
            {{ density }}_counts.sample_seed,
            {{ density }}_counts.host_set_id,
            {{ density }}_counts.sample_size,
            {{ density }}_counts.{{ density }},
            (sum({{ density }}_counts.host_count) over value_order)
            - ({{ density }}_counts.host_count - 1) / 2 as {{ density }}_rank

        from {{ density }}_counts
        window
            value_order as (
                partition by
                    {{ density }}_counts.dataset_id,
                    {{ density }}_counts.classifier_id,
                    {{ density }}_counts.sample_seed,
                    {{ density }}_counts.host_set_id,
                    {{ density }}_counts.sample_size
                order by {{ density }}_counts.{{ density }}
                rows between unbounded preceding and current row
            )
    ),
{%- endfor %}

ranked_pairs as (
    select
        density_pairs.dataset_id,
        density_pairs.classifier_id,
        density_pairs.sample_seed,
        density_pairs.host_set_id,
        density_pairs.sample_size,
        density_pairs.host_count,
        sample_density_ranks.sample_density_rank,
        remaining_density_ranks.remaining_density_rank,
        -- the mean of n mid-ranks is (n + 1) / 2
        (sum(density_pairs.host_count) over sample + 1) / 2 as rank_mean

    from density_pairs
    inner join sample_density_ranks
        on
            density_pairs.dataset_id = sample_density_ranks.dataset_id
            and density_pairs.classifier_id = sample_density_ranks.classifier_id
            and density_pairs.sample_seed = sample_density_ranks.sample_seed
            and density_pairs.host_set_id = sample_density_ranks.host_set_id
            and density_pairs.sample_size = sample_density_ranks.sample_size
            and density_pairs.sample_density = sample_density_ranks.sample_density
    inner join remaining_density_ranks
        on
            density_pairs.dataset_id = remaining_density_ranks.dataset_id
            and density_pairs.classifier_id = remaining_density_ranks.classifier_id
            and density_pairs.sample_seed = remaining_density_ranks.sample_seed
            and density_pairs.host_set_id = remaining_density_ranks.host_set_id
            and density_pairs.sample_size = remaining_density_ranks.sample_size
            and density_pairs.remaining_density
            = remaining_density_ranks.remaining_density
    window
        sample as (
            partition by
                density_pairs.dataset_id,
                density_pairs.classifier_id,
                density_pairs.sample_seed,
                density_pairs.host_set_id,
                density_pairs.sample_size
        )
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
        max(seed_correlations.spearman_rho) as spearman_rho_max

    from seed_correlations
    inner join dataset_signals
        on
            seed_correlations.dataset_id = dataset_signals.dataset_id
            and seed_correlations.classifier_id = dataset_signals.classifier_id
    inner join host_sets
        on seed_correlations.host_set_id = host_sets.host_set_id
    group by all
)

select * from sample_size_correlation
