-- Each ordering's budget boundary (but random's) with the yield curve's slope there,
-- for the bootstrap's first order (docs/definitions.md B, "Yields at a budget"): the
-- HQ density of the hosts whose first page lies within s pages of the boundary
-- host's, s the bootstrap's standard deviation of the boundary's movement, sqrt(sum_i
-- p_i^2 ([i at or before the boundary] - f)^2). One host's density would be the slope
-- of a single step of the curve: on the paper lake it overstated HC's standard errors
-- by 19-33% against the exact bootstrap, the window's within 3.3% for every order
-- (bench/bench_bootstrap_linearization.py). No rows when the intervals are off.

with

host_ordering_yields as (
    select * from {{ ref('int_host_ordering_yields') }}
),

host_places as (
    select * from {{ ref('int_host_ordering_places') }}
),

classifiers as (
    select * from {{ ref('int_classifiers') }}
),

policies as (
    select * from {{ ref('crawl_policies') }}
    where family = 'host_ordering'
),

-- The boundaries, where their hosts start, and the spread of their movement.
boundaries as (
    select
        classifiers.classifier_id,
        policies.policy_id,
        host_ordering_yields.classifier,
        host_ordering_yields.policy,
        host_ordering_yields.budget_share,
        host_ordering_yields.hq_collected,
        host_ordering_yields.boundary_position,
        host_places.pages_before as boundary_start,
        sqrt(
            power(1 - host_ordering_yields.budget_share, 2)
            * host_places.page_squares_up_to
            + power(host_ordering_yields.budget_share, 2)
            * (host_places.page_squares - host_places.page_squares_up_to)
        ) as movement_sd,
        -- a host is before the boundary when no more than this many boundaries are at
        -- or before it
        rank() over (
            partition by classifiers.classifier_id, policies.policy_id
            order by host_ordering_yields.boundary_position
        ) - 1 as boundaries_before

    from host_ordering_yields
    inner join classifiers
        on host_ordering_yields.classifier = classifiers.classifier
    inner join policies
        on host_ordering_yields.policy = policies.policy
    inner join host_places
        on
            classifiers.classifier_id = host_places.classifier_id
            and policies.policy_id = host_places.policy_id
            and host_ordering_yields.boundary_position = host_places.order_position
    where host_ordering_yields.policy != 'random'
),

boundary_slopes as (
    select
        boundaries.classifier_id,
        boundaries.policy_id,
        boundaries.classifier,
        boundaries.policy,
        boundaries.budget_share,
        boundaries.hq_collected,
        boundaries.boundary_position,
        boundaries.boundaries_before,
        sum(host_places.hq_page_count)::double / sum(host_places.page_count) as slope

    from boundaries
    inner join host_places
        on
            boundaries.classifier_id = host_places.classifier_id
            and boundaries.policy_id = host_places.policy_id
            and host_places.pages_before
            between boundaries.boundary_start - boundaries.movement_sd
            and boundaries.boundary_start + boundaries.movement_sd
    group by all
)

select * from boundary_slopes
