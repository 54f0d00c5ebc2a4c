-- The k-sample correlations' pairs of densities (docs/definitions.md A5): for every k,
-- the first k sampled pages' HQ density against that of the pages left, on hosts with a
-- page left ('variable': n >= k + 1) or with enough pages for every k ('fixed'). Hosts
-- alike give the same pairs: each distinct pair once, with the hosts it stands for.

with

host_samples as (
    select * from {{ ref('int_host_samples') }}
),

host_sets as (
    select * from {{ ref('int_sample_host_sets') }}
),

sample_sizes as (
    select
        {{ unnest_values(range(1, (var('sample_size_max') | int) + 1), 'integer') }}
            as sample_size
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
)

select * from density_pairs
