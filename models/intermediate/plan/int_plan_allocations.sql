{#- a host whose HQ density is its own sampled pages' (the others take the prior) -#}
{%- set own_estimate -%}
    host_capacity.quality_group = 'known_quality'
    or (
        host_capacity.quality_group = 'unreliable_quality'
        and host_capacity.sampled_hq_density is not null
    )
{%- endset %}

-- One row per host of the plan's population per way the plan is computed
-- (int_plan_scenarios): its pages from the exploration share (int_plan_exploration),
-- from the floors' reserves and the walk down the queue (int_plan_queue), within the
-- budget (int_plan_budget), and the HQ pages they are expected to hold. The steps
-- key their rows by integers (scenario_id, plan_host_id); the names are
-- int_plan_capacity's.

with

host_capacity as (
    select * from {{ ref('int_plan_capacity') }}
),

queue_pages as (
    select * from {{ ref('int_plan_queue') }}
),

exploration_pages as (
    select * from {{ ref('int_plan_exploration') }}
),

plan_budget as (
    select * from {{ ref('int_plan_budget') }}
),

host_pages as (
    select
        host_capacity.*,
        coalesce(queue_pages.pages_sampled, 0)::bigint as pages_sampled,
        coalesce(queue_pages.pages_deepened, 0)::bigint as pages_deepened,
        (
            coalesce(exploration_pages.pages_explored, 0)
            + coalesce(queue_pages.pages_explored, 0)
        )::bigint as pages_explored,
        coalesce(queue_pages.pages_reserved, 0)::bigint as pages_reserved,
        coalesce(queue_pages.is_sample_deferred, false) as is_sample_deferred,
        coalesce(queue_pages.is_boundary_host, false) as is_boundary_host,
        -- a host's pages are as dense in HQ as its sampled pages when it has k of them
        -- (or is judged anyway, in the exploration share); a host still to be sampled
        -- as the hosts of known quality, pooled (the prior)
        case
            when {{ own_estimate }} then host_capacity.sampled_hq_density
            else plan_budget.prior_hq_density
        end as hq_density_estimate,
        case when {{ own_estimate }} then false else true end as is_prior_estimate,
        -- the binomial variance of a density estimated from the host's own sampled
        -- pages (docs/definitions.md B, "The plan's expected HQ")
        case
            when {{ own_estimate }}
                then
                    host_capacity.sampled_hq_density
                    * (1 - host_capacity.sampled_hq_density)
                    / host_capacity.sampled_page_count
        end as hq_density_variance,
        plan_budget.crawl_seconds

    from host_capacity
    inner join plan_budget
        on host_capacity.scenario_id = plan_budget.scenario_id
    left join queue_pages
        on
            host_capacity.scenario_id = queue_pages.scenario_id
            and host_capacity.plan_host_id = queue_pages.plan_host_id
    left join exploration_pages
        on
            host_capacity.scenario_id = exploration_pages.scenario_id
            and host_capacity.plan_host_id = exploration_pages.plan_host_id
),

host_allocations as (
    select
        ---------- ids
        host_pages.scenario,
        host_pages.surt_host_name,

        ---------- strings
        host_pages.crawl,
        host_pages.quality_group,
        host_pages.url_host_registered_domain,
        host_pages.language_stratum,
        host_pages.tld_macro_category,
        host_pages.robots_status,

        ---------- numerics
        host_pages.known_url_count,
        host_pages.robots_request_count,
        host_pages.robots_failed_count,
        host_pages.robots_allowed_page_count,
        host_pages.page_cap,
        host_pages.plannable_page_count,
        host_pages.sampled_page_count,
        host_pages.sampled_hq_density,
        host_pages.hq_density_estimate,
        host_pages.hq_density_variance,
        host_pages.pages_sampled,
        host_pages.pages_deepened,
        host_pages.pages_explored,
        host_pages.pages_reserved,
        host_pages.pages_sampled + host_pages.pages_deepened
        + host_pages.pages_explored as pages_to_fetch,
        -- the seconds between two fetches that spread the host's pages over the crawl
        host_pages.crawl_seconds
        / nullif(
            host_pages.pages_sampled + host_pages.pages_deepened
            + host_pages.pages_explored,
            0
        ) as crawl_delay_seconds,
        (
            host_pages.pages_sampled
            + host_pages.pages_deepened
            + host_pages.pages_explored
        )
        * host_pages.hq_density_estimate as expected_hq,

        ---------- booleans
        host_pages.is_prior_estimate,
        host_pages.is_sample_deferred,
        host_pages.is_boundary_host

    from host_pages
)

select * from host_allocations
