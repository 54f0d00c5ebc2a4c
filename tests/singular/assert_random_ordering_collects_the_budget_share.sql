-- A random host order collects on average the budget's share of the HQ pages:
-- within 3%, give or take three standard errors of the mean over seeds and the bias
-- of taking whole hosts. A host of p pages out of P is reached with probability
-- about B / (P - p) rather than B / P, so a universe whose largest host holds a
-- share s of the pages may deviate by up to about s, relative. On the demo crawl s
-- is small and the 3% rule binds; on the tiny crawl (90 hosts) the allowance does.
with

yield_curves as (
    select * from {{ ref('rpt_host_ordering_yield_curves') }}
),

host_universe as (
    select * from {{ ref('int_host_universe') }}
),

largest_hosts as (
    select
        host_universe.classifier,
        max(host_universe.doc_count) / sum(host_universe.doc_count)
            as largest_host_page_share

    from host_universe
    group by all
),

random_deviations as (
    select
        yield_curves.classifier,
        yield_curves.budget_share,
        yield_curves.hq_share,
        abs(yield_curves.hq_share - yield_curves.budget_share) as deviation,
        yield_curves.budget_share
        * (0.03 + largest_hosts.largest_host_page_share)
        + 3 * coalesce(yield_curves.hq_collected_sd, 0)
        / sqrt(yield_curves.ordering_count)
        * yield_curves.hq_share
        / nullif(yield_curves.hq_collected, 0) as allowed_deviation

    from yield_curves
    inner join largest_hosts
        on yield_curves.classifier = largest_hosts.classifier
    where yield_curves.policy = 'random'
)

select * from random_deviations
where deviation > allowed_deviation
