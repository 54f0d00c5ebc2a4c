-- Every segment of the crawl plan's queue that gets pages beyond the exploration share,
-- in each way the plan is computed (int_plan_scenarios): first each floor's reserve
-- (int_plan_floors), taken down the queue (int_plan_queue_segments) among the floor
-- group's own segments; then one walk down the whole queue with the budget left, over
-- what the reserves left of each segment, each segment taken whole while the budget
-- lasts and the last one in part. A table of its own, apart from the hosts' totals
-- (int_plan_queue): at 1/8 of a real crawl the walk and a per-host aggregate over
-- 165M groups in one query passed an 8 GB spill cap, each alone does not
-- (docs/performance.md).

with

-- read twice (the floors' reserves, the walk): scanned twice rather than held in
-- memory (32M rows at paper scale, which the walk's window then spilled around: 60 s
-- against 46 s)
queue_segments as {{ not_materialized() }} (
    select * from {{ ref('int_plan_queue_segments') }}
),

plan_floors as (
    select * from {{ ref('int_plan_floors') }}
),

plan_shares as (
    select * from {{ ref('int_plan_budget') }}
),

segments_grouped as (
    select queue_segments.*

    from queue_segments
    inner join plan_shares
        on queue_segments.scenario_id = plan_shares.scenario_id
    where plan_shares.applies_floors
),

floor_members as (
    select
        segments_grouped.scenario_id,
        segments_grouped.plan_host_id,
        segments_grouped.queue_step,
        segments_grouped.order_in_step,
        segments_grouped.segment_pages,
        plan_floors.dimension,
        plan_floors.dimension_value,
        plan_floors.reserve_pages

    from segments_grouped
    inner join plan_floors
        on
            segments_grouped.scenario_id = plan_floors.scenario_id
            and plan_floors.dimension_value = case plan_floors.dimension
                when 'language_stratum' then segments_grouped.language_stratum
                else segments_grouped.tld_macro_category
            end
),

-- each floor's segments in queue order, with the floor's pages before them where its
-- reserve ends (by blocks of the queue: macros/prefix_sums.sql)
floor_segments as (
    select floor_pages.*

    from {{ prefix_sum_to_limit(
        'floor_members',
        ['scenario_id', 'dimension', 'dimension_value'],
        ['floor_members.queue_step', order_block('floor_members.order_in_step')],
        ['queue_step', 'order_in_step'],
        'segment_pages',
        'plan_floors',
        'reserve_pages',
        'floor_pages_before'
    ) }} as floor_pages
),

-- a segment in two floors' reserves (one per dimension) is reserved as the larger says
segment_reserves as (
    select
        floor_segments.scenario_id,
        floor_segments.plan_host_id,
        floor_segments.queue_step,
        max(
            least(
                floor_segments.segment_pages,
                floor_segments.reserve_pages - floor_segments.floor_pages_before
            )
        ) as reserved_pages

    from floor_segments
    where floor_segments.floor_pages_before < floor_segments.reserve_pages
    group by all
),

segments_reserved as (
    select
        queue_segments.*,
        coalesce(segment_reserves.reserved_pages, 0) as reserved_pages,
        queue_segments.segment_pages
        - coalesce(segment_reserves.reserved_pages, 0) as pages_left

    from queue_segments
    left join segment_reserves
        on
            queue_segments.scenario_id = segment_reserves.scenario_id
            and queue_segments.plan_host_id = segment_reserves.plan_host_id
            and queue_segments.queue_step = segment_reserves.queue_step
),

reserves_total as (
    select
        segment_reserves.scenario_id,
        sum(segment_reserves.reserved_pages) as reserved_pages

    from segment_reserves
    group by all
),

-- the walk's limit: the budget the exploration share and the reserves did not spend
walk_limits as (
    select
        plan_shares.scenario_id,
        plan_shares.budget_pages - plan_shares.exploration_budget_pages
        - coalesce(reserves_total.reserved_pages, 0) as walk_pages

    from plan_shares
    left join reserves_total
        on plan_shares.scenario_id = reserves_total.scenario_id
),

-- the pages the walk meets before each segment where the budget ends (by blocks)
segments_ordered as (
    select pages_before.*

    from {{ prefix_sum_to_limit(
        'segments_reserved',
        ['scenario_id'],
        ['segments_reserved.queue_step', order_block('segments_reserved.order_in_step')],
        ['queue_step', 'order_in_step'],
        'pages_left',
        'walk_limits',
        'walk_pages',
        'pages_left_before'
    ) }} as pages_before
),

queue_walked as (
    select
        segments_ordered.scenario_id,
        segments_ordered.plan_host_id,
        segments_ordered.segment_kind,
        segments_ordered.queue_step,
        segments_ordered.reserved_pages,
        segments_ordered.pages_left,
        -- the walk's budget less what it took of the segments before
        segments_ordered.prefix_limit - segments_ordered.pages_left_before
            as budget_left

    from segments_ordered
),

segments_taken as (
    select
        queue_walked.*,
        queue_walked.reserved_pages
        + least(queue_walked.pages_left, greatest(queue_walked.budget_left, 0))
            as pages_taken

    from queue_walked
),

segments_given as (
    select
        segments_taken.scenario_id,
        segments_taken.plan_host_id,
        segments_taken.segment_kind,
        segments_taken.queue_step,
        segments_taken.reserved_pages::bigint as reserved_pages,
        segments_taken.pages_taken::bigint as pages_taken,
        -- the walk's budget ends inside this segment
        segments_taken.budget_left > 0
        and segments_taken.budget_left < segments_taken.pages_left
            as is_boundary_segment

    from segments_taken
    where segments_taken.pages_taken > 0
)

select * from segments_given
