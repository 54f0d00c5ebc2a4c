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

-- Every pair of releases, earlier first, numbered: the rank windows below partition
-- by integers (names such as 'cc-main-2024-nov-feb-apr' sort several times slower).
release_pairs as (
    select
        earlier.release as reference_release,
        later.release as later_release,
        row_number() over (
            order by earlier.release_order, later.release_order
        )::integer as release_pair_id

    from releases_ordered as earlier
    inner join releases_ordered as later
        on earlier.release_order < later.release_order
),

-- Hosts present in both releases of a pair. Each side is matched on host and release,
-- so every host meets its own row once (5M hosts per release at scale).
hosts_in_both as (
    select
        release_pairs.release_pair_id,
        earlier.hc_val as reference_hc_val,
        later.hc_val as later_hc_val,
        earlier.pr_val as reference_pr_val,
        later.pr_val as later_pr_val

    from release_pairs
    inner join host_ranks as earlier
        on release_pairs.reference_release = earlier.release
    inner join host_ranks as later
        on
            earlier.surt_host_name = later.surt_host_name
            and release_pairs.later_release = later.release
),

-- One row per metric with its value in both releases (a ranks file may lack a value:
-- `---`, read as null; a NaN is no value either).
host_pairs as (
    select
        hosts_in_both.release_pair_id,
        1 as centrality_metric_id,
        hosts_in_both.reference_hc_val as reference_value,
        hosts_in_both.later_hc_val as later_value
    from hosts_in_both
    where
        hosts_in_both.reference_hc_val is not null
        and hosts_in_both.later_hc_val is not null
        and not isnan(hosts_in_both.reference_hc_val)
        and not isnan(hosts_in_both.later_hc_val)
    union all
    select
        hosts_in_both.release_pair_id,
        2 as centrality_metric_id,
        hosts_in_both.reference_pr_val as reference_value,
        hosts_in_both.later_pr_val as later_value
    from hosts_in_both
    where
        hosts_in_both.reference_pr_val is not null
        and hosts_in_both.later_pr_val is not null
        and not isnan(hosts_in_both.reference_pr_val)
        and not isnan(hosts_in_both.later_pr_val)
),

host_pairs_ranked as (
    select
        host_pairs.release_pair_id,
        host_pairs.centrality_metric_id,
        {{ mid_rank(
            'host_pairs.reference_value', 'release_pair_id, centrality_metric_id'
        ) }} as reference_rank,
        {{ mid_rank(
            'host_pairs.later_value', 'release_pair_id, centrality_metric_id'
        ) }} as later_rank

    from host_pairs
),

rank_correlations as (
    select
        host_pairs_ranked.release_pair_id,
        host_pairs_ranked.centrality_metric_id,
        count(*) as host_count,
        corr(host_pairs_ranked.reference_rank, host_pairs_ranked.later_rank)
            as rank_correlation

    from host_pairs_ranked
    group by all
),

graph_rank_stability as (
    select
        ---------- ids
        case rank_correlations.centrality_metric_id
            when 1 then 'hc'
            when 2 then 'pr'
        end as centrality_metric,
        release_pairs.reference_release,
        release_pairs.later_release,

        ---------- numerics
        rank_correlations.host_count,
        {{ bounded_correlation('rank_correlations.rank_correlation') }} as spearman_rho

    from rank_correlations
    inner join release_pairs
        on rank_correlations.release_pair_id = release_pairs.release_pair_id
)

select * from graph_rank_stability
