{{ config(format='parquet') }}

-- The crawl plan (docs/definitions.md A6's sample-then-deepen for the next crawl),
-- under every constraint the vars set (int_plan_allocations' `plan`): each host's
-- pages, its phase, why, what the constraints did to it, and the HQ pages expected.

with

host_allocations as (
    select * from {{ ref('int_plan_allocations') }}
    where scenario = 'plan'
),

host_fetch_budget as (
    select
        ---------- ids
        host_allocations.surt_host_name,

        ---------- strings
        {{ plan_phase('host_allocations') }} as phase,
        case
            when host_allocations.quality_group = 'no_known_urls'
                then 'the host index gives no known URL for the host'
            when
                host_allocations.robots_status = 'failed'
                and host_allocations.plannable_page_count = 0
                then
                    'robots.txt: every request of the plan crawl failed '
                    || '(a server error, or refused): no pages'
            when host_allocations.robots_allowed_page_count = 0
                then
                    'robots.txt: some requests of the plan crawl failed, which leaves '
                    || 'none of its known URLs'
            when host_allocations.pages_reserved > 0
                then
                    'taken to meet a floor (the least share of the budget its language '
                    || 'stratum or TLD category gets)'
            when
                host_allocations.quality_group = 'unreliable_quality'
                and host_allocations.pages_explored = 0
                then 'not English: left out once the exploration share was spent'
            when host_allocations.quality_group = 'unreliable_quality'
                then
                    'not English, which the English-trained classifier judges poorly: '
                    || 'fetched breadth-first from the exploration share'
            when
                host_allocations.quality_group = 'known_quality'
                and host_allocations.pages_deepened = 0
                then
                    'HQ share of its sampled pages below that of the hosts taken'
            when
                host_allocations.quality_group = 'known_quality'
                and host_allocations.is_boundary_host
                then
                    'among the densest hosts in HQ: the budget ends inside this host'
            when host_allocations.quality_group = 'known_quality'
                then 'among the densest hosts in HQ by its sampled pages: taken whole'
            when host_allocations.pages_sampled = 0
                then 'quality unknown: the budget ran out before its sample'
            when host_allocations.pages_deepened > 0
                then 'quality unknown: sampled, then deepened with the budget left over'
            when host_allocations.is_sample_deferred
                then 'quality unknown: sampled after the known hosts were deepened'
            else 'quality unknown: sampled to measure it before deepening'
        end as reason,
        -- what the constraints did to the host, when anything
        case
            when
                host_allocations.robots_status = 'failed'
                and host_allocations.robots_allowed_page_count = 0
                and host_allocations.known_url_count > 0
                then 'robots_failed'
            when
                host_allocations.robots_allowed_page_count
                < host_allocations.known_url_count
                then 'robots_reduced'
        end as robots_constraint,
        host_allocations.quality_group,
        host_allocations.url_host_registered_domain,
        host_allocations.language_stratum,
        host_allocations.tld_macro_category,
        host_allocations.robots_status,

        ---------- numerics
        host_allocations.known_url_count,
        host_allocations.robots_request_count,
        host_allocations.robots_failed_count,
        host_allocations.plannable_page_count,
        host_allocations.sampled_page_count,
        host_allocations.sampled_hq_density,
        host_allocations.hq_density_estimate,
        host_allocations.pages_sampled,
        host_allocations.pages_deepened,
        host_allocations.pages_explored,
        host_allocations.pages_reserved,
        host_allocations.pages_to_fetch,
        host_allocations.crawl_delay_seconds,
        host_allocations.expected_hq,

        ---------- booleans
        host_allocations.plannable_page_count
        < host_allocations.robots_allowed_page_count as is_politeness_capped

    from host_allocations
)

select * from host_fetch_budget
