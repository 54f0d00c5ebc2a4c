with

host_vertices as (
    select * from {{ source('webgraph', 'host_vertices') }}
),

graph_manifest as (
    select * from {{ source('webgraph', 'graph_manifest') }}
),

committed_host_vertices as (
    select
        ---------- ids
        host_vertices.release,
        host_vertices.vertex_id,
        host_vertices.surt_host_name

    from host_vertices
    inner join graph_manifest
        on
            {{ lake_part_key('host_vertices.filename') }}
            = {{ manifest_key('graph_manifest') }}
            and graph_manifest.lake_table = 'host_vertices'
            and host_vertices.release = graph_manifest.release
)

select * from committed_host_vertices
