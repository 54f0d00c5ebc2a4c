with

host_ordering_yield_curves as (
    select * from {{ ref('rpt_host_ordering_yield_curves') }}
),

-- the ratio's first-order bootstrap variance over hosts
ratio_variances as (
    select * from {{ ref('int_host_ordering_ratio_variances') }}
),

random_yields as (
    select
        host_ordering_yield_curves.classifier,
        host_ordering_yield_curves.budget_share,
        host_ordering_yield_curves.hq_collected,
        host_ordering_yield_curves.hq_collected_sd,
        host_ordering_yield_curves.ordering_count,
        host_ordering_yield_curves.tld_count

    from host_ordering_yield_curves
    where host_ordering_yield_curves.policy = 'random'
),

oracle_yields as (
    select
        host_ordering_yield_curves.classifier,
        host_ordering_yield_curves.budget_share,
        host_ordering_yield_curves.hq_collected

    from host_ordering_yield_curves
    where host_ordering_yield_curves.policy = 'oracle'
),

host_ordering_at_budget as (
    select
        ---------- ids
        host_ordering_yield_curves.classifier,
        host_ordering_yield_curves.policy,
        host_ordering_yield_curves.budget_share,

        ---------- numerics
        host_ordering_yield_curves.hq_collected,
        random_yields.hq_collected as random_hq_collected,
        host_ordering_yield_curves.hq_collected
        / nullif(random_yields.hq_collected, 0) as hq_ratio_vs_random,
        -- the normal limit (none for random itself, or when bootstrap_replicates is 0)
        {{ normal_interval(
            'host_ordering_yield_curves.hq_collected'
            ~ ' / nullif(random_yields.hq_collected, 0)',
            'ratio_variances.ratio_variance',
            'hq_ratio_vs_random',
            '0.0'
        ) }},
        random_yields.hq_collected_sd as random_hq_collected_sd,
        -- the ratio's standard error from averaging a finite number of random orders
        -- (the delta method: ratio x sd / (mean sqrt(orders))), apart from the hosts'
        case
            when host_ordering_yield_curves.policy != 'random' then
                host_ordering_yield_curves.hq_collected
                * random_yields.hq_collected_sd
                / nullif(
                    power(random_yields.hq_collected, 2)
                    * sqrt(random_yields.ordering_count),
                    0
                )
        end as hq_ratio_seed_se,
        oracle_yields.hq_collected as oracle_hq_collected,
        host_ordering_yield_curves.tld_count,
        random_yields.tld_count as random_tld_count,
        host_ordering_yield_curves.tld_count
        / nullif(random_yields.tld_count, 0) as tld_ratio_vs_random

    from host_ordering_yield_curves
    inner join random_yields
        on
            host_ordering_yield_curves.classifier = random_yields.classifier
            and host_ordering_yield_curves.budget_share = random_yields.budget_share
    inner join oracle_yields
        on
            host_ordering_yield_curves.classifier = oracle_yields.classifier
            and host_ordering_yield_curves.budget_share = oracle_yields.budget_share
    left join ratio_variances
        on
            host_ordering_yield_curves.classifier = ratio_variances.classifier
            and host_ordering_yield_curves.policy = ratio_variances.policy
            and host_ordering_yield_curves.budget_share = ratio_variances.budget_share
)

select * from host_ordering_at_budget
