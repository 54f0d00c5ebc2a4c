-- Each pair's influence on its group's Spearman rho (docs/definitions.md B, "Rank
-- statistics"): the derivative of rho with respect to the host's bootstrap weight at
-- the sample, psi_h = (G_h - C_ab (F_h / C_aa + H_h / C_bb) / 2) / sqrt(C_aa C_bb),
-- where a, b are the mid-ranks less 1/2 of x (centrality) and y (quality), C their
-- sums of (co)squares about n / 2 and G, F, H the sums' derivatives. A group is a
-- classifier x metric x stratum, n its hosts. Three sorts: by x (a), by y (b, and a
-- summed in y's order), by x again (b summed in x's order); a sum of a rank in its
-- own order is a function of counts (the ranks up to c sum to c^2 / 2). No rows when
-- the intervals are off.

with

centrality_quality_pairs as (
    select * from {{ ref('int_centrality_quality_pairs') }}
    where {{ var('bootstrap_replicates') | int }} > 0
),

-- a = pairs below x_h + half the ties (c_le - t / 2, t the ties with x_h), the same
-- for b
ranked_by_centrality as (
    select
        centrality_quality_pairs.classifier_id,
        centrality_quality_pairs.centrality_metric_id,
        centrality_quality_pairs.stratum_id,
        centrality_quality_pairs.host_id,
        centrality_quality_pairs.centrality_value,
        centrality_quality_pairs.quality_score_median,
        count(*) over up_to as centrality_count_le,
        count(*) over up_to - rank() over up_to + 1 as centrality_ties

    from centrality_quality_pairs
    window up_to as (
        partition by
            centrality_quality_pairs.classifier_id,
            centrality_quality_pairs.centrality_metric_id,
            centrality_quality_pairs.stratum_id
        order by centrality_quality_pairs.centrality_value
    )
),

-- sums of a over y <= y_h and y >= y_h (ties included both ways)
ranked_by_quality as (
    select
        ranked_by_centrality.*,
        ranked_by_centrality.centrality_count_le
        - ranked_by_centrality.centrality_ties / 2 as centrality_rank,
        count(*) over up_to as quality_count_le,
        count(*) over up_to - rank() over up_to + 1 as quality_ties,
        count(*) over pair_group as host_count,
        sum(
            ranked_by_centrality.centrality_count_le
            - ranked_by_centrality.centrality_ties / 2
        ) over up_to as centrality_rank_le,
        sum(
            ranked_by_centrality.centrality_count_le
            - ranked_by_centrality.centrality_ties / 2
        ) over from_here as centrality_rank_ge

    from ranked_by_centrality
    -- (each window spelled out: Spark's windows cannot extend another)
    window
        pair_group as (
            partition by
                ranked_by_centrality.classifier_id,
                ranked_by_centrality.centrality_metric_id,
                ranked_by_centrality.stratum_id
        ),
        up_to as (
            partition by
                ranked_by_centrality.classifier_id,
                ranked_by_centrality.centrality_metric_id,
                ranked_by_centrality.stratum_id
            order by ranked_by_centrality.quality_score_median
        ),
        from_here as (
            partition by
                ranked_by_centrality.classifier_id,
                ranked_by_centrality.centrality_metric_id,
                ranked_by_centrality.stratum_id
            order by ranked_by_centrality.quality_score_median
            range between current row and unbounded following
        )
),

-- sums of b over x <= x_h and x >= x_h
summed_by_centrality as (
    select
        ranked_by_quality.*,
        ranked_by_quality.quality_count_le
        - ranked_by_quality.quality_ties / 2 as quality_rank,
        sum(
            ranked_by_quality.quality_count_le - ranked_by_quality.quality_ties / 2
        ) over up_to as quality_rank_le,
        sum(
            ranked_by_quality.quality_count_le - ranked_by_quality.quality_ties / 2
        ) over from_here as quality_rank_ge

    from ranked_by_quality
    window
        up_to as (
            partition by
                ranked_by_quality.classifier_id,
                ranked_by_quality.centrality_metric_id,
                ranked_by_quality.stratum_id
            order by ranked_by_quality.centrality_value
        ),
        from_here as (
            partition by
                ranked_by_quality.classifier_id,
                ranked_by_quality.centrality_metric_id,
                ranked_by_quality.stratum_id
            order by ranked_by_quality.centrality_value
            range between current row and unbounded following
        )
),

-- sum_i K(x_h, x_i) v_i (K(s, t) = 1 if s < t, 1/2 if s = t) is (sum over x >= x_h -
-- sum over x <= x_h) / 2 + n^2 / 4 (either rank sums to n^2 / 2); for v = a itself,
-- n^2 / 2 - c_le^2 / 2 + t a_h / 2.
pairs_terms as (
    select
        summed_by_centrality.classifier_id,
        summed_by_centrality.centrality_metric_id,
        summed_by_centrality.stratum_id,
        summed_by_centrality.host_id,
        summed_by_centrality.host_count,
        summed_by_centrality.centrality_rank,
        summed_by_centrality.quality_rank,
        summed_by_centrality.centrality_rank * summed_by_centrality.quality_rank
        + (
            summed_by_centrality.quality_rank_ge - summed_by_centrality.quality_rank_le
        ) / 2
        + (
            summed_by_centrality.centrality_rank_ge
            - summed_by_centrality.centrality_rank_le
        ) / 2
        - power(summed_by_centrality.host_count, 2) / 4 as cross_term,
        {%- for side in ['centrality', 'quality'] %}
            power(summed_by_centrality.{{ side }}_rank, 2)
            + power(summed_by_centrality.host_count, 2)
            - power(summed_by_centrality.{{ side }}_count_le, 2)
            + summed_by_centrality.{{ side }}_ties
            * summed_by_centrality.{{ side }}_rank
            - 3 * power(summed_by_centrality.host_count, 2) / 4 as {{ side }}_term
            {%- if not loop.last %},{% endif %}
        {%- endfor %}

    from summed_by_centrality
),

-- C_aa = sum a^2 - n^3 / 4 (and so on): the ranks' sums of squares about their mean n
-- / 2
group_moments as (
    select
        pairs_terms.classifier_id,
        pairs_terms.centrality_metric_id,
        pairs_terms.stratum_id,
        sum(power(pairs_terms.centrality_rank, 2))
        - power(any_value(pairs_terms.host_count), 3) / 4 as centrality_moment,
        sum(power(pairs_terms.quality_rank, 2))
        - power(any_value(pairs_terms.host_count), 3) / 4 as quality_moment,
        sum(pairs_terms.centrality_rank * pairs_terms.quality_rank)
        - power(any_value(pairs_terms.host_count), 3) / 4 as cross_moment

    from pairs_terms
    group by all
),

pairs_influence as (
    select
        pairs_terms.classifier_id,
        pairs_terms.centrality_metric_id,
        pairs_terms.stratum_id,
        pairs_terms.host_id,
        (
            pairs_terms.cross_term
            - group_moments.cross_moment / 2 * (
                pairs_terms.centrality_term / group_moments.centrality_moment
                + pairs_terms.quality_term / group_moments.quality_moment
            )
        )
        / sqrt(group_moments.centrality_moment * group_moments.quality_moment)
            as influence

    from pairs_terms
    inner join group_moments
        on
            pairs_terms.classifier_id = group_moments.classifier_id
            and pairs_terms.centrality_metric_id = group_moments.centrality_metric_id
            and pairs_terms.stratum_id = group_moments.stratum_id
    -- rho is undefined where either variable is constant in the group
    where group_moments.centrality_moment > 0 and group_moments.quality_moment > 0
)

select * from pairs_influence
