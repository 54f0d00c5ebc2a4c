{#- Spark's stand-in for int_centrality_quality_kendall.py (dbt-spark runs Python models
    only on Databricks): the same statistics from every pair of hosts, O(n^2) per stratum,
    so for the tiny and demo crawls, not the paper's 532,628 hosts (README: Spark). -#}
{{ config(materialized='table') }}

with

centrality_quality_pairs as (
    select * from {{ ref('int_centrality_quality_pairs') }}
),

pair_groups as (
    select
        centrality_quality_pairs.classifier_id,
        centrality_quality_pairs.centrality_metric_id,
        centrality_quality_pairs.stratum_id,
        any_value(centrality_quality_pairs.classifier) as classifier,
        any_value(centrality_quality_pairs.centrality_metric) as centrality_metric,
        any_value(centrality_quality_pairs.stratum_type) as stratum_type,
        any_value(centrality_quality_pairs.stratum) as stratum,
        count(*) as host_count
    from centrality_quality_pairs
    group by all
),

-- Each host's weights: 1 for tau-b; for the weighted tau (scipy's weightedtau,
-- hyperbolic weigher), 1 / (n - position) in the lexicographic order by (x, y) and by
-- (y, x) (weight_2, weight_3).
hosts_weighted as (
    select
        centrality_quality_pairs.classifier_id,
        centrality_quality_pairs.centrality_metric_id,
        centrality_quality_pairs.stratum_id,
        centrality_quality_pairs.centrality_value as x,
        centrality_quality_pairs.quality_score_median as y,
        cast(1 as double) as weight_1,
        cast(1 as double) / (
            count(*) over (stratum_hosts) - row_number() over (by_xy) + 1
        ) as weight_2,
        cast(1 as double) / (
            count(*) over (stratum_hosts) - row_number() over (by_yx) + 1
        ) as weight_3
    from centrality_quality_pairs
    window
        stratum_hosts as (
            partition by
                centrality_quality_pairs.classifier_id,
                centrality_quality_pairs.centrality_metric_id,
                centrality_quality_pairs.stratum_id
        ),
        by_xy as (
            partition by
                centrality_quality_pairs.classifier_id,
                centrality_quality_pairs.centrality_metric_id,
                centrality_quality_pairs.stratum_id
            order by
                centrality_quality_pairs.centrality_value,
                centrality_quality_pairs.quality_score_median
        ),
        by_yx as (
            partition by
                centrality_quality_pairs.classifier_id,
                centrality_quality_pairs.centrality_metric_id,
                centrality_quality_pairs.stratum_id
            order by
                centrality_quality_pairs.quality_score_median,
                centrality_quality_pairs.centrality_value
        )
),

-- A pair weighs the sum of its hosts' weights: all pairs weigh (n - 1) * sum(w).
weight_totals as (
    select
        hosts_weighted.classifier_id,
        hosts_weighted.centrality_metric_id,
        hosts_weighted.stratum_id,
        (count(*) - 1) * sum(hosts_weighted.weight_1) as total_1,
        (count(*) - 1) * sum(hosts_weighted.weight_2) as total_2,
        (count(*) - 1) * sum(hosts_weighted.weight_3) as total_3
    from hosts_weighted
    group by all
),

-- Pairs tied in x, in y, in both: a tie group G weighs (|G| - 1) * sum_G(w).
{%- for tie in ['x', 'y', 'xy'] %}

    tie_groups_{{ tie }} as (
        select
            hosts_weighted.classifier_id,
            hosts_weighted.centrality_metric_id,
            hosts_weighted.stratum_id,
        {{ 'hosts_weighted.x, hosts_weighted.y' if tie == 'xy'
            else 'hosts_weighted.' ~ tie }},
            (count(*) - 1) * sum(hosts_weighted.weight_1) as tie_weight_1,
            (count(*) - 1) * sum(hosts_weighted.weight_2) as tie_weight_2,
            (count(*) - 1) * sum(hosts_weighted.weight_3) as tie_weight_3
        from hosts_weighted
        group by all
    ),

    ties_{{ tie }} as (
        select
            tie_groups_{{ tie }}.classifier_id,
            tie_groups_{{ tie }}.centrality_metric_id,
            tie_groups_{{ tie }}.stratum_id,
            sum(tie_groups_{{ tie }}.tie_weight_1) as tie_weight_1,
            sum(tie_groups_{{ tie }}.tie_weight_2) as tie_weight_2,
            sum(tie_groups_{{ tie }}.tie_weight_3) as tie_weight_3
        from tie_groups_{{ tie }}
        group by all
    ),
{%- endfor %}

