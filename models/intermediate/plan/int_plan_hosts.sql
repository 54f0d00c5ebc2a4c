{%- set sample_size = var('plan_sample_size') | int %}
{%- set previous_crawl = var('plan_previous_crawl') %}

with

-- read three times (the previous crawl's name, the hosts' numbers, the planned crawls'
-- hosts): scanned each time rather than every crawl's rows held in memory (9.2 s
-- against 4.2 s at paper scale)
host_crawls as {{ not_materialized() }} (
    select * from {{ ref('stg_host_index__host_crawls') }}
),

hosts_profiled as (
    select * from {{ ref('int_hosts_profiled') }}
),

host_classifier_stats as (
    select * from {{ ref('int_host_classifier_stats') }}
),

plan_classifier as (
    select * from {{ ref('int_plan_classifier') }}
),

suffix_categories as (
    select * from {{ ref('int_registry_suffix_categories') }}
),

-- The crawls planned: `plan_crawl` (`current`) and, for plan_changes, the one whose
-- plan it is compared with (`previous`: `plan_previous_crawl`, else the host index's
-- latest crawl before plan_crawl; none when there is none)
plan_crawls as (
    select
        'current' as plan_role,
        '{{ var("plan_crawl") }}' as crawl
    {%- if var('plan_changes') %}
        union all
        {%- if previous_crawl is not none %}
            select
                'previous' as plan_role,
                '{{ previous_crawl }}' as crawl
        {%- else %}
            select
                'previous' as plan_role,
                max(host_crawls.crawl) as crawl
            from host_crawls
            where host_crawls.crawl < '{{ var("plan_crawl") }}'
        {%- endif %}
    {%- endif %}
),

-- Each host's number, in name order over the planned crawls (the same host, the same
-- number in both): the plan's steps key their 30M-row windows and joins by it rather
-- than by the name (the queue's walk 45 -> 20 s at paper scale). Numbered over the
-- names alone, not the wide rows: 2.7 s against 13.6 s.
planned_host_names as (
    select distinct host_crawls.surt_host_name

    from host_crawls
    inner join plan_crawls
        on host_crawls.crawl = plan_crawls.crawl
),

host_ids as (
    select
        planned_host_names.surt_host_name,
        row_number() over (order by planned_host_names.surt_host_name)::bigint
            as plan_host_id

    from planned_host_names
),

plan_crawl_hosts as (
    select
        plan_crawls.plan_role,
        host_ids.plan_host_id,
        host_crawls.*,
        -- a plan knows what the classified sample says of a host only when the sample
        -- was taken before or in its crawl (crawl ids sort by date)
        '{{ var("sample_crawl") }}' <= plan_crawls.crawl as knows_sample

    from host_crawls
    inner join plan_crawls
        on host_crawls.crawl = plan_crawls.crawl
    inner join host_ids
        on host_crawls.surt_host_name = host_ids.surt_host_name
),

-- What the classified sample says of each host, by the plan's classifier.
sampled_quality as (
    select
        host_classifier_stats.surt_host_name,
        host_classifier_stats.doc_count,
        host_classifier_stats.hq_doc_count,
        plan_classifier.is_english_trained

    from host_classifier_stats
    inner join plan_classifier
        on host_classifier_stats.classifier = plan_classifier.classifier
),

-- One row per host of each planned crawl's host index. A host's quality is known when
-- the sample holds at least k of its pages; an English-trained classifier's judgement
-- of a host whose pages are mostly in other languages is not trusted (the paper's
-- caveat): such hosts go to the exploration share instead.
plan_hosts as (
    select
        ---------- ids
        plan_crawl_hosts.plan_role,
        plan_crawl_hosts.crawl,
        plan_crawl_hosts.surt_host_name,
        plan_crawl_hosts.plan_host_id,

        ---------- strings
        plan_crawl_hosts.url_host_registered_domain,
        plan_crawl_hosts.url_host_tld,
        plan_crawl_hosts.url_host_registry_suffix,
        suffix_categories.tld_macro_category,
        coalesce(hosts_profiled.language_stratum, 'unknown') as language_stratum,
        case
            when
                plan_crawl_hosts.known_url_count is null
                or plan_crawl_hosts.known_url_count <= 0
                then 'no_known_urls'
            when
                sampled_quality.is_english_trained
                and hosts_profiled.language_stratum = 'non_english'
                then 'unreliable_quality'
            when sampled_quality.doc_count >= {{ sample_size }} then 'known_quality'
            else 'unknown_quality'
        end as quality_group,

        ---------- numerics
        greatest(coalesce(plan_crawl_hosts.known_url_count, 0), 0) as known_url_count,
        coalesce(sampled_quality.doc_count, 0) as sampled_page_count,
        coalesce(sampled_quality.hq_doc_count, 0) as sampled_hq_page_count,
        sampled_quality.hq_doc_count / sampled_quality.doc_count as sampled_hq_density,
        -- the plan crawl's robots.txt requests to the host: all of them, those answered
        -- with a server error (unreachable, RFC 9309 2.3.1.4) and those refused with a
        -- 4xx other than 404/410 (401, 403, 429: the host turns the crawler away)
        coalesce(plan_crawl_hosts.robots_200_count, 0)
        + coalesce(plan_crawl_hosts.robots_3xx_count, 0)
        + coalesce(plan_crawl_hosts.robots_4xx_count, 0)
        + coalesce(plan_crawl_hosts.robots_5xx_count, 0)
        + coalesce(plan_crawl_hosts.robots_gone_count, 0)
        + coalesce(plan_crawl_hosts.robots_not_modified_count, 0)
        + coalesce(plan_crawl_hosts.robots_other_count, 0)
        + coalesce(plan_crawl_hosts.robots_redirect_perm_count, 0)
        + coalesce(plan_crawl_hosts.robots_redirect_temp_count, 0)
            as robots_request_count,
        coalesce(plan_crawl_hosts.robots_5xx_count, 0) as robots_unreachable_count,
        coalesce(plan_crawl_hosts.robots_4xx_count, 0) as robots_refused_count,
        -- the plan's deterministic random order of hosts (DESIGN: md5 of key and seed)
        {{ md5_number("plan_crawl_hosts.surt_host_name || ':plan'") }} as random_order

    from plan_crawl_hosts
    left join suffix_categories
        on
            plan_crawl_hosts.url_host_registry_suffix
            is not distinct from suffix_categories.url_host_registry_suffix
    left join hosts_profiled
        on
            plan_crawl_hosts.surt_host_name = hosts_profiled.surt_host_name
            and plan_crawl_hosts.knows_sample
    left join sampled_quality
        on
            plan_crawl_hosts.surt_host_name = sampled_quality.surt_host_name
            and plan_crawl_hosts.knows_sample
)

select * from plan_hosts
