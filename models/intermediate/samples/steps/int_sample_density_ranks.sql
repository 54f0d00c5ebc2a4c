-- The mid-ranks (scipy's rankdata 'average') of both densities of the k-sample pairs
-- (int_sample_density_pairs), each pair weighted by the hosts it stands for, and the
-- mean rank of its sample: what Spearman's rho of the pairs needs.

with

density_pairs as (
    select * from {{ ref('int_sample_density_pairs') }}
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
)

select * from ranked_pairs
