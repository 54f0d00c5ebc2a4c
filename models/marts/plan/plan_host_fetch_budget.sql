{{ config(format='parquet') }}

{%- set sample_size = var('plan_sample_size') | int %}

with

plan_hosts as (
    select * from {{ ref('int_plan_hosts') }}
),

------------------------------------------------------------------------- the budget

-- The total fetches: `plan_budget_pages`, or `plan_budget_share` of the known URLs.
-- The exploration share is taken first; the sample of hosts of unknown quality may use
-- at most `plan_max_sample_share` of the budget before deepening starts.
plan_budget as (
    select
        1 as plan_id,
        {%- if var('plan_budget_pages') is not none %}
            {{ var('plan_budget_pages') | int }}::bigint as budget_pages,
        {%- else %}
            floor(
                sum(plan_hosts.known_url_count) * {{ var('plan_budget_share') }}
            )::bigint as budget_pages,
        {%- endif %}
        -- the pooled HQ share of the hosts whose quality is known: the expected density
        -- of a host not yet sampled
        coalesce(
            sum(plan_hosts.sampled_hq_page_count)
            filter (where plan_hosts.quality_group = 'known_quality')
            / nullif(
                sum(plan_hosts.sampled_page_count)
                filter (where plan_hosts.quality_group = 'known_quality'),
                0
            ),
            0
        ) as prior_hq_density

    from plan_hosts
),

plan_shares as (
    select
        plan_budget.*,
        floor(
            plan_budget.budget_pages * {{ var('plan_exploration_share') }}
        )::bigint as exploration_pages,
        floor(
            plan_budget.budget_pages * {{ var('plan_max_sample_share') }}
        )::bigint as sample_pages_max

    from plan_budget
),

------------------------------------------------------------------------- exploration

-- Breadth first over the hosts whose quality the classifier cannot judge: every host
-- the same number of pages (or all it has), the level set so that the pages add up to
-- the exploration share (water-filling with weight 1), then one page more for as many
-- hosts (in random order) as the whole pages leave over.
exploration_hosts as (
    select
        1 as plan_id,
        plan_hosts.surt_host_name,
        plan_hosts.random_order,
        plan_hosts.known_url_count as page_count,
        1 as weight,
        0 as hq_page_count

    from plan_hosts
    where
        plan_hosts.quality_group = 'unreliable_quality'
        and plan_hosts.known_url_count > 0
),

exploration_capacity as (
    select
        plan_shares.plan_id,
        plan_shares.exploration_pages,
        coalesce(sum(exploration_hosts.page_count), 0) as capacity_pages

    from plan_shares
    left join exploration_hosts
        on plan_shares.plan_id = exploration_hosts.plan_id
    group by all
),

-- the exploration share, or all the exploration hosts have when that is less
exploration_budget as (
    select
        exploration_capacity.plan_id,
        least(
            exploration_capacity.exploration_pages,
            exploration_capacity.capacity_pages
        ) as budget_pages

    from exploration_capacity
),

exploration_fill as (
    select *
    from {{ water_filling('exploration_hosts', 'exploration_budget', ['plan_id']) }}
),

exploration_level as (
    select
        exploration_budget.plan_id,
        exploration_budget.budget_pages,
        -- whole pages per host: the level, less a rounding error of the division (no
        -- level when there is nothing to spend)
        floor(coalesce(exploration_fill.fill_level, 0) + 1e-9)::bigint as page_level

    from exploration_budget
    left join exploration_fill
        on exploration_budget.plan_id = exploration_fill.plan_id
),

exploration_base as (
    select
        exploration_hosts.surt_host_name,
        exploration_hosts.random_order,
        exploration_hosts.page_count,
        least(exploration_hosts.page_count, exploration_level.page_level) as base_pages,
        exploration_hosts.page_count > exploration_level.page_level as has_pages_left,
        exploration_level.budget_pages
        - sum(least(exploration_hosts.page_count, exploration_level.page_level)) over ()
            as pages_left_over

    from exploration_hosts
    inner join exploration_level
        on exploration_hosts.plan_id = exploration_level.plan_id
),

exploration_pages as (
    select
        exploration_base.surt_host_name,
        exploration_base.base_pages
        + case
            when
                exploration_base.has_pages_left
                and row_number() over (
                    partition by exploration_base.has_pages_left
                    order by exploration_base.random_order
                ) <= exploration_base.pages_left_over
                then 1
            else 0
        end as pages_explored

    from exploration_base
),

------------------------------------------------------------------------- the queue