-- Discordant pairs, each once: the first host has the smaller x and the larger y.
discordant_weights as (
    select
        first_hosts.classifier_id,
        first_hosts.centrality_metric_id,
        first_hosts.stratum_id,
        sum(first_hosts.weight_1 + second_hosts.weight_1) as discordant_weight_1,
        sum(first_hosts.weight_2 + second_hosts.weight_2) as discordant_weight_2,
        sum(first_hosts.weight_3 + second_hosts.weight_3) as discordant_weight_3
    from hosts_weighted as first_hosts
    inner join hosts_weighted as second_hosts
        on
            first_hosts.classifier_id = second_hosts.classifier_id
            and first_hosts.centrality_metric_id = second_hosts.centrality_metric_id
            and first_hosts.stratum_id = second_hosts.stratum_id
            and first_hosts.x < second_hosts.x
            and first_hosts.y > second_hosts.y
    group by all
),

-- tau = (total - ties_x - ties_y + ties_xy - 2 * discordant)
--       / sqrt((total - ties_x) * (total - ties_y)), for each weighting
taus as (
    select
        weight_totals.classifier_id,
        weight_totals.centrality_metric_id,
        weight_totals.stratum_id,
        (
            weight_totals.total_1
            - ties_x.tie_weight_1
            - ties_y.tie_weight_1
            + ties_xy.tie_weight_1
            - 2 * coalesce(discordant_weights.discordant_weight_1, 0)
        )
        / nullif(
            sqrt(weight_totals.total_1 - ties_x.tie_weight_1)
            * sqrt(weight_totals.total_1 - ties_y.tie_weight_1),
            0
        ) as tau_1,
        (
            weight_totals.total_2
            - ties_x.tie_weight_2
            - ties_y.tie_weight_2
            + ties_xy.tie_weight_2
            - 2 * coalesce(discordant_weights.discordant_weight_2, 0)
        )
        / nullif(
            sqrt(weight_totals.total_2 - ties_x.tie_weight_2)
            * sqrt(weight_totals.total_2 - ties_y.tie_weight_2),
            0
        ) as tau_2,
        (
            weight_totals.total_3
            - ties_x.tie_weight_3
            - ties_y.tie_weight_3
            + ties_xy.tie_weight_3
            - 2 * coalesce(discordant_weights.discordant_weight_3, 0)
        )
        / nullif(
            sqrt(weight_totals.total_3 - ties_x.tie_weight_3)
            * sqrt(weight_totals.total_3 - ties_y.tie_weight_3),
            0
        ) as tau_3
    from weight_totals
    inner join ties_x
        on
            weight_totals.classifier_id = ties_x.classifier_id
            and weight_totals.centrality_metric_id = ties_x.centrality_metric_id
            and weight_totals.stratum_id = ties_x.stratum_id
    inner join ties_y
        on
            weight_totals.classifier_id = ties_y.classifier_id
            and weight_totals.centrality_metric_id = ties_y.centrality_metric_id
            and weight_totals.stratum_id = ties_y.stratum_id
    inner join ties_xy
        on
            weight_totals.classifier_id = ties_xy.classifier_id
            and weight_totals.centrality_metric_id = ties_xy.centrality_metric_id
            and weight_totals.stratum_id = ties_xy.stratum_id
    left join discordant_weights
        on
            weight_totals.classifier_id = discordant_weights.classifier_id
            and weight_totals.centrality_metric_id
            = discordant_weights.centrality_metric_id
            and weight_totals.stratum_id = discordant_weights.stratum_id
),

centrality_quality_kendall as (
    select
        pair_groups.classifier,
        pair_groups.centrality_metric,
        pair_groups.stratum_type,
        pair_groups.stratum,
        pair_groups.host_count,
        greatest(-1.0, least(1.0, taus.tau_1)) as kendall_tau_b,
        (
            greatest(-1.0, least(1.0, taus.tau_2))
            + greatest(-1.0, least(1.0, taus.tau_3))
        )
        / 2 as weighted_tau
    from pair_groups
    inner join taus
        on
            pair_groups.classifier_id = taus.classifier_id
            and pair_groups.centrality_metric_id = taus.centrality_metric_id
            and pair_groups.stratum_id = taus.stratum_id
)

select * from centrality_quality_kendall
