-- The depth policies' bootstrap variances over hosts (docs/definitions.md B, "Depth
-- policies at a budget"): with host h weighted w_h the budget is f sum w n and each
-- policy's allocation moves; to first order (the envelope theorem: a page moved within
-- the allocation is worth the curve's slope lambda wherever it goes) the yield's
-- derivative in w_h is psi_h = a_h (d_h - lambda) + f n_h lambda, a_h the pages the
-- policy gives host h, d_h its HQ density. The variance of Y_b = Y + sum_h (w_hb - 1)
-- psi_h is sum_h psi_h^2, and the ratio to uniform breadth's, R = Y / Y_uniform, moves
-- by (psi_h - R psi_h[uniform]) / Y_uniform. Uniform breadth, HC depth and the oracle;
-- sample_then_deepen's slope needs its jagged curve smoothed first (not yet).

with

depth_hosts as (
    select * from {{ ref('int_depth_policy_hosts') }}
),

depth_policy_yields as (
    select * from {{ ref('int_depth_policy_yields') }}
),

dataset_signals as (
    select * from {{ ref('int_dataset_signals') }}
),

-- each dataset × signal × budget's yields, levels and slopes, a column per policy
budget_slopes as (
    select
        dataset_signals.dataset_id,
        dataset_signals.classifier_id,
        depth_policy_yields.dataset,
        depth_policy_yields.classifier,
        depth_policy_yields.budget_share,
        {%- for policy in ['uniform_breadth', 'hc_depth', 'oracle'] %}
            max(depth_policy_yields.hq_expected) filter (
                where depth_policy_yields.policy = '{{ policy }}'
            ) as {{ policy }}_hq_expected,
            max(depth_policy_yields.fill_level) filter (
                where depth_policy_yields.policy = '{{ policy }}'
            ) as {{ policy }}_level,
            max(depth_policy_yields.marginal_hq_density) filter (
                where depth_policy_yields.policy = '{{ policy }}'
            ) as {{ policy }}_slope{% if not loop.last %},{% endif %}
        {%- endfor %}

    from depth_policy_yields
    inner join dataset_signals
        on
            depth_policy_yields.dataset = dataset_signals.dataset
            and depth_policy_yields.classifier = dataset_signals.classifier
    where depth_policy_yields.policy != 'sample_then_deepen'
    group by all
),

-- psi_h of each policy at each budget; the oracle gives the hosts denser than the level
-- it ends in whole, and a host of that level adds d_h - lambda = 0 per page
host_influences as (
    select
        budget_slopes.dataset,
        budget_slopes.classifier,
        budget_slopes.budget_share,
        budget_slopes.uniform_breadth_hq_expected,
        budget_slopes.hc_depth_hq_expected,
        budget_slopes.oracle_hq_expected,
        least(depth_hosts.page_count, budget_slopes.uniform_breadth_level)
        * (
            depth_hosts.hq_page_count / depth_hosts.page_count
            - budget_slopes.uniform_breadth_slope
        )
        + budget_slopes.budget_share * depth_hosts.page_count
        * budget_slopes.uniform_breadth_slope as uniform_breadth_influence,
        least(
            depth_hosts.page_count, budget_slopes.hc_depth_level * depth_hosts.hc_weight
        )
        * (
            depth_hosts.hq_page_count / depth_hosts.page_count
            - budget_slopes.hc_depth_slope
        )
        + budget_slopes.budget_share * depth_hosts.page_count
        * budget_slopes.hc_depth_slope as hc_depth_influence,
        case
            when
                depth_hosts.hq_page_count / depth_hosts.page_count
                > budget_slopes.oracle_slope
                then
                    depth_hosts.page_count
                    * (
                        depth_hosts.hq_page_count / depth_hosts.page_count
                        - budget_slopes.oracle_slope
                    )
            else 0
        end
        + budget_slopes.budget_share * depth_hosts.page_count
        * budget_slopes.oracle_slope as oracle_influence

    from depth_hosts
    inner join budget_slopes
        on
            depth_hosts.dataset_id = budget_slopes.dataset_id
            and depth_hosts.classifier_id = budget_slopes.classifier_id
),

budget_variances as (
    select
        host_influences.dataset,
        host_influences.classifier,
        host_influences.budget_share,
        {%- for policy in ['uniform_breadth', 'hc_depth', 'oracle'] %}
            sum(power(host_influences.{{ policy }}_influence, 2))
                as {{ policy }}_hq_expected_variance,
            -- R moves by (psi - R psi[uniform]) / Y_uniform: summed as squares,
            -- never below 0 (at budget 1 every policy is uniform breadth: R = 1, psi
            -- the same)
            sum(power(
                (
                    host_influences.{{ policy }}_influence
                    - host_influences.{{ policy }}_hq_expected
                    / nullif(host_influences.uniform_breadth_hq_expected, 0)
                    * host_influences.uniform_breadth_influence
                ) / nullif(host_influences.uniform_breadth_hq_expected, 0),
                2
            )) as {{ policy }}_ratio_variance{% if not loop.last %},{% endif %}
        {%- endfor %}

    from host_influences
    group by all
),

depth_policy_variances as (
    {%- for policy in ['uniform_breadth', 'hc_depth', 'oracle'] %}
        select
            budget_variances.dataset,
            budget_variances.classifier,
            '{{ policy }}' as policy,
            budget_variances.budget_share,
            budget_variances.{{ policy }}_hq_expected_variance as hq_expected_variance,
            budget_variances.{{ policy }}_ratio_variance as ratio_vs_uniform_variance
        from budget_variances
        {% if not loop.last %}union all{% endif %}
    {%- endfor %}
)

select * from depth_policy_variances
