{{ config(materialized='table') }}

{%- set block_size = var('ordering_block_size') %}
{#- hc, pr, cc_coverage: the policy ids and the keys that order them, largest first -#}
{%- set shared_order_keys = [(2, 'hc_val'), (3, 'pr_val'), (4, 'fetched_url_count')] %}

with

host_universe as (
    select * from {{ ref('int_host_universe') }}
),

classifiers as (
    select * from {{ ref('int_classifiers') }}
),

random_seeds as (
    select
        {{ unnest_values(range(1, (var('random_seeds') | int) + 1), 'integer') }}
            as random_seed
),

budget_shares as (
    select {{ unnest_values(var('budget_shares'), 'double') }} as budget_share
),

policies as (
    select
        policy_values.policy_id,
        policy_values.policy
    from (
        values
        (1, 'random'),
        (2, 'hc'),
        (3, 'pr'),
        (4, 'cc_coverage'),
        (5, 'oracle')
    ) as policy_values (policy_id, policy)
),

-------------------------------------------------------------------------- the orders

-- Each host of any classifier's universe once, with the keys that order it. Ties are
-- broken by the md5 of the host (SPEC A4), as a number: sorting 128-bit integers is
-- cheaper than sorting their hex text; the host id settles a (2^-128) md5 collision.
universe_hosts as (
    select
        host_universe.host_id,
        any_value(host_universe.surt_host_name) as surt_host_name,
        any_value(host_universe.url_host_tld) as url_host_tld,
        any_value(host_universe.hc_val) as hc_val,
        any_value(host_universe.pr_val) as pr_val,
        any_value(host_universe.fetched_url_count) as fetched_url_count,
        {{ md5_number('any_value(host_universe.surt_host_name)') }} as tie_breaker

    from host_universe
    group by all
),

-- What fetching each host costs and yields under each classifier, and its TLD.
hosts_to_order as (
    select
        host_universe.classifier_id,
        host_universe.host_id,
        host_universe.doc_count as page_count,
        host_universe.hq_doc_count as hq_page_count,
        -- a host without a public suffix (an IP address) has no TLD to count
        case
            when host_universe.url_host_tld is not null
                then dense_rank() over (order by host_universe.url_host_tld)
        end as tld_id

    from host_universe
),

-- The md5 of host and seed (SPEC §4.0) as a number, computed before the sort (so that
-- the sort does not carry the host names).
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

-- The orders every classifier shares: a host's place among all universe hosts. A
-- classifier's order is this one restricted to its own hosts (the places of the
-- others are gaps). random: by the random key; hc, pr: most central
-- first; cc_coverage: Common Crawl's own fetches of the host in the sample crawl first.
shared_positions as (
    select
        random_keys.host_id,
        1 as policy_id,
        random_keys.random_seed,
        row_number() over (
            partition by random_keys.random_seed
            order by random_keys.random_key, random_keys.host_id
        )::integer as order_position
    from random_keys
    {%- for policy_id, order_key in shared_order_keys %}
        union all
        select
            universe_hosts.host_id,
            {{ policy_id }} as policy_id,
            0 as random_seed,
            row_number() over (
                order by
                    universe_hosts.{{ order_key }} desc nulls last,
                    universe_hosts.tie_breaker asc,
                    universe_hosts.host_id asc
            )::integer as order_position
        from universe_hosts
    {%- endfor %}
),

-- oracle: each classifier's own order, highest HQ density first, then most HQ pages.
oracle_positions as (
    select
        host_universe.classifier_id,
        host_universe.host_id,
        5 as policy_id,
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
),

-- Every classifier's hosts in every order (77M rows at paper scale, never stored).
hosts_ordered as (
    select
        hosts_to_order.classifier_id,
        shared_positions.policy_id,
        shared_positions.random_seed,
        shared_positions.order_position,
        hosts_to_order.page_count,
        hosts_to_order.hq_page_count,
        hosts_to_order.tld_id
    from hosts_to_order
    inner join shared_positions
        on hosts_to_order.host_id = shared_positions.host_id
    union all
    select
        hosts_to_order.classifier_id,
        oracle_positions.policy_id,
        oracle_positions.random_seed,
        oracle_positions.order_position,
        hosts_to_order.page_count,
        hosts_to_order.hq_page_count,
        hosts_to_order.tld_id
    from hosts_to_order
    inner join oracle_positions
        on
            hosts_to_order.classifier_id = oracle_positions.classifier_id
            and hosts_to_order.host_id = oracle_positions.host_id
),

---------------------------------------------------------------------- running sums

