{{ config(materialized='table') }}

with

host_universe as (
    select * from {{ ref('int_host_universe') }}
),

random_seeds as (
    select unnest(range(1, {{ var('random_seeds') }} + 1)) as random_seed
),

key_policies as (
    select unnest(['hc', 'pr', 'cc_coverage', 'oracle']) as policy
),

-- What a crawl would collect from each host of the universe.
hosts_in_universe as (
    select
        host_universe.classifier,
        host_universe.surt_host_name,
        host_universe.url_host_tld,
        host_universe.doc_count as page_count,
        host_universe.hq_doc_count as hq_page_count,
        host_universe.hq_density,
        host_universe.hc_val,
        host_universe.pr_val,
        host_universe.fetched_url_count,
        md5(host_universe.surt_host_name) as tie_breaker

    from host_universe
),

universe_hosts as (
    select distinct host_universe.surt_host_name
    from host_universe
),

-- random: a deterministic shuffle per seed (SPEC §4.0: md5 of key and seed). A host's
-- place in the shuffle is computed once, over every classifier's hosts, and each
-- classifier's order follows it: the same order as sorting its hosts by the md5,
-- with one md5 per host and seed, and integers to sort afterwards.
random_positions as (
    select
        universe_hosts.surt_host_name,
        random_seeds.random_seed,
        row_number() over (
            partition by random_seeds.random_seed
            order by
                md5(universe_hosts.surt_host_name || ':' || random_seeds.random_seed)
        ) as random_position

    from universe_hosts
    cross join random_seeds
),

hosts_ordered_at_random as (
    select
        hosts_in_universe.*,
        'random' as policy,
        random_positions.random_seed,
        row_number() over (
            partition by hosts_in_universe.classifier, random_positions.random_seed
            order by random_positions.random_position
        ) as rank_in_policy

    from hosts_in_universe
    inner join random_positions
        on hosts_in_universe.surt_host_name = random_positions.surt_host_name
),

-- hc, pr: most central first; cc_coverage: Common Crawl's own per-host fetches first;
-- oracle: highest true HQ density first, then most HQ pages. Ties by md5 of the host.
hosts_ordered_by_key as (
    select
        hosts_in_universe.*,
        key_policies.policy,
        0 as random_seed,
        row_number() over (
            partition by hosts_in_universe.classifier, key_policies.policy
            order by
                case key_policies.policy
                    when 'hc' then hosts_in_universe.hc_val
                    when 'pr' then hosts_in_universe.pr_val
                    when 'cc_coverage' then hosts_in_universe.fetched_url_count
                    when 'oracle' then hosts_in_universe.hq_density
                end desc nulls last,
                case
                    when key_policies.policy = 'oracle'
                        then hosts_in_universe.hq_page_count
                end desc nulls last,
                hosts_in_universe.tie_breaker
        ) as rank_in_policy

    from hosts_in_universe
    cross join key_policies
),

hosts_ordered as (
    select * from hosts_ordered_at_random
    union all by name
    select * from hosts_ordered_by_key
),

hosts_flagged_first_of_tld as (
    select
        hosts_ordered.*,
        row_number() over (
            partition by
                hosts_ordered.classifier,
                hosts_ordered.policy,
                hosts_ordered.random_seed,
                hosts_ordered.url_host_tld
            order by hosts_ordered.rank_in_policy
        ) = 1
        -- a host without a public suffix (an IP address) adds no TLD
        and hosts_ordered.url_host_tld is not null as is_first_of_tld

    from hosts_ordered
),

host_orderings_cumulated as (
    select
        ---------- ids
        hosts_flagged_first_of_tld.classifier,
        hosts_flagged_first_of_tld.policy,
        hosts_flagged_first_of_tld.random_seed,
        hosts_flagged_first_of_tld.surt_host_name,

        ---------- strings
        hosts_flagged_first_of_tld.url_host_tld,

        ---------- numerics
        hosts_flagged_first_of_tld.rank_in_policy,
        hosts_flagged_first_of_tld.page_count,
        hosts_flagged_first_of_tld.hq_page_count,
        (
            sum(hosts_flagged_first_of_tld.page_count) over cumulative_by_rank
            - hosts_flagged_first_of_tld.page_count
        )::bigint as pages_before,
        (
            sum(hosts_flagged_first_of_tld.hq_page_count) over cumulative_by_rank
            - hosts_flagged_first_of_tld.hq_page_count
        )::bigint as hq_pages_before,
        -- distinct TLDs among this host and the hosts before it
        count(*) filter (
            where hosts_flagged_first_of_tld.is_first_of_tld
        ) over cumulative_by_rank as tld_count_so_far

    from hosts_flagged_first_of_tld
    window
        cumulative_by_rank as (
            partition by
                hosts_flagged_first_of_tld.classifier,
                hosts_flagged_first_of_tld.policy,
                hosts_flagged_first_of_tld.random_seed
            order by hosts_flagged_first_of_tld.rank_in_policy
            rows between unbounded preceding and current row
        )
)

select * from host_orderings_cumulated
