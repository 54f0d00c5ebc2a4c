{#- docs/definitions.md §5 #10: the weight of HC depth -#}
{%- if var('hc_depth_weight') == 'log_hc_val' %}
    {%- set hc_weight = 'ln(dataset_hosts.hc_val)' %}
{%- else %}
    {%- set hc_weight = 'dataset_hosts.hc_val' %}
{%- endif %}

-- The depth policies' universe (docs/definitions.md A6): hosts with their
-- already-fetched pages. Enough of them to be a host of the analyses
-- (min_docs_per_host) and a positive, finite weight for HC depth (`hc_depth_weight`; a
-- ranks file may hold NaN, which DuckDB orders above any number).

with

host_samples as (
    select * from {{ ref('int_host_samples') }}
),

dataset_hosts as (
    select * from {{ ref('int_dataset_hosts') }}
),

depth_hosts as (
    select
        host_samples.dataset_id,
        host_samples.classifier_id,
        host_samples.host_id,
        host_samples.page_count,
        host_samples.hq_page_count,
        {{ hc_weight }} as hc_weight,
        dataset_hosts.tie_breaker

    from host_samples
    inner join dataset_hosts
        on
            host_samples.dataset_id = dataset_hosts.dataset_id
            and host_samples.host_id = dataset_hosts.host_id
    where
        host_samples.sample_seed = 1  -- page and HQ counts are the same for every seed
        and host_samples.page_count >= {{ var('min_docs_per_host') }}
        and {{ hc_weight }} > 0
        and {{ is_finite(hc_weight) }}
)

select * from depth_hosts
