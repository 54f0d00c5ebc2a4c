with

host_index as (
    select * from {{ source('host_index', 'host_index') }}
),

host_index_manifest as (
    select * from {{ source('host_index', 'host_index_manifest') }}
),

-- The part files the manifest commits (macros/lake_part_key.sql): a part counts by
-- its path, key and partition, not by its key alone.
committed_parts as (
    select * from {{ committed_parts('host_index_manifest', ['host_index']) }}
),

committed_host_crawls as (
    select
        ---------- ids
        -- from the part's lake-relative path: a crawl= folder above the lake
        -- (in $HOSTAWARE_HOME) would be read by hive partitioning instead
        {{ lake_part_partition('host_index.filename') }} as crawl,
        host_index.surt_host_name,

        ---------- strings
        host_index.url_host_registered_domain,
        host_index.url_host_tld,
        host_index.url_host_registry_suffix,

        ---------- numerics
        host_index.hcrank as hc_val,
        host_index.prank as pr_val,
        host_index.hcrank10 as hc_rank10,
        host_index.prank10 as pr_rank10,
        host_index.nutch_num_records as known_url_count,
        host_index.nutch_fetched as fetched_url_count,
        host_index.nutch_unfetched as unfetched_url_count,
        host_index.nutch_gone as gone_url_count,
        host_index.nutch_redir_temp as redirect_temp_url_count,
        host_index.nutch_redir_perm as redirect_perm_url_count,
        host_index.nutch_not_modified as not_modified_url_count,
        host_index.fetch_200 as fetch_200_count,
        host_index.fetch_200_lote as fetch_200_lote_count,
        -- from the counts, not fetch_200_lote_pct: that one is rounded,
        -- and some partitions lack it
        host_index.fetch_200_lote
        / nullif(host_index.fetch_200, 0) as fetch_200_lote_share,
        -- the crawl's robots.txt requests by outcome
        host_index.robots_200 as robots_200_count,
        host_index.robots_3xx as robots_3xx_count,
        host_index.robots_4xx as robots_4xx_count,
        host_index.robots_5xx as robots_5xx_count,
        host_index.robots_gone as robots_gone_count,
        host_index.robots_not_modified as robots_not_modified_count,
        host_index.robots_other as robots_other_count,
        host_index.robots_redir_perm as robots_redirect_perm_count,
        host_index.robots_redir_temp as robots_redirect_temp_count

    from host_index
    inner join committed_parts
        on {{ lake_part_path('host_index.filename') }} = committed_parts.part_path
)

select * from committed_host_crawls
