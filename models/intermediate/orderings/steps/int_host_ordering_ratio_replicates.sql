{#- the orderings compared with random, by their policy names
    (seeds/crawl_policies.csv) -#}
{%- set ordered_policies = ['hc', 'pr', 'cc_coverage', 'oracle'] %}

-- Each ordering's HQ collected and its ratio to random at each budget in each
-- bootstrap replicate, to first order (docs/definitions.md B, "Yields at a budget").
-- With host h weighted w_h the budget is f sum w p and the boundary moves: the
-- yield's derivative in w_h is psi_h = [h before the boundary] (HQ_h - p_h d) + f p_h
-- d, d the curve's slope at the boundary (int_host_ordering_boundary_slopes), and Y_b
-- = Y + sum_h (w_hb - 1) psi_h. Random collects f of all HQ pages in expectation:
-- random_b is the sample's random mean times sum w HQ / sum HQ.

with

host_ordering_yields as (
    select * from {{ ref('int_host_ordering_yields') }}
),

host_places as (
    select * from {{ ref('int_host_ordering_places') }}
),

host_universe as (
    select * from {{ ref('int_host_universe') }}
),

boundaries as (
    select * from {{ ref('int_host_ordering_boundary_slopes') }}
),

random_means as (
    select
        host_ordering_yields.classifier,
        host_ordering_yields.budget_share,
        avg(host_ordering_yields.hq_collected) as random_hq_collected
    from host_ordering_yields
    where host_ordering_yields.policy = 'random'
    group by all
),

-- Each host's segment in each order: the boundaries at or before it.
host_segments as (
    select
        host_places.classifier_id,
        host_places.host_id,
        any_value(host_places.page_count)::integer as page_count,
        any_value(host_places.hq_page_count)::integer as hq_page_count,
        {%- for policy in ordered_policies %}
            -- small integers: the grouping sets hold every weighted row
            (count(boundaries.boundary_position) filter (
                where boundaries.policy = '{{ policy }}'
            ))::smallint as {{ policy }}_segment{% if not loop.last %},{% endif %}
        {%- endfor %}

    from host_places
    left join boundaries
        on
            host_places.classifier_id = boundaries.classifier_id
            and host_places.policy_id = boundaries.policy_id
            and host_places.order_position >= boundaries.boundary_position
    group by all
),

host_weights as {{ materialized() }} (
    {{ bootstrap_host_weights('host_universe', 'host_id', 'surt_host_name') }}
),

-- The weighted pages and HQ pages of each segment of each order in each replicate
-- (one pass over the hosts' weights for the four orders).
segment_sums as (
    select
        host_segments.classifier_id,
        host_weights.replicate,
        {%- for policy in ordered_policies %}
            host_segments.{{ policy }}_segment,
        {%- endfor %}
        sum(host_weights.weight * host_segments.page_count) as page_count,
        sum(host_weights.weight * host_segments.hq_page_count) as hq_page_count

    from host_segments
    inner join host_weights
        on host_segments.host_id = host_weights.host_id
    where host_weights.weight > 0
    -- noqa: disable=all
    group by grouping sets (
        {%- for policy in ordered_policies %}
            (
                host_segments.classifier_id,
                host_weights.replicate,
                host_segments.{{ policy }}_segment
            ){% if not loop.last %},{% endif %}
        {%- endfor %}
    )
    -- noqa: enable=all
),

-- one row per order's segment (the grouping set's own segment column is the one set)
policy_segments as (
    {%- for policy in ordered_policies %}
        select
            segment_sums.classifier_id,
            '{{ policy }}' as policy,
            segment_sums.replicate,
            segment_sums.{{ policy }}_segment as segment,
            segment_sums.page_count,
            segment_sums.hq_page_count
        from segment_sums
        where segment_sums.{{ policy }}_segment is not null
        {% if not loop.last %}union all{% endif %}
    {%- endfor %}
),

replicate_totals as (
    select
        policy_segments.classifier_id,
        policy_segments.replicate,
        sum(policy_segments.page_count) as page_count,
        sum(policy_segments.hq_page_count) as hq_page_count
    from policy_segments
    where policy_segments.policy = '{{ ordered_policies[0] }}'
    group by all
),

-- sum_h w_hb psi_h for every boundary in every replicate (a boundary before any host
-- has no segment to sum)
replicate_yields as (
    select
        boundaries.classifier,
        boundaries.policy,
        boundaries.budget_share,
        replicate_totals.replicate,
        any_value(boundaries.hq_collected) as sample_hq_collected,
        coalesce(sum(policy_segments.hq_page_count), 0)
        - any_value(boundaries.slope) * coalesce(sum(policy_segments.page_count), 0)
        + any_value(
            boundaries.budget_share * boundaries.slope * replicate_totals.page_count
        ) as weighted_influence,
        any_value(replicate_totals.hq_page_count) as total_hq_page_count

    from boundaries
    inner join replicate_totals
        on boundaries.classifier_id = replicate_totals.classifier_id
    left join policy_segments
        on
            boundaries.classifier_id = policy_segments.classifier_id
            and boundaries.policy = policy_segments.policy
            and replicate_totals.replicate = policy_segments.replicate
            and boundaries.boundaries_before >= policy_segments.segment
    group by all
),

ordering_ratio_replicates as (
    select
        replicate_yields.classifier,
        replicate_yields.policy,
        replicate_yields.budget_share,
        replicate_yields.replicate,
        replicate_yields.sample_hq_collected + replicate_yields.weighted_influence
        - sample_totals.weighted_influence as hq_collected,
        (
            replicate_yields.sample_hq_collected + replicate_yields.weighted_influence
            - sample_totals.weighted_influence
        )
        / nullif(
            random_means.random_hq_collected * replicate_yields.total_hq_page_count
            / sample_totals.total_hq_page_count,
            0
        ) as hq_ratio_vs_random

    from replicate_yields
    inner join replicate_yields as sample_totals
        on
            replicate_yields.classifier = sample_totals.classifier
            and replicate_yields.policy = sample_totals.policy
            and replicate_yields.budget_share = sample_totals.budget_share
            and sample_totals.replicate = 0
    inner join random_means
        on
            replicate_yields.classifier = random_means.classifier
            and replicate_yields.budget_share = random_means.budget_share
)

select * from ordering_ratio_replicates
