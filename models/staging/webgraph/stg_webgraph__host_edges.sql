with

host_edges as (
    select * from {{ source('webgraph', 'host_edges') }}
),

graph_manifest as (
    select * from {{ source('webgraph', 'graph_manifest') }}
),

-- The part files the manifest commits (macros/lake_part_key.sql): a part counts by
-- its path, key and partition, not by its key alone.
committed_parts as (
    select * from {{ committed_parts('graph_manifest', ['host_edges']) }}
),

committed_host_edges as (
    select
        ---------- ids
        -- from the part's lake-relative path: a release= folder above the lake
        -- (in $HOSTAWARE_HOME) would be read by hive partitioning instead
        {{ lake_part_partition('host_edges.filename') }} as release,  -- noqa: RF04
        host_edges.from_vertex_id,
        host_edges.to_vertex_id

    from host_edges
    inner join committed_parts
        on {{ lake_part_path('host_edges.filename') }} = committed_parts.part_path
)

select * from committed_host_edges
