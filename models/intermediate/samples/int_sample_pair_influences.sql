-- Each distinct pair of k-sample densities' influence on its seed's Spearman rho, per
-- host it stands for (docs/definitions.md B, "Rank statistics"; macro
-- spearman_influence, the pairs weighted by their hosts): what
-- int_sample_size_variances sums per host. A table of its own: its windows, computed
-- in the variances' query, stayed held to that query's end (docs/performance.md). No
-- rows when the intervals are off.

with

density_pairs as (
    select * from {{ ref('int_sample_density_pairs') }}
    where {{ var('bootstrap_replicates') }} > 0
),

{{ spearman_influence(
    'pair_influences',
    'density_pairs',
    ['dataset_id', 'classifier_id', 'sample_seed', 'host_set_id', 'sample_size'],
    ['sample_density', 'remaining_density'],
    'sample_density',
    'remaining_density',
    weight='host_count'
) }}

select * from pair_influences
