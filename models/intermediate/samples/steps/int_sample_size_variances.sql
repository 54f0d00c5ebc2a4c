-- The k-sample correlations' bootstrap variances over hosts (docs/definitions.md B,
-- "Rank statistics"): the mean over seeds of Spearman's rho at each k moves, to first
-- order, by sum_h (w_h - 1) psi_h, psi_h host h's influence on each seed's rho averaged
-- over the seeds where rho is defined (the seeds sample the same hosts, so one host's
-- weight moves them all at once); its variance is sum_h psi_h^2, the interval its
-- normal limit (the mart). Each seed's influences come from its distinct pairs of
-- densities, each weighted by the hosts that give it (int_sample_pair_influences); each
-- host looks its own up in every seed. No rows when the intervals are off.
--
-- One k at a time (macro after): each k's influences and hosts wait for the previous
-- k's variances, so that one k's join and per-host sums hold memory at once. All k
-- together summed ~136M host × k groups for the full crawl at 400M URL rows, past the
-- 8 GB spill cap (docs/performance.md).

{%- set sample_sizes = range(1, (var('sample_size_max') | int) + 1) %}

with

-- both read once per k, each k's scan of the tables costing less than holding them
host_samples as {{ not_materialized() }} (
    select * from {{ ref('int_host_samples') }}
    where {{ var('bootstrap_replicates') }} > 0
),

pair_influences as {{ not_materialized() }} (
    select * from {{ ref('int_sample_pair_influences') }}
),

{%- for k in sample_sizes %}
    {%- set previous = 'sample_size_variances_' ~ (k - 1) %}

    -- k = {{ k }}: its pairs' influences, and the hosts that look theirs up
    pairs_influence_{{ k }} as (
        select k_influences.*
        from (
            select * from pair_influences
            where sample_size = {{ k }}
        ) as k_influences
        {{ after(previous) if not loop.first }}
    ),

    hosts_{{ k }} as (
        select * from host_samples
        {{ after(previous) if not loop.first }}
    ),

    host_densities_{{ k }} as {{ k_sample_densities(
        'hosts_' ~ k,
        ['dataset_id', 'classifier_id', 'sample_seed', 'host_id'],
        [k],
    ) }},

    -- psi_h: each host's influences averaged over the seeds where rho is defined (its
    -- pair has an influence exactly there: the host set is the same in every seed)
    host_influences_{{ k }} as (
        select
            host_densities_{{ k }}.dataset_id,
            host_densities_{{ k }}.classifier_id,
            host_densities_{{ k }}.host_set_id,
            host_densities_{{ k }}.host_id,
            avg(pairs_influence_{{ k }}.influence) as influence

        from host_densities_{{ k }}
        inner join pairs_influence_{{ k }}
            on
                host_densities_{{ k }}.dataset_id = pairs_influence_{{ k }}.dataset_id
                and host_densities_{{ k }}.classifier_id
                = pairs_influence_{{ k }}.classifier_id
                and host_densities_{{ k }}.sample_seed
                = pairs_influence_{{ k }}.sample_seed
                and host_densities_{{ k }}.host_set_id
                = pairs_influence_{{ k }}.host_set_id
                and host_densities_{{ k }}.sample_density
                = pairs_influence_{{ k }}.sample_density
                and host_densities_{{ k }}.remaining_density
                = pairs_influence_{{ k }}.remaining_density
        group by all
    ),

    sample_size_variances_{{ k }} as {{ materialized() }} (
        select
            host_influences_{{ k }}.dataset_id,
            host_influences_{{ k }}.classifier_id,
            host_influences_{{ k }}.host_set_id,
            {{ k }} as sample_size,
            sum(power(host_influences_{{ k }}.influence, 2)) as spearman_rho_variance
        from host_influences_{{ k }}
        group by all
    ),
{%- endfor %}

sample_size_variances as (
    {%- for k in sample_sizes %}
        select * from sample_size_variances_{{ k }}
        {{ 'union all' if not loop.last }}
    {%- endfor %}
)

select * from sample_size_variances