-- Running sums in two steps. A running sum over every host of every order is slow at
-- 77M rows; instead the positions are cut into blocks of `ordering_block_size`, the
-- blocks summed and cumulated, and hosts cumulated only inside the block where a
-- budget ends. The numbers are those of one running sum.
--
-- One pass over the ordered hosts gives both the block sums and the place where each
-- TLD is first met in each order (a budget reaches the TLDs first met at or before its
-- boundary host).
ordered_host_sums as (
    select
        hosts_ordered.classifier_id,
        hosts_ordered.policy_id,
        hosts_ordered.random_seed,
        {{ int_div('hosts_ordered.order_position', block_size) }} as position_block,
        hosts_ordered.tld_id,
        grouping(hosts_ordered.tld_id) = 1 as is_block_sum,  -- noqa: RF03
        sum(hosts_ordered.page_count) as page_count,
        sum(hosts_ordered.hq_page_count) as hq_page_count,
        count(*) as host_count,
        min(hosts_ordered.order_position) as first_position

    from hosts_ordered
    -- sqlfluff's duckdb dialect does not parse grouping sets yet
    -- noqa: disable=all
    group by grouping sets (
        (
            hosts_ordered.classifier_id,
            hosts_ordered.policy_id,
            hosts_ordered.random_seed,
            position_block
        ),
        (
            hosts_ordered.classifier_id,
            hosts_ordered.policy_id,
            hosts_ordered.random_seed,
            hosts_ordered.tld_id
        )
    )
    -- noqa: enable=all
),

blocks_cumulated as (
    select
        ordered_host_sums.classifier_id,
        ordered_host_sums.policy_id,
        ordered_host_sums.random_seed,
        ordered_host_sums.position_block,
        (sum(ordered_host_sums.page_count) over blocks_so_far)
        - ordered_host_sums.page_count as pages_before_block,
        (sum(ordered_host_sums.hq_page_count) over blocks_so_far)
        - ordered_host_sums.hq_page_count as hq_pages_before_block,
        (sum(ordered_host_sums.host_count) over blocks_so_far)
        - ordered_host_sums.host_count as hosts_before_block

    from ordered_host_sums
    where ordered_host_sums.is_block_sum
    window
        blocks_so_far as (
            partition by
                ordered_host_sums.classifier_id,
                ordered_host_sums.policy_id,
                ordered_host_sums.random_seed
            order by ordered_host_sums.position_block
            rows between unbounded preceding and current row
        )
),

tld_first_positions as (
    select
        ordered_host_sums.classifier_id,
        ordered_host_sums.policy_id,
        ordered_host_sums.random_seed,
        ordered_host_sums.first_position

    from ordered_host_sums
    where
        not ordered_host_sums.is_block_sum
        and ordered_host_sums.tld_id is not null
),

order_totals as (
    select
        ordered_host_sums.classifier_id,
        ordered_host_sums.policy_id,
        ordered_host_sums.random_seed,
        sum(ordered_host_sums.page_count) as total_page_count,
        sum(ordered_host_sums.hq_page_count) as total_hq_page_count

    from ordered_host_sums
    where ordered_host_sums.is_block_sum
    group by all
),

budgets as (
    select
        order_totals.*,
        budget_shares.budget_share,
        budget_shares.budget_share * order_totals.total_page_count as pages_fetched

    from order_totals
    cross join budget_shares
),

-- The block where each budget ends: the last that starts before the budget is spent.
budget_blocks as (
    select
        budgets.*,
        blocks_cumulated.position_block,
        blocks_cumulated.pages_before_block,
        blocks_cumulated.hq_pages_before_block,
        blocks_cumulated.hosts_before_block,
        budgets.pages_fetched
        - blocks_cumulated.pages_before_block as pages_fetched_in_block

    from budgets
    {{ asof_join(
        'inner', 'blocks_cumulated', 'blocks_cumulated', 'budgets',
        ['classifier_id', 'policy_id', 'random_seed'],
        'budgets.pages_fetched', 'pages_before_block'
    ) }}
),

-- The hosts of those blocks, found from the (small) list of blocks: the shared orders'
-- positions first, then each classifier's hosts among them.
boundary_blocks as (
    select distinct
        budget_blocks.classifier_id,
        budget_blocks.policy_id,
        budget_blocks.random_seed,
        budget_blocks.position_block

    from budget_blocks
),

boundary_block_positions as (
    select
        shared_positions.*,
        null as classifier_id
    from shared_positions
    semi join boundary_blocks
        on
            shared_positions.policy_id = boundary_blocks.policy_id
            and shared_positions.random_seed = boundary_blocks.random_seed
            and {{ int_div('shared_positions.order_position', block_size) }}
            = boundary_blocks.position_block
    union all
    select
        oracle_positions.host_id,
        oracle_positions.policy_id,
        oracle_positions.random_seed,
        oracle_positions.order_position,
        oracle_positions.classifier_id
    from oracle_positions
    semi join boundary_blocks
        on
            oracle_positions.classifier_id = boundary_blocks.classifier_id
            and oracle_positions.policy_id = boundary_blocks.policy_id
            and {{ int_div('oracle_positions.order_position', block_size) }}
            = boundary_blocks.position_block
),

