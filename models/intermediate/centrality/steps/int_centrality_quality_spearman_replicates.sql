-- Each Spearman rho's shift in each bootstrap replicate, to first order
-- (docs/definitions.md B, "Rank statistics"): sum_h (w_hb - 1) psi_h over the group's
-- hosts. Replicate 0 (the sample, every weight 1) shifts by 0.

with

pairs_influence as (
    select * from {{ ref('int_centrality_quality_influence') }}
),

pair_groups as (
    select * from {{ ref('int_centrality_quality_pair_groups') }}
),

host_universe as (
    select * from {{ ref('int_host_universe') }}
),

replicates as (
    select * from {{ bootstrap_replicates() }}
),

-- One row per host and classifier: its strata and its six influences (two metrics x
-- pooled, its language, its TLD category), so that its weights are read once per
-- classifier rather than once per group it is in.
hosts_influence as (
    select
        pairs_influence.classifier_id,
        pairs_influence.host_id,
        {%- for metric_id, metric in [(1, 'hc'), (2, 'pr')] %}
            {%- for stratum_type in ['pooled', 'language', 'tld_category'] %}
                coalesce(sum(pairs_influence.influence) filter (
                    where pairs_influence.centrality_metric_id = {{ metric_id }}
                    and pair_groups.stratum_type = '{{ stratum_type }}'
                ), 0) as {{ metric }}_{{ stratum_type }}_influence,
            {%- endfor %}
        {%- endfor %}
        max(pair_groups.stratum_id) filter (
            where pair_groups.stratum_type = 'pooled'
        ) as pooled_stratum_id,
        max(pair_groups.stratum_id) filter (
            where pair_groups.stratum_type = 'language'
        ) as language_stratum_id,
        max(pair_groups.stratum_id) filter (
            where pair_groups.stratum_type = 'tld_category'
        ) as tld_stratum_id

    from pairs_influence
    inner join pair_groups
        on
            pairs_influence.classifier_id = pair_groups.classifier_id
            and pairs_influence.centrality_metric_id
            = pair_groups.centrality_metric_id
            and pairs_influence.stratum_id = pair_groups.stratum_id
    group by all
),

-- held, not inlined: each host's weights are read once per classifier
host_weights as {{ materialized() }} (
    {{ bootstrap_host_weights('host_universe', 'host_id', 'surt_host_name') }}
),

-- sum_h w_hb psi_h per classifier, replicate and the hosts' (language, TLD) cell
cell_sums as (
    select
        hosts_influence.classifier_id,
        host_weights.replicate,
        hosts_influence.pooled_stratum_id,
        hosts_influence.language_stratum_id,
        hosts_influence.tld_stratum_id,
        {%- for metric in ['hc', 'pr'] %}
            {%- for stratum_type in ['pooled', 'language', 'tld_category'] %}
                sum(
                    host_weights.weight
                    * hosts_influence.{{ metric }}_{{ stratum_type }}_influence
                ) as {{ metric }}_{{ stratum_type }}_sum
                {%- if not loop.last or metric == 'hc' %},{% endif %}
            {%- endfor %}
        {%- endfor %}

    from hosts_influence
    inner join host_weights
        on hosts_influence.host_id = host_weights.host_id
    where host_weights.weight > 0
    group by all
),

-- The cells summed into each group: every cell is pooled, a language's cells its
-- language
group_sums as (
    {%- for metric_id, metric in [(1, 'hc'), (2, 'pr')] %}
        {%- for stratum_type, stratum_column in [
            ('pooled', 'pooled_stratum_id'), ('language', 'language_stratum_id'),
            ('tld_category', 'tld_stratum_id')
        ] %}
            select
                cell_sums.classifier_id,
                {{ metric_id }} as centrality_metric_id,
                cell_sums.{{ stratum_column }} as stratum_id,
                cell_sums.replicate,
                sum(cell_sums.{{ metric }}_{{ stratum_type }}_sum) as influence_sum
            from cell_sums
            group by all
            {% if not loop.last or metric == 'hc' %}union all{% endif %}
        {%- endfor %}
    {%- endfor %}
),

-- Every group in every replicate (a replicate that weighs none of a small stratum's
-- hosts has no sums): sum_h w_hb psi_h - sum_h psi_h, the latter being replicate 0's.
spearman_replicates as (
    select
        pair_groups.classifier,
        pair_groups.centrality_metric,
        pair_groups.stratum_type,
        pair_groups.stratum,
        replicates.replicate,
        coalesce(group_sums.influence_sum, 0) - sample_sums.influence_sum
            as spearman_rho_shift

    from group_sums as sample_sums
    cross join replicates
    inner join pair_groups
        on
            sample_sums.classifier_id = pair_groups.classifier_id
            and sample_sums.centrality_metric_id = pair_groups.centrality_metric_id
            and sample_sums.stratum_id = pair_groups.stratum_id
    left join group_sums
        on
            sample_sums.classifier_id = group_sums.classifier_id
            and sample_sums.centrality_metric_id = group_sums.centrality_metric_id
            and sample_sums.stratum_id = group_sums.stratum_id
            and replicates.replicate = group_sums.replicate
    where sample_sums.replicate = 0
)

select * from spearman_replicates
