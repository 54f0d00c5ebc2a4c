{%- set policies = ['uniform_breadth', 'hc_depth', 'oracle', 'sample_then_deepen'] %}
{%- set seeds = range(1, (var('sample_seeds') | int) + 1) %}
{%- set charged = 1 if var('depth_sample_is_charged') else 0 %}
{%- set sample_size = var('depth_sample_size') | int %}
{%- set sampled = 'least(depth_hosts.page_count, ' ~ sample_size ~ ')' %}
{%- set pages_left = '(depth_hosts.page_count - ' ~ sampled ~ ')' %}

-- The depth policies' bootstrap variances over hosts (docs/definitions.md B, "Depth
-- policies at a budget"): with host h weighted w_h the budget is f sum w n and each
-- policy's allocation moves; to first order (the envelope theorem: a page moved within
-- the allocation is worth the curve's slope lambda wherever it goes) the yield's
-- derivative in w_h is psi_h = a_h (d_h - lambda) + f n_h lambda, a_h the pages the
-- policy gives host h, d_h its HQ density. The variance of Y_b = Y + sum_h (w_hb - 1)
-- psi_h is sum_h psi_h^2, and the ratio to uniform breadth's, R = Y / Y_uniform, moves
-- by (psi_h - R psi_h[uniform]) / Y_uniform. Sample-then-deepen's yield is its seeds'
-- mean: psi_h the mean of each seed's shq_h + phi_h (y_h - lambda r_h) + lambda (f n_h
-- - [charged] s_h) (s_h sampled pages, shq_h HQ among them, r_h and y_h the pages and
-- HQ left, phi_h the share of them deepened), lambda the density of the hosts within
-- the boundary's movement in the seed's deepening order (one host's would be the slope
-- of a single step of a jagged curve).

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

-- read by the boundaries, their windows and the hosts: held once
deepening_places as {{ materialized() }} (
    select * from {{ ref('int_depth_policy_deepening_places') }}
),

----------------------------------------------------------- sample-then-deepen's slopes
-- the universe's sums of the boundary's movement (the same for every seed)
universe_sums as (
    select
        depth_hosts.dataset_id,
        depth_hosts.classifier_id,
        sum(depth_hosts.page_count * depth_hosts.page_count) as page_squares,
        sum(depth_hosts.page_count * {{ sampled }}) as page_sample_products,
        sum(power({{ sampled }}, 2)) as sample_squares,
        sum({{ pages_left }}) as pages_left

    from depth_hosts
    group by all
),

-- each seed's deepening budget D at each feasible budget share
deepening_budgets as (
    select
        dataset_signals.dataset_id,
        dataset_signals.classifier_id,
        depth_policy_yields.sample_seed,
        depth_policy_yields.budget_share,
        depth_policy_yields.budget_pages
        - {{ charged }} * depth_policy_yields.sample_page_count as deepening_pages,
        universe_sums.page_squares,
        universe_sums.page_sample_products,
        universe_sums.sample_squares,
        universe_sums.pages_left

    from depth_policy_yields
    inner join dataset_signals
        on
            depth_policy_yields.dataset = dataset_signals.dataset
            and depth_policy_yields.classifier = dataset_signals.classifier
    inner join universe_sums
        on
            dataset_signals.dataset_id = universe_sums.dataset_id
            and dataset_signals.classifier_id = universe_sums.classifier_id
    where
        depth_policy_yields.policy = 'sample_then_deepen'
        and depth_policy_yields.hq_expected is not null
),

-- The boundary host, the last starting before D (the first when D is 0: pages left
-- are whole, so only the first host starts before half a page), and the spread of
-- the boundary's movement.
deepening_boundaries as (
    select
        deepening_budgets.dataset_id,
        deepening_budgets.classifier_id,
        deepening_budgets.sample_seed,
        deepening_budgets.budget_share,
        deepening_budgets.deepening_pages,
        deepening_budgets.pages_left,
        deepening_places.pages_before as boundary_start,
        sqrt(greatest(
            deepening_places.left_squares_up_to
            + 2 * {{ charged }} * deepening_places.left_sample_products_up_to
            - 2 * deepening_budgets.budget_share
            * deepening_places.left_page_products_up_to
            + power(deepening_budgets.budget_share, 2) * deepening_budgets.page_squares
            - 2 * {{ charged }} * deepening_budgets.budget_share
            * deepening_budgets.page_sample_products
            + {{ charged }} * deepening_budgets.sample_squares,
            0
        )) as movement_sd

    from deepening_budgets
    {{ asof_join(
        'left', 'deepening_places', 'deepening_places', 'deepening_budgets',
        ['dataset_id', 'classifier_id', 'sample_seed'],
        'greatest(deepening_budgets.deepening_pages, 0.5)', 'pages_before'
    ) }}
),

