with

host_vertices as (
    select * from {{ source('webgraph', 'host_vertices') }}
),

graph_manifest as (
    select * from {{ source('webgraph', 'graph_manifest') }}
),

-- The part files the manifest commits (macros/lake_part_key.sql): a part counts by
-- its path, key and partition, not by its key alone.
committed_parts as (
    select * from {{ committed_parts('graph_manifest', ['host_vertices']) }}
),

committed_host_vertices as (
    select
        ---------- ids
        -- from the part's lake-relative path: a release= folder above the lake
        -- (in $HOSTAWARE_HOME) would be read by hive partitioning instead
        {{ lake_part_partition('host_vertices.filename') }} as release,  -- noqa: RF04
        host_vertices.vertex_id,
        host_vertices.surt_host_name

    from host_vertices
    inner join committed_parts
        on {{ lake_part_path('host_vertices.filename') }} = committed_parts.part_path
)

select * from committed_host_vertices
