{#- A step of int_centrality_quality_kendall_spark (ephemeral, by its folder): each
    stratum's discordant pair weights, counted as a merge sort counts inversions. -#}
{%- set merge_base = 8 %}

with

-- Each host numbered and weighted (int_centrality_quality_hosts_weighted). Spark
-- spreads whole strata over its partitions here (the hint), so that the merge levels
-- below need no second shuffle of their rows (~log8(n) per host).
hosts_weighted as (
    select /*+ repartition(classifier_id, centrality_metric_id, stratum_id) */ *
    from {{ ref('int_centrality_quality_hosts_weighted') }}
),

-- Discordant pairs (the first host has the smaller x and the larger y), counted the
-- way a merge sort counts inversions (Knight 1966), here an 8-way merge (merge_base):
-- O(n log n) rows, not n^2 pairs. Hosts are numbered by (x, y) (xy_position); a pair
-- is discordant exactly when the host numbered first has the larger y (one with the
-- same x comes first only with a y no larger). At merge level l the positions fall
-- into groups of 8^(l+1), each of 8 parts of 8^l positions, and every pair of
-- positions falls in two parts of one group at exactly one level (the highest octal
-- digit in which they differ). The discordant pairs are thus, over all levels and
-- groups, the pairs of a host and a host of a later part with a smaller y. (8 ways
-- rather than 2: a third of the rows, for 8 running counts on each.)
merge_levels as (
    select
        merge_level_values.merge_level,
        cast(power({{ merge_base }}, merge_level_values.merge_level) as bigint)
            as part_size
    from (
        -- up to n = 8^20 = 2^60 hosts a stratum
        select {{ unnest_values(range(0, 20), 'bigint') }} as merge_level
    ) as merge_level_values
),

{%- set group_size = '(' ~ merge_base ~ ' * merge_levels.part_size)' %}

host_merge_parts as (
    select
        hosts_weighted.classifier_id,
        hosts_weighted.centrality_metric_id,
        hosts_weighted.stratum_id,
        hosts_weighted.y,
        hosts_weighted.weight_2,
        hosts_weighted.weight_3,
        merge_levels.merge_level,
        {{ int_div('hosts_weighted.xy_position', group_size) }} as merge_group,
        ({{ int_div('hosts_weighted.xy_position', 'merge_levels.part_size') }})
        % {{ merge_base }} as merge_part
    from merge_levels
    inner join hosts_weighted
        on merge_levels.part_size < hosts_weighted.stratum_host_count
),

-- The hosts of each part of a host's group with a larger y (part_k_above), and in all
-- (part_k_hosts): rows ordered by y, largest first, later parts first among equal y (a
-- tie in y is not discordant), counted up to the host. (The group leads the partition
-- so that it leads Spark's sort: the sort compares the first key the fastest.)
{%- set merge_group_by_y -%}
    partition by
        host_merge_parts.merge_group,
        host_merge_parts.merge_level,
        host_merge_parts.classifier_id,
        host_merge_parts.centrality_metric_id,
        host_merge_parts.stratum_id
    order by host_merge_parts.y desc, host_merge_parts.merge_part desc
{%- endset %}

merge_part_counts as (
    select
        host_merge_parts.classifier_id,
        host_merge_parts.centrality_metric_id,
        host_merge_parts.stratum_id,
        host_merge_parts.weight_2,
        host_merge_parts.weight_3,
        {%- for part in range(merge_base) %}
            sum(case when host_merge_parts.merge_part = {{ part }} then 1 else 0 end)
                over rows_above as part_{{ part }}_above,
            sum(case when host_merge_parts.merge_part = {{ part }} then 1 else 0 end)
                over whole_group as part_{{ part }}_hosts,
        {%- endfor %}
        host_merge_parts.merge_part
    from host_merge_parts
    window
        rows_above as (
            {{ merge_group_by_y }}
            rows between unbounded preceding and current row
        ),
        -- the same order as rows_above, so that Spark sorts once for both
        whole_group as (
            {{ merge_group_by_y }}
            rows between unbounded preceding and unbounded following
        )
),

-- Each host's discordant partners in the other parts of its group: the hosts of an
-- earlier part with a larger y, and of a later part with a smaller y.
merge_partners as (
    select
        merge_part_counts.classifier_id,
        merge_part_counts.centrality_metric_id,
        merge_part_counts.stratum_id,
        merge_part_counts.weight_2,
        merge_part_counts.weight_3,
        0
        {%- for part in range(merge_base) %}
            + case
                when merge_part_counts.merge_part > {{ part }}
                    then merge_part_counts.part_{{ part }}_above
                when merge_part_counts.merge_part < {{ part }}
                    then
                        merge_part_counts.part_{{ part }}_hosts
                        - merge_part_counts.part_{{ part }}_above
                else 0
            end
        {%- endfor %}
            as partner_count
    from merge_part_counts
),

-- A discordant pair weighs the sum of its two hosts' weights: over all pairs, each
-- host's weight times its partners (2 for every pair when each host weighs 1).
discordant_weights as (
    select
        merge_partners.classifier_id,
        merge_partners.centrality_metric_id,
        merge_partners.stratum_id,
        sum(merge_partners.partner_count) as discordant_weight_1,
        sum(merge_partners.partner_count * merge_partners.weight_2)
            as discordant_weight_2,
        sum(merge_partners.partner_count * merge_partners.weight_3)
            as discordant_weight_3
    from merge_partners
    group by all
)

select * from discordant_weights
