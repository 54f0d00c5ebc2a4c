{%- set sample_size = var('plan_sample_size') | int %}

-- Every fetch of the crawl plan beyond the exploration share is one walk down a queue
-- of host segments, each taken whole while the budget lasts and the last one in part:
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

plan_hosts as (
    select * from {{ ref('int_plan_hosts') }}
),

plan_shares as (
    select * from {{ ref('int_plan_budget') }}
),

exploration_pages as (
    select * from {{ ref('int_plan_exploration') }}
),

sample_segments as (
    select
        plan_hosts.surt_host_name,
        plan_hosts.random_order,
        least(plan_hosts.known_url_count, {{ sample_size }}) as segment_pages,
        sum(least(plan_hosts.known_url_count, {{ sample_size }})) over (
            order by plan_hosts.random_order
            rows between unbounded preceding and current row
        ) as pages_through

    from plan_hosts
    where
        plan_hosts.quality_group = 'unknown_quality'
        and plan_hosts.known_url_count > 0
),

queue_segments as (
    select
        case
            when sample_segments.pages_through <= plan_shares.sample_pages_max then 1
            else 3
        end as queue_step,
        sample_segments.surt_host_name,
        sample_segments.random_order as order_in_step,
        'sample' as segment_kind,
        sample_segments.segment_pages

    from sample_segments
    cross join plan_shares
    union all
    select
        case
            when plan_hosts.sampled_hq_density >= plan_shares.prior_hq_density then 2
            else 5
        end as queue_step,
        plan_hosts.surt_host_name,
        -- densest first; among equals the larger host (more pages at that density),
        -- then the random order. As a 128-bit integer like the random orders of the
        -- other steps: a union with a bigint would make them all doubles, and tie
        -- random orders that differ below their 53 leading bits.
        {{ md5_number_cast(
            'row_number() over (order by plan_hosts.sampled_hq_density desc,'
            ~ ' plan_hosts.known_url_count desc, plan_hosts.random_order asc)'
        ) }} as order_in_step,
        'deepen' as segment_kind,
        plan_hosts.known_url_count as segment_pages

    from plan_hosts
    cross join plan_shares
    where
        plan_hosts.quality_group = 'known_quality'
        and plan_hosts.known_url_count > 0
    union all
    select
        4 as queue_step,
        plan_hosts.surt_host_name,
        plan_hosts.random_order as order_in_step,
        'deepen' as segment_kind,
        plan_hosts.known_url_count - {{ sample_size }} as segment_pages

    from plan_hosts
    where
        plan_hosts.quality_group = 'unknown_quality'
        and plan_hosts.known_url_count > {{ sample_size }}
    union all
    select
        6 as queue_step,
        exploration_pages.surt_host_name,
        exploration_pages.random_order as order_in_step,
        'explore' as segment_kind,
        exploration_pages.page_count - exploration_pages.pages_explored
            as segment_pages

    from exploration_pages
    where exploration_pages.page_count > exploration_pages.pages_explored
),

queue_walked as (
    select
        queue_segments.surt_host_name,
        queue_segments.segment_kind,
        queue_segments.queue_step,
        queue_segments.segment_pages,
        -- the budget the exploration share did not spend, less the segments before
        plan_shares.budget_pages - plan_shares.exploration_budget_pages
        - coalesce(
            sum(queue_segments.segment_pages) over (
                order by queue_segments.queue_step, queue_segments.order_in_step
                rows between unbounded preceding and 1 preceding
            ),
            0
        ) as budget_left

    from queue_segments
    cross join plan_shares
),

queue_pages as (
    select
        queue_walked.surt_host_name,
        sum(
            least(queue_walked.segment_pages, greatest(queue_walked.budget_left, 0))
        ) filter (where queue_walked.segment_kind = 'sample') as pages_sampled,
        sum(
            least(queue_walked.segment_pages, greatest(queue_walked.budget_left, 0))
        ) filter (where queue_walked.segment_kind = 'deepen') as pages_deepened,
        sum(
            least(queue_walked.segment_pages, greatest(queue_walked.budget_left, 0))
        ) filter (where queue_walked.segment_kind = 'explore') as pages_explored,
        bool_or(
            queue_walked.segment_kind = 'sample' and queue_walked.queue_step = 3
        ) as is_sample_deferred,
        bool_or(
            queue_walked.budget_left > 0
            and queue_walked.budget_left < queue_walked.segment_pages
        ) as is_boundary_host

    from queue_walked
    group by all
)

select * from queue_pages
