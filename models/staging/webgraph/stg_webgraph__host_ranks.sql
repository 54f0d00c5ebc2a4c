with

host_ranks as (
    select * from {{ source('webgraph', 'host_ranks') }}
),

graph_manifest as (
    select * from {{ source('webgraph', 'graph_manifest') }}
),

committed_host_ranks as (
    select
        ---------- ids
        host_ranks.release,
        host_ranks.surt_host_name,

        ---------- numerics
        host_ranks.hc_pos,
        host_ranks.hc_val,
        host_ranks.pr_pos,
        host_ranks.pr_val

    from host_ranks
    inner join graph_manifest
        on
            {{ lake_part_key('host_ranks.filename') }}
            = {{ manifest_key('graph_manifest') }}
            and graph_manifest.lake_table = 'host_ranks'
            and host_ranks.release = graph_manifest.release
)

select * from committed_host_ranks
