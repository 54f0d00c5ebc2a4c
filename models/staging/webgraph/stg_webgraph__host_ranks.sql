with

host_ranks as (
    select * from {{ source('webgraph', 'host_ranks') }}
),

graph_manifest as (
    select * from {{ source('webgraph', 'graph_manifest') }}
),

-- The part files the manifest commits (macros/lake_part_key.sql): a part counts by
-- its path, key and partition, not by its key alone.
committed_parts as (
    select * from {{ committed_parts('graph_manifest', ['host_ranks']) }}
),

committed_host_ranks as (
    select
        ---------- ids
        -- from the part's lake-relative path: a release= folder above the lake
        -- (in $HOSTAWARE_HOME) would be read by hive partitioning instead
        {{ lake_part_partition('host_ranks.filename') }} as release,  -- noqa: RF04
        host_ranks.surt_host_name,

        ---------- numerics
        host_ranks.hc_pos,
        host_ranks.hc_val,
        host_ranks.pr_pos,
        host_ranks.pr_val

    from host_ranks
    inner join committed_parts
        on {{ lake_part_path('host_ranks.filename') }} = committed_parts.part_path
)

select * from committed_host_ranks
