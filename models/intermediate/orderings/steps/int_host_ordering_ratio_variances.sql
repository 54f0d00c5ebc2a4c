-- Each ordering's ratio to random at each budget with its bootstrap variance, to first
-- order (docs/definitions.md B, "Yields at a budget"). With host h weighted w_h the
-- budget is f sum w p and the boundary moves: the yield's derivative in w_h is psi_h =
-- [h before the boundary] (HQ_h - p_h d) + f p_h d, d the curve's slope at the boundary
-- (int_host_ordering_boundary_slopes). Random collects f of all HQ pages in
-- expectation, its mean m times sum w HQ / T (T the HQ pages), so the ratio R = Y / m
-- moves by psi_h / m - R HQ_h / T: alpha HQ_h + beta p_h, with alpha = 1 / m - R / T
-- and beta = (f - 1) d / m before the boundary, alpha = -R / T and beta = f d / m from
-- it on. Its variance, sum_h (alpha HQ_h + beta p_h)^2, takes the sums of HQ^2, HQ p
-- and p^2 before the boundary host and over the order (int_host_ordering_places): one
-- row per boundary, no replicate.

with

boundary_slopes as (
    select * from {{ ref('int_host_ordering_boundary_slopes') }}
),

host_places as (
    select * from {{ ref('int_host_ordering_places') }}
),

host_ordering_yields as (
    select * from {{ ref('int_host_ordering_yields') }}
),

random_means as (
    select
        host_ordering_yields.classifier,
        host_ordering_yields.budget_share,
        avg(host_ordering_yields.hq_collected) as random_hq_collected

    from host_ordering_yields
    where host_ordering_yields.policy = 'random'
    group by all
),

-- the boundary's coefficients and the sums before its host (the boundary host's own
-- terms taken off what is summed up to it)
boundary_terms as (
    select
        boundary_slopes.classifier,
        boundary_slopes.policy,
        boundary_slopes.budget_share,
        boundary_slopes.hq_collected / random_means.random_hq_collected as ratio,
        1 / random_means.random_hq_collected
        - boundary_slopes.hq_collected
        / (random_means.random_hq_collected * host_places.hq_pages) as alpha_before,
        -boundary_slopes.hq_collected
        / (random_means.random_hq_collected * host_places.hq_pages) as alpha_after,
        (boundary_slopes.budget_share - 1) * boundary_slopes.slope
        / random_means.random_hq_collected as beta_before,
        boundary_slopes.budget_share * boundary_slopes.slope
        / random_means.random_hq_collected as beta_after,
        host_places.hq_squares_up_to
        - host_places.hq_page_count * host_places.hq_page_count as hq_squares_before,
        host_places.hq_page_products_up_to
        - host_places.hq_page_count * host_places.page_count as hq_page_products_before,
        host_places.page_squares_up_to
        - host_places.page_count * host_places.page_count as page_squares_before,
        host_places.hq_squares,
        host_places.hq_page_products,
        host_places.page_squares

    from boundary_slopes
    inner join random_means
        on
            boundary_slopes.classifier = random_means.classifier
            and boundary_slopes.budget_share = random_means.budget_share
    inner join host_places
        on
            boundary_slopes.classifier_id = host_places.classifier_id
            and boundary_slopes.policy_id = host_places.policy_id
            and boundary_slopes.boundary_position = host_places.order_position
    where random_means.random_hq_collected > 0 and host_places.hq_pages > 0
),

ratio_variances as (
    select
        boundary_terms.classifier,
        boundary_terms.policy,
        boundary_terms.budget_share,
        boundary_terms.ratio,
        greatest(
            power(boundary_terms.alpha_before, 2) * boundary_terms.hq_squares_before
            + 2 * boundary_terms.alpha_before * boundary_terms.beta_before
            * boundary_terms.hq_page_products_before
            + power(boundary_terms.beta_before, 2) * boundary_terms.page_squares_before
            + power(boundary_terms.alpha_after, 2)
            * (boundary_terms.hq_squares - boundary_terms.hq_squares_before)
            + 2 * boundary_terms.alpha_after * boundary_terms.beta_after
            * (boundary_terms.hq_page_products - boundary_terms.hq_page_products_before)
            + power(boundary_terms.beta_after, 2)
            * (boundary_terms.page_squares - boundary_terms.page_squares_before),
            0
        ) as ratio_variance

    from boundary_terms
)

select * from ratio_variances