boundary_block_hosts as (
    select
        hosts_to_order.classifier_id,
        boundary_block_positions.policy_id,
        boundary_block_positions.random_seed,
        {{ int_div('boundary_block_positions.order_position', block_size) }}
            as position_block,
        boundary_block_positions.order_position,
        hosts_to_order.page_count,
        hosts_to_order.hq_page_count

    from boundary_block_positions
    inner join hosts_to_order
        on
            boundary_block_positions.host_id = hosts_to_order.host_id
            and coalesce(
                boundary_block_positions.classifier_id, hosts_to_order.classifier_id
            ) = hosts_to_order.classifier_id
    semi join boundary_blocks
        on
            hosts_to_order.classifier_id = boundary_blocks.classifier_id
            and boundary_block_positions.policy_id = boundary_blocks.policy_id
            and boundary_block_positions.random_seed = boundary_blocks.random_seed
            and {{ int_div('boundary_block_positions.order_position', block_size) }}
            = boundary_blocks.position_block
),

-- Running sums from the start of the block.
boundary_block_hosts_cumulated as (
    select
        boundary_block_hosts.*,
        (sum(boundary_block_hosts.page_count) over hosts_so_far)
        - boundary_block_hosts.page_count as pages_before_in_block,
        (sum(boundary_block_hosts.hq_page_count) over hosts_so_far)
        - boundary_block_hosts.hq_page_count as hq_pages_before_in_block,
        count(*) over hosts_so_far as host_rank_in_block

    from boundary_block_hosts
    window
        hosts_so_far as (
            partition by
                boundary_block_hosts.classifier_id,
                boundary_block_hosts.policy_id,
                boundary_block_hosts.random_seed,
                boundary_block_hosts.position_block
            order by boundary_block_hosts.order_position
            rows between unbounded preceding and current row
        )
),

-- The boundary host of each budget: the last host whose first page fits in it. Hosts
-- before it are taken whole; it adds the share of its pages the budget leaves
-- (SPEC A4's expected-value rule).
budget_boundaries as (
    select
        budget_blocks.*,
        boundary.order_position as boundary_position,
        budget_blocks.pages_before_block
        + boundary.pages_before_in_block as pages_before,
        budget_blocks.hq_pages_before_block
        + boundary.hq_pages_before_in_block as hq_pages_before,
        budget_blocks.hosts_before_block + boundary.host_rank_in_block as host_count,
        boundary.page_count as boundary_page_count,
        boundary.hq_page_count as boundary_hq_page_count

    from budget_blocks
    {{ asof_join(
        'inner', 'boundary_block_hosts_cumulated', 'boundary', 'budget_blocks',
        ['classifier_id', 'policy_id', 'random_seed', 'position_block'],
        'budget_blocks.pages_fetched_in_block', 'pages_before_in_block'
    ) }}
),

budget_tld_counts as (
    select
        budget_boundaries.classifier_id,
        budget_boundaries.policy_id,
        budget_boundaries.random_seed,
        budget_boundaries.budget_share,
        count(tld_first_positions.first_position) as tld_count

    from budget_boundaries
    left join tld_first_positions
        on
            budget_boundaries.classifier_id = tld_first_positions.classifier_id
            and budget_boundaries.policy_id = tld_first_positions.policy_id
            and budget_boundaries.random_seed = tld_first_positions.random_seed
            and budget_boundaries.boundary_position
            >= tld_first_positions.first_position
    group by all
),

host_ordering_yields as (
    select
        ---------- ids
        classifiers.classifier,
        policies.policy,
        budget_boundaries.random_seed,
        budget_boundaries.budget_share,

        ---------- numerics
        budget_boundaries.pages_fetched,
        budget_boundaries.hq_pages_before
        + (budget_boundaries.pages_fetched - budget_boundaries.pages_before)
        / budget_boundaries.boundary_page_count
        * budget_boundaries.boundary_hq_page_count as hq_collected,
        budget_boundaries.host_count::bigint as host_count,
        budget_tld_counts.tld_count,
        budget_boundaries.total_page_count::bigint as total_page_count,
        budget_boundaries.total_hq_page_count::bigint as total_hq_page_count

    from budget_boundaries
    inner join budget_tld_counts
        on
            budget_boundaries.classifier_id = budget_tld_counts.classifier_id
            and budget_boundaries.policy_id = budget_tld_counts.policy_id
            and budget_boundaries.random_seed = budget_tld_counts.random_seed
            and budget_boundaries.budget_share = budget_tld_counts.budget_share
    inner join classifiers
        on budget_boundaries.classifier_id = classifiers.classifier_id
    inner join policies
        on budget_boundaries.policy_id = policies.policy_id
)

select * from host_ordering_yields
