-- What fetching each host of the universe U_c costs and yields under each classifier,
-- and its TLD as a number (the host orderings count the TLDs a budget reaches).

with

host_universe as (
    select * from {{ ref('int_host_universe') }}
),

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
)

select * from hosts_to_order
