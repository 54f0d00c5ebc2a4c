-- The k-sample correlations' pairs of densities (docs/definitions.md A5): for every k,
-- the first k sampled pages' HQ density against that of the pages left, on hosts with a
-- page left ('variable': n >= k + 1) or with enough pages for every k ('fixed'). Hosts
-- alike give the same pairs: each distinct pair once, with the hosts it stands for.

with

host_samples as (
    select * from {{ ref('int_host_samples') }}
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

host_densities as {{ k_sample_densities(
    'host_sample_shapes',
    ['dataset_id', 'classifier_id', 'sample_seed', 'host_count'],
) }},

-- The joint distribution of the two densities: equal fractions are equal doubles, so
-- tied hosts group together.
density_pairs as (
    select
        host_densities.dataset_id,
        host_densities.classifier_id,
        host_densities.sample_seed,
        host_densities.host_set_id,
        host_densities.sample_size,
        host_densities.sample_density,
        host_densities.remaining_density,
        sum(host_densities.host_count) as host_count

    from host_densities
    group by all
)

select * from density_pairs
