{#- hc, pr, cc_coverage: the policies (seeds/crawl_policies.csv) and the keys that order
    them, largest first -#}
{%- set shared_order_keys = [
    ('hc', 'hc_val'), ('pr', 'pr_val'), ('cc_coverage', 'fetched_url_count')
] %}

-- Each host's place in each host ordering (docs/definitions.md A4). The orders every
-- classifier shares (classifier_id null) place a host among all universe hosts; a
-- classifier's order is the shared one restricted to its own hosts (the places of the
-- others are gaps). random: by the md5 of host and seed; hc, pr: most central first;
-- cc_coverage: Common Crawl's own fetches of the host in the sample crawl first. The
-- oracle is each classifier's own order (classifier_id set).

with

host_universe as (
    select * from {{ ref('int_host_universe') }}
),

policies as (
    select
        crawl_policies.policy_id,
        crawl_policies.policy
    from {{ ref('crawl_policies') }} as crawl_policies
    where crawl_policies.family = 'host_ordering'
),

random_seeds as (
    select
        {{ unnest_values(range(1, (var('random_seeds') | int) + 1), 'integer') }}
            as random_seed
),

-- Each host of any classifier's universe once, with the keys that order it. Ties are
-- broken by the md5 of the host (docs/definitions.md A4), as a number: sorting 128-bit
-- integers is cheaper than sorting their hex text; the host id settles a (2^-128) md5
-- collision.
universe_hosts as (
    select
        host_universe.host_id,
        any_value(host_universe.surt_host_name) as surt_host_name,
        any_value(host_universe.hc_val) as hc_val,
        any_value(host_universe.pr_val) as pr_val,
        any_value(host_universe.fetched_url_count) as fetched_url_count,
        {{ md5_number('any_value(host_universe.surt_host_name)') }} as tie_breaker

    from host_universe
    group by all
),

-- The md5 of host and seed (docs/definitions.md §4.0) as a number, computed before the
-- sort (so that the sort does not carry the host names).
random_keys as (
    select
        universe_hosts.host_id,
        random_seeds.random_seed,
        {{ md5_number(
            "universe_hosts.surt_host_name || ':' || random_seeds.random_seed"
        ) }} as random_key

    from universe_hosts
    cross join random_seeds
),

host_positions as (
    select
        null as classifier_id,
        random_keys.host_id,
        policies.policy_id,
        random_keys.random_seed,
        row_number() over (
            partition by random_keys.random_seed
            order by random_keys.random_key, random_keys.host_id
        )::integer as order_position
    from random_keys
    inner join policies on policies.policy = 'random'
    {%- for policy, order_key in shared_order_keys %}
        union all
        select
            null as classifier_id,
            universe_hosts.host_id,
            policies.policy_id,
            0 as random_seed,
            row_number() over (
                order by
                    universe_hosts.{{ order_key }} desc nulls last,
                    universe_hosts.tie_breaker asc,
                    universe_hosts.host_id asc
            )::integer as order_position
        from universe_hosts
        inner join policies on policies.policy = '{{ policy }}'
    {%- endfor %}
    union all
    -- the oracle: highest HQ density first, then most HQ pages
    select
        host_universe.classifier_id,
        host_universe.host_id,
        policies.policy_id,
        0 as random_seed,
        row_number() over (
            partition by host_universe.classifier_id
            order by
                host_universe.hq_density desc,
                host_universe.hq_doc_count desc,
                universe_hosts.tie_breaker asc,
                host_universe.host_id asc
        )::integer as order_position

    from host_universe
    inner join universe_hosts
        on host_universe.host_id = universe_hosts.host_id
    inner join policies on policies.policy = 'oracle'
)

select * from host_positions
