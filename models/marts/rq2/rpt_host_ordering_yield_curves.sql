with

host_orderings_cumulated as (
    select * from {{ ref('int_host_orderings_cumulated') }}
),

budget_shares as (
    select unnest({{ var('budget_shares') }})::double as budget_share
),

ordering_totals as (
    select
        host_orderings_cumulated.classifier,
        host_orderings_cumulated.policy,
        host_orderings_cumulated.random_seed,
        sum(host_orderings_cumulated.page_count) as total_page_count,
        sum(host_orderings_cumulated.hq_page_count) as total_hq_page_count

    from host_orderings_cumulated
    group by all
),

budgets as (
    select
        ordering_totals.*,
        budget_shares.budget_share,
        budget_shares.budget_share
        * ordering_totals.total_page_count as pages_fetched

    from ordering_totals
    cross join budget_shares
),

-- The boundary host of each budget: the last host whose first page fits in it. Hosts
-- before it are taken whole; it adds the share of its pages the budget leaves.
budget_boundaries as (
    select
        budgets.*,
        host_orderings_cumulated.rank_in_policy,
        host_orderings_cumulated.pages_before,
        host_orderings_cumulated.hq_pages_before,
        host_orderings_cumulated.page_count,
        host_orderings_cumulated.hq_page_count,
        host_orderings_cumulated.tld_count_so_far

    from budgets
    asof inner join host_orderings_cumulated
        on
            budgets.classifier = host_orderings_cumulated.classifier
            and budgets.policy = host_orderings_cumulated.policy
            and budgets.random_seed = host_orderings_cumulated.random_seed
            and budgets.pages_fetched > host_orderings_cumulated.pages_before
),

yields_per_ordering as (
    select
        budget_boundaries.classifier,
        budget_boundaries.policy,
        budget_boundaries.random_seed,
        budget_boundaries.budget_share,
        budget_boundaries.pages_fetched,
        budget_boundaries.total_hq_page_count,
        budget_boundaries.hq_pages_before
        + (budget_boundaries.pages_fetched - budget_boundaries.pages_before)
        / budget_boundaries.page_count
        * budget_boundaries.hq_page_count as hq_collected,
        budget_boundaries.rank_in_policy as host_count,
        budget_boundaries.tld_count_so_far as tld_count

    from budget_boundaries
),

-- random: the mean over seeds, and its spread; other policies have one ordering.
host_ordering_yield_curves as (
    select
        ---------- ids
        yields_per_ordering.classifier,
        yields_per_ordering.policy,
        yields_per_ordering.budget_share,

        ---------- numerics
        avg(yields_per_ordering.pages_fetched) as pages_fetched,
        avg(yields_per_ordering.hq_collected) as hq_collected,
        stddev_samp(yields_per_ordering.hq_collected) as hq_collected_sd,
        avg(yields_per_ordering.hq_collected)
        / nullif(any_value(yields_per_ordering.total_hq_page_count), 0) as hq_share,
        avg(yields_per_ordering.host_count)::double as host_count,
        avg(yields_per_ordering.tld_count)::double as tld_count,
        count(*) as ordering_count

    from yields_per_ordering
    group by all
)

select * from host_ordering_yield_curves
