-- What the crawl plan's queue gives each host beyond the exploration share, one row per
-- host with a segment given pages (int_plan_queue_taken) per way the plan is computed.
-- A host has at most one segment of each kind (a sample; one deepening, or one
-- exploration), so each kind's sum is that segment's pages.

with

segments_given as (
    select * from {{ ref('int_plan_queue_taken') }}
),

queue_pages as (
    select
        segments_given.scenario_id,
        segments_given.plan_host_id,
        sum(segments_given.pages_taken) filter (
            where segments_given.segment_kind = 'sample'
        )::bigint as pages_sampled,
        sum(segments_given.pages_taken) filter (
            where segments_given.segment_kind = 'deepen'
        )::bigint as pages_deepened,
        sum(segments_given.pages_taken) filter (
            where segments_given.segment_kind = 'explore'
        )::bigint as pages_explored,
        sum(segments_given.reserved_pages)::bigint as pages_reserved,
        bool_or(
            segments_given.segment_kind = 'sample' and segments_given.queue_step = 3
        ) as is_sample_deferred,
        bool_or(segments_given.is_boundary_segment) as is_boundary_host

    from segments_given
    group by all
)

select * from queue_pages
