with

host_ordering_yield_curves as (
    select * from {{ ref('rpt_host_ordering_yield_curves') }}
),

random_yields as (
    select
        host_ordering_yield_curves.classifier,
        host_ordering_yield_curves.budget_share,
        host_ordering_yield_curves.hq_collected,
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
)

select * from host_ordering_at_budget
