-- The crawl plan by the names a crawler queues hosts under
-- (docs/exports.md#host-keys). Common Crawl's host key drops one leading `www` label,
-- so `com,example` is both `example.com` and `www.example.com`; a crawler that queues
-- by host name sees two hosts. Each planned host's pages are shared among its names
-- in proportion to the URLs the warehouse knows on each (largest remainders, so that
-- the shares add up to the host's pages exactly); a host with no known URL is shared
-- evenly between its bare and `www` names (the bare name first when the pages are
-- odd).

with

host_fetch_budget as (
    select * from {{ ref('plan_host_fetch_budget') }}
),

known_urls as (
    select * from {{ ref('int_plan_known_urls') }}
),

planned_hosts as (
    select
        host_fetch_budget.surt_host_name,
        {{ surt_host_to_name('host_fetch_budget.surt_host_name') }} as host_name,
        host_fetch_budget.url_host_registered_domain,
        host_fetch_budget.phase,
        host_fetch_budget.hq_density_estimate,
        host_fetch_budget.pages_to_fetch

    from host_fetch_budget
    where host_fetch_budget.pages_to_fetch > 0
),

names_seen as (
    select
        known_urls.surt_host_name,
        known_urls.url_host_name,
        count(*) as seen_url_count

    from known_urls
    group by all
),

hosts_without_names as (
    select planned_hosts.*
    from planned_hosts
    anti join names_seen
        on planned_hosts.surt_host_name = names_seen.surt_host_name
),

-- a host's names seen, one weight each (the URLs seen on it)
host_names as (
    select
        names_seen.surt_host_name,
        names_seen.url_host_name,
        names_seen.seen_url_count,
        names_seen.seen_url_count as name_weight

    from names_seen
),

-- each name's whole pages of the host's quota (pages × weight / total weight: both
-- below 2^31 in practice, so the product fits a bigint), and the remainder, exactly
names_apportioned as (
    select
        host_names.*,
        planned_hosts.url_host_registered_domain,
        planned_hosts.phase,
        planned_hosts.hq_density_estimate,
        planned_hosts.pages_to_fetch as host_pages_to_fetch,
        {{ int_div(
            'planned_hosts.pages_to_fetch * host_names.name_weight',
            'sum(host_names.name_weight) over host_name_weights'
        ) }} as base_pages,
        (planned_hosts.pages_to_fetch * host_names.name_weight)
        % sum(host_names.name_weight) over host_name_weights as remainder_weight

    from host_names
    inner join planned_hosts
        on host_names.surt_host_name = planned_hosts.surt_host_name
    window host_name_weights as (partition by host_names.surt_host_name)
),

-- the pages the whole shares leave go one each to the largest remainders (then the
-- name with more known URLs, then the shorter name, then by name)
names_rounded as (
    select
        names_apportioned.*,
        names_apportioned.host_pages_to_fetch
        - sum(names_apportioned.base_pages) over host_names_all as pages_left_over,
        row_number() over (
            partition by names_apportioned.surt_host_name
            order by
                names_apportioned.remainder_weight desc,
                names_apportioned.name_weight desc,
                length(names_apportioned.url_host_name) asc,
                names_apportioned.url_host_name asc
        ) as remainder_rank

    from names_apportioned
    window host_names_all as (partition by names_apportioned.surt_host_name)
),

-- a host without a name seen: its bare name and (when it has two labels or more, as
-- Common Crawl drops `www` only then) its `www` name, one URL each. The same largest
-- remainders, in closed form: half the pages each, the odd page to the shorter bare
-- name (most planned hosts at a real crawl's size: no window over them)
assumed_names as (
    select
        hosts_without_names.*,
        hosts_without_names.host_name like '%.%' as has_www_name

    from hosts_without_names
),

host_queue_keys as (
    select
        ---------- ids
        names_rounded.surt_host_name,
        names_rounded.url_host_name,

        ---------- strings
        names_rounded.url_host_registered_domain,
        names_rounded.phase,
        'known_urls' as name_source,

        ---------- numerics
        names_rounded.seen_url_count,
        names_rounded.host_pages_to_fetch,
        (
            names_rounded.base_pages
            + case
                when
                    names_rounded.remainder_rank <= names_rounded.pages_left_over
                    then 1
                else 0
            end
        )::bigint as pages_to_fetch,
        names_rounded.hq_density_estimate

    from names_rounded
    union all
    select
        assumed_names.surt_host_name,
        assumed_names.host_name as url_host_name,
        assumed_names.url_host_registered_domain,
        assumed_names.phase,
        'assumed' as name_source,
        0 as seen_url_count,
        assumed_names.pages_to_fetch as host_pages_to_fetch,
        case
            when assumed_names.has_www_name
                then
                    {{ int_div('assumed_names.pages_to_fetch', '2') }}
                    + assumed_names.pages_to_fetch % 2
            else assumed_names.pages_to_fetch
        end::bigint as pages_to_fetch,
        assumed_names.hq_density_estimate

    from assumed_names
    union all
    select
        assumed_names.surt_host_name,
        'www.' || assumed_names.host_name as url_host_name,
        assumed_names.url_host_registered_domain,
        assumed_names.phase,
        'assumed' as name_source,
        0 as seen_url_count,
        assumed_names.pages_to_fetch as host_pages_to_fetch,
        {{ int_div('assumed_names.pages_to_fetch', '2') }}::bigint as pages_to_fetch,
        assumed_names.hq_density_estimate

    from assumed_names
    where assumed_names.has_www_name
),

-- a name whose share rounds to nothing is not a queue key of the plan
planned_queue_keys as (
    select host_queue_keys.*
    from host_queue_keys
    where host_queue_keys.pages_to_fetch > 0
)

select * from planned_queue_keys
