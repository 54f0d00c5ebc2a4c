-- What each host ordering collects at each budget (docs/definitions.md A4): the hosts
-- before the boundary host whole, and the boundary host's share of its HQ pages the
-- budget leaves; the TLDs reached are those first met at or before the boundary host.
-- The steps: int_host_ordering_hosts and int_host_ordering_positions (the orders),
-- int_host_ordering_block_sums, int_host_ordering_budget_blocks and
-- int_host_ordering_boundaries (the running sums in two steps).

with

budget_boundaries as (
    select * from {{ ref('int_host_ordering_boundaries') }}
),

ordered_host_sums as (
    select * from {{ ref('int_host_ordering_block_sums') }}
),

classifiers as (
    select * from {{ ref('int_classifiers') }}
),

-- the ids are unique over both families of policies
crawl_policies as (
    select * from {{ ref('crawl_policies') }}
),

tld_first_positions as (
    select
        ordered_host_sums.classifier_id,
        ordered_host_sums.policy_id,
        ordered_host_sums.random_seed,
        ordered_host_sums.first_position

    from ordered_host_sums
    where
        not ordered_host_sums.is_block_sum
        and ordered_host_sums.tld_id is not null
),

budget_tld_counts as (
    select
        budget_boundaries.classifier_id,
        budget_boundaries.policy_id,
        budget_boundaries.random_seed,
        budget_boundaries.budget_share,
        count(tld_first_positions.first_position) as tld_count

    from budget_boundaries
    left join tld_first_positions
        on
            budget_boundaries.classifier_id = tld_first_positions.classifier_id
            and budget_boundaries.policy_id = tld_first_positions.policy_id
            and budget_boundaries.random_seed = tld_first_positions.random_seed
            and budget_boundaries.boundary_position
            >= tld_first_positions.first_position
    group by all
),

host_ordering_yields as (
    select
        ---------- ids
        classifiers.classifier,
        crawl_policies.policy,
        budget_boundaries.random_seed,
        budget_boundaries.budget_share,

        ---------- numerics
        budget_boundaries.pages_fetched,
        budget_boundaries.hq_pages_before
        + (budget_boundaries.pages_fetched - budget_boundaries.pages_before)
        / budget_boundaries.boundary_page_count
        * budget_boundaries.boundary_hq_page_count as hq_collected,
        budget_boundaries.host_count::bigint as host_count,
        budget_tld_counts.tld_count,
        budget_boundaries.boundary_position,
        budget_boundaries.boundary_page_count::bigint as boundary_page_count,
        budget_boundaries.boundary_hq_page_count::bigint as boundary_hq_page_count,
        budget_boundaries.total_page_count::bigint as total_page_count,
        budget_boundaries.total_hq_page_count::bigint as total_hq_page_count

    from budget_boundaries
    inner join budget_tld_counts
        on
            budget_boundaries.classifier_id = budget_tld_counts.classifier_id
            and budget_boundaries.policy_id = budget_tld_counts.policy_id
            and budget_boundaries.random_seed = budget_tld_counts.random_seed
            and budget_boundaries.budget_share = budget_tld_counts.budget_share
    inner join classifiers
        on budget_boundaries.classifier_id = classifiers.classifier_id
    inner join crawl_policies
        on budget_boundaries.policy_id = crawl_policies.policy_id
)

select * from host_ordering_yields
