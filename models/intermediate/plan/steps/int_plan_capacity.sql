-- The pages each host may be given in each way the plan is computed
-- (int_plan_scenarios): its known URLs, less what its robots.txt answers rule out, at
-- most the politeness cap. The plan's walk takes these in place of the known URLs.

with

plan_hosts as (
    select * from {{ ref('int_plan_hosts') }}
),

scenarios as (
    select * from {{ ref('int_plan_scenarios') }}
),

-- the robots.txt requests that failed: answered 5xx (unreachable) and, unless
-- `plan_robots_refusal_fails` is false, a 4xx other than 404/410 (refused)
hosts_robots as (
    select
        plan_hosts.*,
        plan_hosts.robots_unreachable_count
        {%- if var('plan_robots_refusal_fails') %}
            + plan_hosts.robots_refused_count
        {%- endif %} as robots_failed_count

    from plan_hosts
),

host_capacity as (
    select
        scenarios.scenario_id,
        scenarios.scenario,
        hosts_robots.*,
        case
            when hosts_robots.robots_request_count = 0 then 'not_requested'
            when hosts_robots.robots_failed_count = 0 then 'ok'
            when
                hosts_robots.robots_failed_count = hosts_robots.robots_request_count
                then 'failed'
            else 'partly_failed'
        end as robots_status,
        -- what the robots.txt answers leave: nothing when every request failed; under
        -- `reduce`, the known URLs times the share of requests that did not fail,
        -- rounded down
        case
            when
                scenarios.robots_policy = 'off'
                or hosts_robots.robots_failed_count = 0
                then hosts_robots.known_url_count
            when
                hosts_robots.robots_failed_count = hosts_robots.robots_request_count
                then 0
            when scenarios.robots_policy = 'exclude' then hosts_robots.known_url_count
            else
                {{ int_div(
                    'hosts_robots.known_url_count * (hosts_robots.robots_request_count'
                    ~ ' - hosts_robots.robots_failed_count)',
                    'hosts_robots.robots_request_count'
                ) }}
        end as robots_allowed_page_count,
        scenarios.page_cap

    from hosts_robots
    inner join scenarios
        on hosts_robots.plan_role = scenarios.plan_role
),

plannable_pages as (
    select
        host_capacity.*,
        least(
            host_capacity.robots_allowed_page_count,
            coalesce(host_capacity.page_cap, host_capacity.robots_allowed_page_count)
        ) as plannable_page_count

    from host_capacity
)

select * from plannable_pages
