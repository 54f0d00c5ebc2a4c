-- Each host with pages left after its sample, in each seed's deepening order
-- (`deepening_order`), with the pages left before it and the running sums the
-- bootstrap's slope needs (docs/definitions.md B, "Depth policies at a budget"): the
-- boundary's movement at budget share f has the variance sum over hosts at or before
-- it of r^2 + 2 [charged] r s - 2 f n r, plus sum over every host of
-- (f n - [charged] s)^2 (n pages, s sampled, r = n - s left). No rows when the
-- intervals are off.

with

sampled_hosts as (
    select * from {{ ref('int_depth_policy_sampled_hosts') }}
    where pages_left > 0 and {{ var('bootstrap_replicates') | int }} > 0
),

deepening_places as (
    select
        sampled_hosts.dataset_id,
        sampled_hosts.classifier_id,
        sampled_hosts.sample_seed,
        sampled_hosts.host_id,
        sampled_hosts.page_count,
        sampled_hosts.sample_page_count,
        sampled_hosts.sample_hq_page_count,
        sampled_hosts.pages_left,
        sampled_hosts.hq_pages_left,
        -- (the window in brackets: Spark reads `up_to - x` as one identifier)
        (sum(sampled_hosts.pages_left) over up_to) - sampled_hosts.pages_left
            as pages_before,
        sum(sampled_hosts.pages_left * sampled_hosts.pages_left) over up_to
            as left_squares_up_to,
        sum(sampled_hosts.pages_left * sampled_hosts.sample_page_count) over up_to
            as left_sample_products_up_to,
        sum(sampled_hosts.pages_left * sampled_hosts.page_count) over up_to
            as left_page_products_up_to

    from sampled_hosts
    window up_to as (
        partition by
            sampled_hosts.dataset_id,
            sampled_hosts.classifier_id,
            sampled_hosts.sample_seed
        order by {{ deepening_order('sampled_hosts') }}
        rows between unbounded preceding and current row
    )
)

select * from deepening_places
