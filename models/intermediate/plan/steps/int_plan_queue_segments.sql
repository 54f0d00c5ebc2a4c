{%- set sample_size = var('plan_sample_size') | int %}

-- The queue the crawl plan walks beyond its exploration share, one row per segment of a
-- host in each way the plan is computed (int_plan_scenarios), over the pages its
-- constraints leave each host (int_plan_capacity); in queue order, by step then
-- order_in_step, each with its host's floor groups (language stratum, TLD category):
--   1 the k-page samples of hosts of unknown quality, in random order, up to
--     `plan_max_sample_share` of the budget;
--   2 whole hosts of known quality at least as dense in HQ (by their sampled pages) as
--     the hosts of known quality pooled, densest first;
--   3 the samples that did not fit in step 1;
--   4 the rest of the sampled hosts (expected as dense as the pool: which of them
--     deserve it is known only once their sample is scored);
--   5 the hosts of known quality below the pool's density, densest first;
--   6 the rest of the exploration hosts.

with

-- read three times (each step's hosts): scanned, not held in memory (30.5M wide rows at
-- paper scale: 19.6 s against 14.7 s)
host_capacity as {{ not_materialized() }} (
    select * from {{ ref('int_plan_capacity') }}
),

plan_shares as (
    select * from {{ ref('int_plan_budget') }}
),

exploration_pages as (
    select * from {{ ref('int_plan_exploration') }}
),

sample_hosts as (
    select
        host_capacity.scenario_id,
        host_capacity.plan_host_id,
        host_capacity.random_order,
        host_capacity.language_stratum,
        host_capacity.tld_macro_category,
        least(host_capacity.plannable_page_count, {{ sample_size }}) as segment_pages

    from host_capacity
    where
        host_capacity.quality_group = 'unknown_quality'
        and host_capacity.plannable_page_count > 0
),

sample_limits as (
    select
        plan_shares.scenario_id,
        plan_shares.sample_pages_max

    from plan_shares
),

-- the samples' pages in random order, through each, where the sample's share ends (by
-- blocks of the order: macros/prefix_sums.sql)
sample_segments as (
    select
        sample_pages.*,
        sample_pages.pages_before + sample_pages.segment_pages as pages_through

    from {{ prefix_sum_to_limit(
        'sample_hosts',
        ['scenario_id'],
        [order_block('sample_hosts.random_order')],
        ['random_order'],
        'segment_pages',
        'sample_limits',
        'sample_pages_max',
        'pages_before'
    ) }} as sample_pages
),

queue_segments as (
    select
        sample_segments.scenario_id,
        case
            when sample_segments.pages_through <= plan_shares.sample_pages_max then 1
            else 3
        end as queue_step,
        sample_segments.plan_host_id,
        sample_segments.random_order as order_in_step,
        'sample' as segment_kind,
        sample_segments.segment_pages,
        sample_segments.language_stratum,
        sample_segments.tld_macro_category

    from sample_segments
    inner join plan_shares
        on sample_segments.scenario_id = plan_shares.scenario_id
    union all
    select
        host_capacity.scenario_id,
        case
            when host_capacity.sampled_hq_density >= plan_shares.prior_hq_density then 2
            else 5
        end as queue_step,
        host_capacity.plan_host_id,
        -- densest first; among equals the larger host (more pages at that density),
        -- then the random order. As a 128-bit integer like the random orders of the
        -- other steps: a union with a bigint would make them all doubles, and tie
        -- random orders that differ below their 53 leading bits.
        {{ md5_number_cast(
            'row_number() over (partition by host_capacity.scenario_id'
            ~ ' order by host_capacity.sampled_hq_density desc,'
            ~ ' host_capacity.plannable_page_count desc, host_capacity.random_order asc)'
        ) }} as order_in_step,
        'deepen' as segment_kind,
        host_capacity.plannable_page_count as segment_pages,
        host_capacity.language_stratum,
        host_capacity.tld_macro_category

    from host_capacity
    inner join plan_shares
        on host_capacity.scenario_id = plan_shares.scenario_id
    where
        host_capacity.quality_group = 'known_quality'
        and host_capacity.plannable_page_count > 0
    union all
    select
        host_capacity.scenario_id,
        4 as queue_step,
        host_capacity.plan_host_id,
        host_capacity.random_order as order_in_step,
        'deepen' as segment_kind,
        host_capacity.plannable_page_count - {{ sample_size }} as segment_pages,
        host_capacity.language_stratum,
        host_capacity.tld_macro_category

    from host_capacity
    where
        host_capacity.quality_group = 'unknown_quality'
        and host_capacity.plannable_page_count > {{ sample_size }}
    union all
    select
        exploration_pages.scenario_id,
        6 as queue_step,
        exploration_pages.plan_host_id,
        exploration_pages.random_order as order_in_step,
        'explore' as segment_kind,
        exploration_pages.page_count - exploration_pages.pages_explored
            as segment_pages,
        exploration_pages.language_stratum,
        exploration_pages.tld_macro_category

    from exploration_pages
    where exploration_pages.page_count > exploration_pages.pages_explored
)

select * from queue_segments
