with

host_edges as (
    select * from {{ source('webgraph', 'host_edges') }}
),

graph_manifest as (
    select * from {{ source('webgraph', 'graph_manifest') }}
),

committed_host_edges as (
    select
        ---------- ids
        host_edges.release,
        host_edges.from_vertex_id,
        host_edges.to_vertex_id

    from host_edges
    inner join graph_manifest
        on
            {{ lake_part_key('host_edges.filename') }}
            = {{ manifest_key('graph_manifest') }}
            and graph_manifest.lake_table = 'host_edges'
            and host_edges.release = graph_manifest.release
)

select * from committed_host_edges
