with

host_ordering_yield_curves as (
    select * from {{ ref('rpt_host_ordering_yield_curves') }}
),

ratio_replicates as (
    select * from {{ ref('int_host_ordering_ratio_replicates') }}
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

-- The ratio's percentile interval and standard error over the host bootstrap's
-- replicates (none for random itself, or when bootstrap_replicates is 0: the columns
-- are null).
ratio_intervals as (
    select
        ratio_replicates.classifier,
        ratio_replicates.policy,
        ratio_replicates.budget_share,
        {{ bootstrap_interval(
            'ratio_replicates.hq_ratio_vs_random', 'hq_ratio_vs_random'
        ) }}
    from ratio_replicates
    where ratio_replicates.replicate > 0
    group by all
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
        ratio_intervals.hq_ratio_vs_random_ci_low,
        ratio_intervals.hq_ratio_vs_random_ci_high,
        ratio_intervals.hq_ratio_vs_random_se,
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
    left join ratio_intervals
        on
            host_ordering_yield_curves.classifier = ratio_intervals.classifier
            and host_ordering_yield_curves.policy = ratio_intervals.policy
            and host_ordering_yield_curves.budget_share = ratio_intervals.budget_share
)

select * from host_ordering_at_budget
