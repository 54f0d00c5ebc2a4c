with

host_ranks as (
    select * from {{ ref('stg_webgraph__host_ranks') }}
),

graph_releases as (
    select * from {{ ref('graph_releases') }}
),

releases_ingested as (
    select distinct host_ranks.release
    from host_ranks
),

-- Releases in time order: by their last crawl; releases the seed lacks, after, by name.
releases_ordered as (
    select
        releases_ingested.release,
        row_number() over (
            order by graph_releases.last_crawl nulls last, releases_ingested.release
        ) as release_order

    from releases_ingested
    left join graph_releases
        on releases_ingested.release = graph_releases.release
),

host_ranks_ordered as (
    select
        host_ranks.*,
        releases_ordered.release_order

    from host_ranks
    inner join releases_ordered
        on host_ranks.release = releases_ordered.release
),

-- Hosts present in two releases with the metric's value in both (a ranks file may
-- lack a value: `---`, read as null).
host_pairs_with_values as (
    select
        earlier.release as reference_release,
        later.release as later_release,
        metrics.centrality_metric,
        metrics.reference_value,
        metrics.later_value

    from host_ranks_ordered as earlier
    inner join host_ranks_ordered as later
        on
            earlier.surt_host_name = later.surt_host_name
            and earlier.release_order < later.release_order
    cross join lateral (
        values
        ('hc', earlier.hc_val, later.hc_val),
        ('pr', earlier.pr_val, later.pr_val)
    ) as metrics (centrality_metric, reference_value, later_value)
),

host_pairs as (
    select * from host_pairs_with_values
    where reference_value is not null and later_value is not null
),

host_pairs_ranked as (
    select
        host_pairs.reference_release,
        host_pairs.later_release,
        host_pairs.centrality_metric,
        {{ mid_rank(
            'host_pairs.reference_value',
            'reference_release, later_release, centrality_metric'
        ) }} as reference_rank,
        {{ mid_rank(
            'host_pairs.later_value',
            'reference_release, later_release, centrality_metric'
        ) }} as later_rank

    from host_pairs
),

graph_rank_stability as (
    select
        ---------- ids
        host_pairs_ranked.centrality_metric,
        host_pairs_ranked.reference_release,
        host_pairs_ranked.later_release,

        ---------- numerics
        count(*) as host_count,
        {{ bounded_correlation(
            'corr(host_pairs_ranked.reference_rank, host_pairs_ranked.later_rank)'
        ) }} as spearman_rho

    from host_pairs_ranked
    group by all
)

select * from graph_rank_stability
