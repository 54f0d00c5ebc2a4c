-- The crawl plan against the previous crawl's (int_plan_allocations' `plan` and
-- `previous_plan`): each host's pages before and after, and why they moved.

with

host_allocations as (
    select * from {{ ref('int_plan_allocations') }}
),

plan_before as (
    select * from host_allocations
    where scenario = 'previous_plan'
),

plan_after as (
    select * from host_allocations
    where scenario = 'plan'
),

-- every host of either crawl's host index
hosts_compared as (
    select
        coalesce(plan_after.surt_host_name, plan_before.surt_host_name)
            as surt_host_name,
        plan_before.crawl as crawl_before,
        plan_after.crawl as crawl_after,
        {{ plan_phase('plan_before') }} as phase_before,
        {{ plan_phase('plan_after') }} as phase_after,
        plan_before.quality_group as quality_group_before,
        plan_after.quality_group as quality_group_after,
        coalesce(plan_before.known_url_count, 0) as known_url_count_before,
        coalesce(plan_after.known_url_count, 0) as known_url_count_after,
        coalesce(plan_before.plannable_page_count, 0) as plannable_page_count_before,
        coalesce(plan_after.plannable_page_count, 0) as plannable_page_count_after,
        coalesce(plan_before.pages_to_fetch, 0) as pages_before,
        coalesce(plan_after.pages_to_fetch, 0) as pages_after,
        coalesce(plan_before.expected_hq, 0) as expected_hq_before,
        coalesce(plan_after.expected_hq, 0) as expected_hq_after,
        coalesce(plan_before.robots_status = 'failed', false)
        and coalesce(plan_before.robots_allowed_page_count = 0, false)
            as is_robots_blocked_before,
        coalesce(plan_after.robots_status = 'failed', false)
        and coalesce(plan_after.robots_allowed_page_count = 0, false)
            as is_robots_blocked_after,
        plan_before.quality_group = 'known_quality' as is_quality_known_before,
        plan_after.quality_group = 'known_quality' as is_quality_known_after

    from plan_after
    full outer join plan_before
        on plan_after.surt_host_name = plan_before.surt_host_name
),

-- Why a host's pages moved, the first that holds: unchanged; its robots.txt now fails
-- every request (blocked) or no longer does (unblocked); the host index knows its URLs
-- now and did not (newly_known) or no longer does (no_longer_known); its quality was
-- unknown and is now measured, and it is deepened (deepened) or not
-- (sampled_not_deepened); it is sampled now (sampled); what it may be given changed
-- (known_urls_changed); else the budget moved around it (reallocated).
plan_changes as (
    select
        ---------- ids
        hosts_compared.surt_host_name,

        ---------- strings
        case
            when hosts_compared.pages_before = hosts_compared.pages_after
                then 'unchanged'
            when
                hosts_compared.is_robots_blocked_after
                and not hosts_compared.is_robots_blocked_before
                then 'blocked'
            when
                hosts_compared.is_robots_blocked_before
                and not hosts_compared.is_robots_blocked_after
                then 'unblocked'
            when
                hosts_compared.known_url_count_before = 0
                and hosts_compared.known_url_count_after > 0
                then 'newly_known'
            when
                hosts_compared.known_url_count_before > 0
                and hosts_compared.known_url_count_after = 0
                then 'no_longer_known'
            when
                hosts_compared.is_quality_known_after
                and not coalesce(hosts_compared.is_quality_known_before, false)
                and hosts_compared.phase_after = 'deepen'
                then 'deepened'
            when
                hosts_compared.is_quality_known_after
                and not coalesce(hosts_compared.is_quality_known_before, false)
                then 'sampled_not_deepened'
            when
                hosts_compared.phase_after = 'sample'
                and coalesce(hosts_compared.phase_before, 'absent') != 'sample'
                then 'sampled'
            when
                hosts_compared.plannable_page_count_before
                != hosts_compared.plannable_page_count_after
                then 'known_urls_changed'
            else 'reallocated'
        end as change_reason,
        hosts_compared.crawl_before,
        hosts_compared.crawl_after,
        hosts_compared.phase_before,
        hosts_compared.phase_after,
        hosts_compared.quality_group_before,
        hosts_compared.quality_group_after,

        ---------- numerics
        hosts_compared.known_url_count_before,
        hosts_compared.known_url_count_after,
        hosts_compared.pages_before,
        hosts_compared.pages_after,
        hosts_compared.pages_after - hosts_compared.pages_before as page_change,
        hosts_compared.expected_hq_before,
        hosts_compared.expected_hq_after

    from hosts_compared
)

select * from plan_changes
