{#- Spark's stand-in for int_centrality_quality_kendall.py (dbt-spark runs Python models
    only on Databricks): the same statistics in SQL. Ties and weights are sums over tie
    groups; the discordant pairs are counted as a merge sort counts inversions, in
    O(n log n) rows per stratum rather than the n^2 pairs (README: Spark). -#}
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
        count(*) over (stratum_hosts) as stratum_host_count,
        row_number() over (by_xy) - 1 as xy_position,
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

-- Discordant pairs (the first host has the smaller x and the larger y), counted the
-- way a merge sort counts inversions (Knight 1966): in O(n log n) rows, not n^2 pairs.
-- Hosts are numbered by (x, y) (xy_position); a pair is discordant exactly when the
-- host numbered first has the larger y (one with the same x comes first only with a y
-- no larger). At merge level l the positions fall into groups of 2^(l+1), each a left
-- and a right half of 2^l positions, and every pair of positions is split between the
-- two halves of one group at exactly one level. The discordant pairs are thus, over
-- all levels and groups, the pairs of a left-half host and a right-half host with a
-- smaller y.
merge_levels as (
    select
        merge_level_values.merge_level,
        cast(power(2, merge_level_values.merge_level) as bigint) as half_size
    from (
        select {{ unnest_values(range(0, 48), 'bigint') }} as merge_level
    ) as merge_level_values
),

host_merge_halves as (
    select
        hosts_weighted.classifier_id,
        hosts_weighted.centrality_metric_id,
        hosts_weighted.stratum_id,
        hosts_weighted.y,
        hosts_weighted.weight_2,
        hosts_weighted.weight_3,
        merge_levels.merge_level,
        {{ int_div('hosts_weighted.xy_position', '(2 * merge_levels.half_size)') }}
            as merge_group,
        ({{ int_div('hosts_weighted.xy_position', 'merge_levels.half_size') }}) % 2 = 1
            as is_right_half
    from merge_levels
    inner join hosts_weighted
        on merge_levels.half_size < hosts_weighted.stratum_host_count
),

-- For each right-half host, the left-half hosts of its group with a larger y: rows
-- ordered by y, largest first, right-half hosts first among equal y (a tie in y is
-- not discordant), counted up to the host.
left_hosts_above as (
    select
        host_merge_halves.classifier_id,
        host_merge_halves.centrality_metric_id,
        host_merge_halves.stratum_id,
        host_merge_halves.is_right_half,
        host_merge_halves.weight_2,
        host_merge_halves.weight_3,
        sum(case when host_merge_halves.is_right_half then 0 else 1 end)
            over rows_above as left_count,
        sum(
            case
                when not host_merge_halves.is_right_half
                    then host_merge_halves.weight_2
                else 0
            end
        ) over rows_above as left_weight_2,
        sum(
            case
                when not host_merge_halves.is_right_half
                    then host_merge_halves.weight_3
                else 0
            end
        ) over rows_above as left_weight_3
    from host_merge_halves
    window
        rows_above as (
            partition by
                host_merge_halves.classifier_id,
                host_merge_halves.centrality_metric_id,
                host_merge_halves.stratum_id,
                host_merge_halves.merge_level,
                host_merge_halves.merge_group
            order by host_merge_halves.y desc, host_merge_halves.is_right_half desc
            rows between unbounded preceding and current row
        )
),

-- A discordant pair weighs the sum of its two hosts' weights.
discordant_weights as (
    select
        left_hosts_above.classifier_id,
        left_hosts_above.centrality_metric_id,
        left_hosts_above.stratum_id,
        sum(2 * left_hosts_above.left_count) as discordant_weight_1,
        sum(
            left_hosts_above.left_count * left_hosts_above.weight_2
            + left_hosts_above.left_weight_2
        ) as discordant_weight_2,
        sum(
            left_hosts_above.left_count * left_hosts_above.weight_3
            + left_hosts_above.left_weight_3
        ) as discordant_weight_3
    from left_hosts_above
    where left_hosts_above.is_right_half
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
        -- rounding can step past +-1; no tau (null) stays null (greatest and least
        -- would skip it)
        case
            when taus.tau_1 between -1 and 1 then taus.tau_1 else sign(taus.tau_1)
        end as kendall_tau_b,
        (
            case
                when taus.tau_2 between -1 and 1 then taus.tau_2 else sign(taus.tau_2)
            end
            + case
                when taus.tau_3 between -1 and 1 then taus.tau_3 else sign(taus.tau_3)
            end
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
