{%- set sample_size = var('depth_sample_size') %}

-- Sample-then-deepen's first phase (docs/definitions.md A6), per sample seed: the first
-- k sampled pages of every host of the depth universe and their actual HQ pages, and
-- what is left to deepen. What the policy's yields
-- (int_depth_policy_sample_then_deepen) and its bootstrap
-- (int_depth_policy_deepening_places) read.

with

host_samples as (
    select * from {{ ref('int_host_samples') }}
),

depth_hosts as (
    select * from {{ ref('int_depth_policy_hosts') }}
),

sampled as (
    select
        host_samples.dataset_id,
        host_samples.classifier_id,
        host_samples.sample_seed,
        host_samples.host_id,
        host_samples.page_count,
        host_samples.hq_page_count,
        least(host_samples.page_count, {{ sample_size }}) as sample_page_count,
        bit_count(
            host_samples.hq_sample_mask
            & ((1::bigint << least(host_samples.page_count, {{ sample_size }})) - 1)
        ) as sample_hq_page_count,
        host_samples.depth_sample_score_mean,
        depth_hosts.tie_breaker

    from host_samples
    inner join depth_hosts
        on
            host_samples.dataset_id = depth_hosts.dataset_id
            and host_samples.classifier_id = depth_hosts.classifier_id
            and host_samples.host_id = depth_hosts.host_id
),

-- A host's HQ pages left are its expected HQ there: pages left times the density of
-- the pages left.
sampled_hosts as (
    select
        sampled.*,
        sampled.page_count - sampled.sample_page_count as pages_left,
        sampled.hq_page_count - sampled.sample_hq_page_count as hq_pages_left,
        sampled.sample_hq_page_count / sampled.sample_page_count as sample_hq_density

    from sampled
)

select * from sampled_hosts
