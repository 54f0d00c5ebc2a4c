-- The URLs the warehouse knows of each host of the crawl plan's population: its
-- classified pages (any crawl) and its annotated pages that carry a URL. Common
-- Crawl's URL-level annotations carry only a SURT key, which has lost the URL's
-- scheme and `www`, so no fetchable URL can be rebuilt from it; they are not used.
-- Each URL once, with the host name it is on (`www.example.com` and `example.com` are
-- one host key but two names).

with

documents as (
    select * from {{ ref('stg_crawl__documents') }}
),

page_annotations as (
    select * from {{ ref('stg_annotations__pages') }}
),

plan_hosts as (
    select * from {{ ref('int_plan_hosts') }}
    where plan_role = 'current'
),

known_urls as (
    select
        documents.surt_host_name,
        documents.url,
        1 as source_order
    from documents
    where documents.url is not null
    union all
    select
        page_annotations.surt_host_name,
        page_annotations.url,
        2 as source_order
    from page_annotations
    where page_annotations.url is not null
),

planned_hosts as (
    select
        plan_hosts.surt_host_name,
        {{ surt_host_to_name('plan_hosts.surt_host_name') }} as host_name

    from plan_hosts
    where plan_hosts.known_url_count > 0
),

-- The host name of each URL (after the scheme and any user info, before a port, path,
-- query or fragment), lower case. A URL whose name is neither the host's nor `www.`
-- and the host's does not belong to the host (a source's inconsistent row): left out.
planned_urls as (
    select
        known_urls.surt_host_name,
        known_urls.url,
        lower(
            regexp_extract(
                known_urls.url, '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#@]*@)?([^/?#:]+)', 2
            )
        ) as url_host_name,
        planned_hosts.host_name,
        known_urls.source_order

    from known_urls
    inner join planned_hosts
        on known_urls.surt_host_name = planned_hosts.surt_host_name
),

plan_known_urls as (
    select
        ---------- ids
        planned_urls.surt_host_name,
        planned_urls.url,

        ---------- strings
        planned_urls.url_host_name,
        case min(planned_urls.source_order)
            when 1 then 'classified_page'
            else 'annotated_page'
        end as url_source,

        ---------- numerics
        -- the seeds' order within a host name: classified pages first, then a fixed
        -- random order (md5 of the URL)
        min(planned_urls.source_order) as source_order,
        {{ md5_number("planned_urls.url || ':seed'") }} as random_order

    from planned_urls
    where
        planned_urls.url_host_name = planned_urls.host_name
        or planned_urls.url_host_name = 'www.' || planned_urls.host_name
    group by all
)

select * from plan_known_urls