-- Every other fetch is one walk down a queue of host segments, each taken whole while
-- the budget lasts and the last one in part:
--   1 the k-page samples of hosts of unknown quality, in random order, up to
--     `plan_max_sample_share` of the budget;
--   2 whole hosts of known quality at least as dense in HQ (by their sampled pages) as
--     the hosts of known quality pooled, densest first;
--   3 the samples that did not fit in step 1;
--   4 the rest of the sampled hosts (expected as dense as the pool: which of them
--     deserve it is known only once their sample is scored);
--   5 the hosts of known quality below the pool's density, densest first;
--   6 the rest of the exploration hosts.
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
        exploration_base.surt_host_name,
        exploration_base.random_order as order_in_step,
        'explore' as segment_kind,
        exploration_base.page_count - exploration_pages.pages_explored as segment_pages

    from exploration_base
    inner join exploration_pages
        on exploration_base.surt_host_name = exploration_pages.surt_host_name
    where exploration_base.page_count > exploration_pages.pages_explored
),

queue_walked as (
    select
        queue_segments.surt_host_name,
        queue_segments.segment_kind,
        queue_segments.queue_step,
        queue_segments.segment_pages,
        -- the budget the exploration share did not spend, less the segments before
        plan_shares.budget_pages - exploration_budget.budget_pages
        - coalesce(
            sum(queue_segments.segment_pages) over (
                order by queue_segments.queue_step, queue_segments.order_in_step
                rows between unbounded preceding and 1 preceding
            ),
            0
        ) as budget_left

    from queue_segments
    cross join plan_shares
    cross join exploration_budget
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
),

------------------------------------------------------------------------- the plan

host_pages as (
    select
        plan_hosts.*,
        coalesce(queue_pages.pages_sampled, 0)::bigint as pages_sampled,
        coalesce(queue_pages.pages_deepened, 0)::bigint as pages_deepened,
        (
            coalesce(exploration_pages.pages_explored, 0)
            + coalesce(queue_pages.pages_explored, 0)
        )::bigint as pages_explored,
        coalesce(queue_pages.is_sample_deferred, false) as is_sample_deferred,
        coalesce(queue_pages.is_boundary_host, false) as is_boundary_host,
        -- a host's pages are as dense in HQ as its sampled pages when it has k of them
        -- (or is judged anyway, in the exploration share); a host still to be sampled
        -- as the hosts of known quality, pooled
        case
            when plan_hosts.quality_group = 'known_quality'
                then plan_hosts.sampled_hq_density
            when plan_hosts.quality_group = 'unreliable_quality'
                then
                    coalesce(
                        plan_hosts.sampled_hq_density, plan_shares.prior_hq_density
                    )
            else plan_shares.prior_hq_density
        end as hq_density_estimate

    from plan_hosts
    cross join plan_shares
    left join queue_pages
        on plan_hosts.surt_host_name = queue_pages.surt_host_name
    left join exploration_pages
        on plan_hosts.surt_host_name = exploration_pages.surt_host_name
),

host_fetch_budget as (
    select
        ---------- ids
        host_pages.surt_host_name,

        ---------- strings
        case
            when
                host_pages.pages_sampled + host_pages.pages_deepened
                + host_pages.pages_explored = 0 then 'skip'
            when host_pages.quality_group = 'unreliable_quality' then 'explore'
            when host_pages.pages_deepened > 0 then 'deepen'
            else 'sample'
        end as phase,
        case
            when host_pages.quality_group = 'no_known_urls'
                then 'the host index gives no known URL for the host'
            when
                host_pages.quality_group = 'unreliable_quality'
                and host_pages.pages_explored = 0
                then 'not English: left out once the exploration share was spent'
            when host_pages.quality_group = 'unreliable_quality'
                then
                    'not English, which the English-trained classifier judges poorly: '
                    || 'fetched breadth-first from the exploration share'
            when
                host_pages.quality_group = 'known_quality'
                and host_pages.pages_deepened = 0
                then
                    'HQ share of its sampled pages below that of the hosts taken'
            when
                host_pages.quality_group = 'known_quality'
                and host_pages.is_boundary_host
                then
                    'among the densest hosts in HQ: the budget ends inside this host'
            when host_pages.quality_group = 'known_quality'
                then 'among the densest hosts in HQ by its sampled pages: taken whole'
            when host_pages.pages_sampled = 0
                then 'quality unknown: the budget ran out before its sample'
            when host_pages.pages_deepened > 0
                then 'quality unknown: sampled, then deepened with the budget left over'
            when host_pages.is_sample_deferred
                then 'quality unknown: sampled after the known hosts were deepened'
            else 'quality unknown: sampled to measure it before deepening'
        end as reason,
        host_pages.quality_group,
        host_pages.language_stratum,
        host_pages.tld_macro_category,

        ---------- numerics
        host_pages.known_url_count,
        host_pages.sampled_page_count,
        host_pages.sampled_hq_density,
        host_pages.hq_density_estimate,
        host_pages.pages_sampled,
        host_pages.pages_deepened,
        host_pages.pages_explored,
        host_pages.pages_sampled + host_pages.pages_deepened
        + host_pages.pages_explored as pages_to_fetch,
        (
            host_pages.pages_sampled
            + host_pages.pages_deepened
            + host_pages.pages_explored
        )
        * host_pages.hq_density_estimate as expected_hq

    from host_pages
)

select * from host_fetch_budget
