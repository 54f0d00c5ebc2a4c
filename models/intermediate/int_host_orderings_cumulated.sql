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

-- Each host once, with integer ids: the windows below (classifiers × 24 orders × hosts
-- rows at paper scale) carry integers, and the names are joined back at the end.
universe_host_names as (
    select
        host_universe.surt_host_name,
        any_value(host_universe.url_host_tld) as url_host_tld

    from host_universe
    group by all
),

universe_hosts as (
    select
        universe_host_names.surt_host_name,
        universe_host_names.url_host_tld,
        row_number() over (order by universe_host_names.surt_host_name) as host_id,
        md5(universe_host_names.surt_host_name) as tie_breaker

    from universe_host_names
),

universe_tlds as (
    select
        universe_hosts.host_id,
        -- a host without a public suffix (an IP address) has no TLD to count
        case
            when universe_hosts.url_host_tld is not null
                then dense_rank() over (order by universe_hosts.url_host_tld)
        end as tld_id

    from universe_hosts
),

-- What a crawl would collect from each host of the universe.
hosts_in_universe as (
    select
        host_universe.classifier,
        universe_hosts.host_id,
        universe_tlds.tld_id,
        host_universe.doc_count as page_count,
        host_universe.hq_doc_count as hq_page_count,
        host_universe.hq_density,
        host_universe.hc_val,
        host_universe.pr_val,
        host_universe.fetched_url_count,
        universe_hosts.tie_breaker

    from host_universe
    inner join universe_hosts
        on host_universe.surt_host_name = universe_hosts.surt_host_name
    inner join universe_tlds
        on universe_hosts.host_id = universe_tlds.host_id
),

-- random: a deterministic shuffle per seed (SPEC §4.0: md5 of key and seed). A host's
-- place in the shuffle is computed once, over every classifier's hosts, and each
-- classifier's order follows it: the same order as sorting its hosts by the md5,
-- with one md5 per host and seed, and integers to sort afterwards.
random_positions as (
    select
        universe_hosts.host_id,
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
        hosts_in_universe.classifier,
        'random' as policy,
        random_positions.random_seed,
        hosts_in_universe.host_id,
        hosts_in_universe.tld_id,
        hosts_in_universe.page_count,
        hosts_in_universe.hq_page_count,
        row_number() over (
            partition by hosts_in_universe.classifier, random_positions.random_seed
            order by random_positions.random_position
        ) as rank_in_policy

    from hosts_in_universe
    inner join random_positions
        on hosts_in_universe.host_id = random_positions.host_id
),

-- hc, pr: most central first; cc_coverage: Common Crawl's own per-host fetches first;
-- oracle: highest true HQ density first, then most HQ pages. Ties by md5 of the host.
hosts_ordered_by_key as (
    select
        hosts_in_universe.classifier,
        key_policies.policy,
        0 as random_seed,
        hosts_in_universe.host_id,
        hosts_in_universe.tld_id,
        hosts_in_universe.page_count,
        hosts_in_universe.hq_page_count,
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
        hosts_ordered.tld_id is not null
        and row_number() over (
            partition by
                hosts_ordered.classifier,
                hosts_ordered.policy,
                hosts_ordered.random_seed,
                hosts_ordered.tld_id
            order by hosts_ordered.rank_in_policy
        ) = 1 as is_first_of_tld

    from hosts_ordered
),

hosts_cumulated as (
    select
        hosts_flagged_first_of_tld.classifier,
        hosts_flagged_first_of_tld.policy,
        hosts_flagged_first_of_tld.random_seed,
        hosts_flagged_first_of_tld.host_id,
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
),

host_orderings_cumulated as (
    select
        ---------- ids
        hosts_cumulated.classifier,
        hosts_cumulated.policy,
        hosts_cumulated.random_seed,
        universe_hosts.surt_host_name,

        ---------- strings
        universe_hosts.url_host_tld,

        ---------- numerics
        hosts_cumulated.rank_in_policy,
        hosts_cumulated.page_count,
        hosts_cumulated.hq_page_count,
        hosts_cumulated.pages_before,
        hosts_cumulated.hq_pages_before,
        hosts_cumulated.tld_count_so_far

    from hosts_cumulated
    inner join universe_hosts
        on hosts_cumulated.host_id = universe_hosts.host_id
)

select * from host_orderings_cumulated
