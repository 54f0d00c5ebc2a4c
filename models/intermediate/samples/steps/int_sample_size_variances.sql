-- The k-sample correlations' bootstrap variances over hosts (docs/definitions.md B,
-- "Rank statistics"): the mean over seeds of Spearman's rho at each k moves, to first
-- order, by sum_h (w_h - 1) psi_h, psi_h host h's influence on each seed's rho averaged
-- over the seeds where rho is defined (the seeds sample the same hosts, so one host's
-- weight moves them all at once); its variance is sum_h psi_h^2, the interval its
-- normal limit (the mart). Each seed's influences come from its distinct pairs of
-- densities, each weighted by the hosts that give it (int_sample_density_pairs); each
-- host looks its own up in every seed. No rows when the intervals are off.

with

host_samples as (
    select * from {{ ref('int_host_samples') }}
    where {{ var('bootstrap_replicates') }} > 0
),

density_pairs as (
    select * from {{ ref('int_sample_density_pairs') }}
    where {{ var('bootstrap_replicates') }} > 0
),

-- each distinct pair's influence on its seed's rho, per host it stands for
{{ spearman_influence(
    'pairs_influence',
    'density_pairs',
    ['dataset_id', 'classifier_id', 'sample_seed', 'host_set_id', 'sample_size'],
    ['sample_density', 'remaining_density'],
    'sample_density',
    'remaining_density',
    weight='host_count'
) }},

-- the seeds each rho is defined in, which the mean averages
defined_seeds as (
    select
        pairs_influence.dataset_id,
        pairs_influence.classifier_id,
        pairs_influence.host_set_id,
        pairs_influence.sample_size,
        count(distinct pairs_influence.sample_seed) as seed_count
    from pairs_influence
    group by all
),

host_densities as {{ k_sample_densities(
    'host_samples',
    ['dataset_id', 'classifier_id', 'sample_seed', 'host_id'],
) }},

-- psi_h: each host's influences summed over the seeds, over their number
host_influences as (
    select
        host_densities.dataset_id,
        host_densities.classifier_id,
        host_densities.host_set_id,
        host_densities.sample_size,
        host_densities.host_id,
        sum(pairs_influence.influence) as influence_sum

    from host_densities
    inner join pairs_influence
        on
            host_densities.dataset_id = pairs_influence.dataset_id
            and host_densities.classifier_id = pairs_influence.classifier_id
            and host_densities.sample_seed = pairs_influence.sample_seed
            and host_densities.host_set_id = pairs_influence.host_set_id
            and host_densities.sample_size = pairs_influence.sample_size
            and host_densities.sample_density = pairs_influence.sample_density
            and host_densities.remaining_density = pairs_influence.remaining_density
    group by all
),

sample_size_variances as (
    select
        host_influences.dataset_id,
        host_influences.classifier_id,
        host_influences.host_set_id,
        host_influences.sample_size,
        sum(power(host_influences.influence_sum / defined_seeds.seed_count, 2))
            as spearman_rho_variance

    from host_influences
    inner join defined_seeds
        on
            host_influences.dataset_id = defined_seeds.dataset_id
            and host_influences.classifier_id = defined_seeds.classifier_id
            and host_influences.host_set_id = defined_seeds.host_set_id
            and host_influences.sample_size = defined_seeds.sample_size
    group by all
)

select * from sample_size_variances