-- the HQ density of the pages left on the hosts starting within the movement
boundary_windows as (
    select
        deepening_boundaries.dataset_id,
        deepening_boundaries.classifier_id,
        deepening_boundaries.sample_seed,
        deepening_boundaries.budget_share,
        deepening_boundaries.deepening_pages,
        deepening_boundaries.pages_left,
        sum(deepening_places.hq_pages_left)::double
        / sum(deepening_places.pages_left) as window_density

    from deepening_boundaries
    left join deepening_places
        on
            deepening_boundaries.dataset_id = deepening_places.dataset_id
            and deepening_boundaries.classifier_id = deepening_places.classifier_id
            and deepening_boundaries.sample_seed = deepening_places.sample_seed
            and deepening_places.pages_before
            between deepening_boundaries.boundary_start
            - deepening_boundaries.movement_sd
            and deepening_boundaries.boundary_start
            + deepening_boundaries.movement_sd
    group by all
),

-- each seed's D and slope (0 once D reaches every page left), a column per seed
deepening_slopes as (
    select
        boundary_windows.dataset_id,
        boundary_windows.classifier_id,
        boundary_windows.budget_share,
        {%- for seed in seeds %}
            max(boundary_windows.deepening_pages) filter (
                where boundary_windows.sample_seed = {{ seed }}
            ) as deepening_pages_{{ seed }},
            max(
                case
                    when boundary_windows.deepening_pages >= boundary_windows.pages_left
                        then 0
                    else boundary_windows.window_density
                end
            ) filter (
                where boundary_windows.sample_seed = {{ seed }}
            ) as slope_{{ seed }}{% if not loop.last %},{% endif %}
        {%- endfor %}

    from boundary_windows
    group by all
),

-- each host's place and sample in each seed (none for hosts with no page left)
host_seed_places as (
    select
        deepening_places.dataset_id,
        deepening_places.classifier_id,
        deepening_places.host_id,
        {%- for seed in seeds %}
            max(deepening_places.pages_before) filter (
                where deepening_places.sample_seed = {{ seed }}
            ) as pages_before_{{ seed }},
            max(deepening_places.sample_hq_page_count) filter (
                where deepening_places.sample_seed = {{ seed }}
            ) as sample_hq_page_count_{{ seed }}{% if not loop.last %},{% endif %}
        {%- endfor %}

    from deepening_places
    group by all
),

-- each dataset × signal × budget's yields, levels and slopes, a column per policy
budget_slopes as (
    select
        dataset_signals.dataset_id,
        dataset_signals.classifier_id,
        depth_policy_yields.dataset,
        depth_policy_yields.classifier,
        depth_policy_yields.budget_share,
        avg(depth_policy_yields.hq_expected) filter (
            where depth_policy_yields.policy = 'sample_then_deepen'
        ) as sample_then_deepen_hq_expected,
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
        budget_slopes.sample_then_deepen_hq_expected,
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
        * budget_slopes.oracle_slope as oracle_influence,
        -- a host with no page left was sampled whole: its sample's HQ are its HQ
        (
            {%- for seed in seeds %}
                coalesce(
                    host_seed_places.sample_hq_page_count_{{ seed }},
                    depth_hosts.hq_page_count
                )
                + coalesce(
                    least(greatest(
                        (
                            deepening_slopes.deepening_pages_{{ seed }}
                            - host_seed_places.pages_before_{{ seed }}
                        ) / nullif({{ pages_left }}, 0),
                        0
                    ), 1)
                    * (
                        depth_hosts.hq_page_count
                        - host_seed_places.sample_hq_page_count_{{ seed }}
                        - deepening_slopes.slope_{{ seed }} * {{ pages_left }}
                    ),
                    0
                )
                + deepening_slopes.slope_{{ seed }} * (
                    budget_slopes.budget_share * depth_hosts.page_count
                    - {{ charged }} * {{ sampled }}
                ){% if not loop.last %} +{% endif %}
            {%- endfor %}
        ) / {{ seeds | length }} as sample_then_deepen_influence

    from depth_hosts
    inner join budget_slopes
        on
            depth_hosts.dataset_id = budget_slopes.dataset_id
            and depth_hosts.classifier_id = budget_slopes.classifier_id
    left join host_seed_places
        on
            depth_hosts.dataset_id = host_seed_places.dataset_id
            and depth_hosts.classifier_id = host_seed_places.classifier_id
            and depth_hosts.host_id = host_seed_places.host_id
    left join deepening_slopes
        on
            budget_slopes.dataset_id = deepening_slopes.dataset_id
            and budget_slopes.classifier_id = deepening_slopes.classifier_id
            and budget_slopes.budget_share = deepening_slopes.budget_share
),

budget_variances as (
    select
        host_influences.dataset,
        host_influences.classifier,
        host_influences.budget_share,
        {%- for policy in policies %}
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
    {%- for policy in policies %}
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
