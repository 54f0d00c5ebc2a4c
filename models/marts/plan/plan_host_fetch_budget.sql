{{ config(format='parquet') }}

-- The crawl plan (docs/definitions.md A6's sample-then-deepen for the next crawl): each
-- host's pages from the exploration share (int_plan_exploration) and from the walk down
-- the queue of samples and deepened hosts (int_plan_queue) within the budget
-- (int_plan_budget), its phase, why, and the HQ pages expected.

with

plan_hosts as (
    select * from {{ ref('int_plan_hosts') }}
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
                        plan_hosts.sampled_hq_density, plan_budget.prior_hq_density
                    )
            else plan_budget.prior_hq_density
        end as hq_density_estimate

    from plan_hosts
    cross join plan_budget
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
        host_pages.url_host_registered_domain,
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
