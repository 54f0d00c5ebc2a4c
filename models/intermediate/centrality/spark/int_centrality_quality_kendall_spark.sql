{#- Spark's stand-in for int_centrality_quality_kendall.py (dbt-spark runs Python models
    only on Databricks): the same statistics in SQL. Ties and weights are sums over tie
    groups; the discordant pairs are counted as a merge sort counts inversions, in
    O(n log n) rows per stratum rather than the n^2 pairs (README: Spark). A name of its
    own (two models of one name, one disabled on each engine, confuse dbt's partial
    parsing), its table named as the Python model's. -#}
{{ config(alias='int_centrality_quality_kendall') }}

with

pair_groups as (
    select * from {{ ref('int_centrality_quality_pair_groups') }}
),

-- Each host numbered and weighted (int_centrality_quality_hosts_weighted). Spark
-- spreads whole strata over its partitions here (the hint), as the discordance step
-- does, so that the totals, ties and merge levels need no second shuffle of their rows.
hosts_weighted as (
    select /*+ repartition(classifier_id, centrality_metric_id, stratum_id) */ *
    from {{ ref('int_centrality_quality_hosts_weighted') }}
),

-- A pair weighs the sum of its hosts' weights: all pairs weigh (n - 1) * sum(w).
weight_totals as (
    select
        hosts_weighted.classifier_id,
        hosts_weighted.centrality_metric_id,
        hosts_weighted.stratum_id,
        count(*) * (count(*) - 1) as total_1,
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
            count(*) * (count(*) - 1) as tie_weight_1,
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

-- Discordant pairs (the first host has the smaller x and the larger y), each
-- weighting's sum, counted as a merge sort counts inversions
-- (steps/int_centrality_quality_discordance).
discordant_weights as (
    select * from {{ ref('int_centrality_quality_discordance') }}
),

-- tau = (total - ties_x - ties_y + ties_xy - 2 * discordant)
--       / sqrt((total - ties_x) * (total - ties_y)), for each weighting
taus as (
    select
        weight_totals.classifier_id,
        weight_totals.centrality_metric_id,
        {%- for weight in [1, 2, 3] %}
            (
                weight_totals.total_{{ weight }}
                - ties_x.tie_weight_{{ weight }}
                - ties_y.tie_weight_{{ weight }}
                + ties_xy.tie_weight_{{ weight }}
                - 2 * coalesce(discordant_weights.discordant_weight_{{ weight }}, 0)
            )
            / nullif(
                sqrt(weight_totals.total_{{ weight }} - ties_x.tie_weight_{{ weight }})
                * sqrt(
                    weight_totals.total_{{ weight }} - ties_y.tie_weight_{{ weight }}
                ),
                0
            ) as tau_{{ weight }},
        {%- endfor %}
        weight_totals.stratum_id
    from weight_totals
    {% for tie in ['x', 'y', 'xy'] %}
        inner join ties_{{ tie }}
            on
                weight_totals.classifier_id = ties_{{ tie }}.classifier_id
                and weight_totals.centrality_metric_id
                = ties_{{ tie }}.centrality_metric_id
                and weight_totals.stratum_id = ties_{{ tie }}.stratum_id
    {% endfor %}
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
