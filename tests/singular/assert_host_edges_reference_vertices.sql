-- Every edge of a release links two vertices of that release (FORMATS.md §1.3).
with

host_edges as (
    select * from {{ ref('stg_webgraph__host_edges') }}
),

host_vertices as (
    select * from {{ ref('stg_webgraph__host_vertices') }}
),

dangling_edges as (
    select host_edges.*
    from host_edges
    left join host_vertices as from_vertices
        on
            host_edges.release = from_vertices.release
            and host_edges.from_vertex_id = from_vertices.vertex_id
    left join host_vertices as to_vertices
        on
            host_edges.release = to_vertices.release
            and host_edges.to_vertex_id = to_vertices.vertex_id
    where from_vertices.vertex_id is null or to_vertices.vertex_id is null
)

select * from dangling_edges
