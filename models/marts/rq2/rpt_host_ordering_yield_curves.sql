with

host_ordering_yields as (
    select * from {{ ref('int_host_ordering_yields') }}
),

-- random: the mean over seeds, and its spread; other policies have one ordering.
host_ordering_yield_curves as (
    select
        ---------- ids
        host_ordering_yields.classifier,
        host_ordering_yields.policy,
        host_ordering_yields.budget_share,

        ---------- numerics
        avg(host_ordering_yields.pages_fetched) as pages_fetched,
        avg(host_ordering_yields.hq_collected) as hq_collected,
        stddev_samp(host_ordering_yields.hq_collected) as hq_collected_sd,
        avg(host_ordering_yields.hq_collected)
        / nullif(any_value(host_ordering_yields.total_hq_page_count), 0) as hq_share,
        avg(host_ordering_yields.host_count)::double as host_count,
        avg(host_ordering_yields.tld_count)::double as tld_count,
        count(*) as ordering_count

    from host_ordering_yields
    group by all
)

select * from host_ordering_yield_curves
