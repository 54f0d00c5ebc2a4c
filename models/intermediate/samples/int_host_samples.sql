{#- `| int`: the linter renders var() as the var's name -#}
{%- set seeds = range(1, (var('sample_seeds') | int) + 1) %}
{#- the sampled positions whose HQ flags are kept: every k of docs/definitions.md A5
    and A6 -#}
{%- set mask_positions = [var('sample_size_max') | int, var('depth_sample_size') | int]
    | max %}
{%- if mask_positions > 62 %}
    {{ exceptions.raise_compiler_error(
        "sample_size_max and depth_sample_size must be at most 62 (a 64-bit mask of positions)"
    ) }}
{%- endif %}

-- Per RQ3 signal × sample seed × host (docs/definitions.md A5, A6): which of the first
-- sampled pages are HQ, as a bit mask, and the mean score of sample_then_deepen's
-- sample, from each page's sample positions (int_host_sample_pages).

with

signal_pages_positioned as (
    select * from {{ ref('int_host_sample_pages') }}
),

partly_scored_hosts as (
    select * from {{ ref('int_partly_scored_hosts') }}
),

-- Per host, for each seed: which of its first sampled pages are high quality (bit j - 1
-- of the mask for the j-th page), and the mean score of sample_then_deepen's sample,
-- summed as decimals (15 places): exact, so that equal means tie whatever order threads
-- add them in (the md5 of the host then decides).
hosts_sampled_by_seed as (
    select
        signal_pages_positioned.dataset_id,
        signal_pages_positioned.classifier_id,
        signal_pages_positioned.host_id,
        signal_pages_positioned.is_renumbered,
        count(*) as page_count,
        count(*) filter (where signal_pages_positioned.is_hq) as hq_page_count,
        {% call list_of() %}
        {%- for seed in seeds %}
                {%- set position = list_element(
                    'signal_pages_positioned.sample_positions', seed
                ) %}
                coalesce(
                    -- a case, not a filter: the shift must not see the later positions
                    bit_or(
                        case
                            when
                                signal_pages_positioned.is_hq
                                and {{ position }}
                                <= {{ mask_positions }}
                                then
                                    1::bigint << (
                                        {{ position }}
                                        - 1
                                    )
                        end
                    ),
                    0
                ){{ ',' if not loop.last }}
        {%- endfor %}
        {% endcall %} as hq_sample_masks,
        {% call list_of() %}
        {%- for seed in seeds %}
                {%- set position = list_element(
                    'signal_pages_positioned.sample_positions', seed
                ) %}
                avg(signal_pages_positioned.score::decimal(38, 15)) filter (
                    where
                    {{ position }}
                    <= {{ var('depth_sample_size') }}
                )::double{{ ',' if not loop.last }}
        {%- endfor %}
        {% endcall %} as depth_sample_score_means

    from signal_pages_positioned
    group by all
),

-- A partly scored host's first aggregate (positions among all its pages) gives
-- way to the renumbered one.
hosts_sampled_by_seed_kept as (
    select hosts_sampled_by_seed.*
    from hosts_sampled_by_seed
    where hosts_sampled_by_seed.is_renumbered
    union all
    select hosts_sampled_by_seed.*
    from hosts_sampled_by_seed
    anti join partly_scored_hosts
        on
            hosts_sampled_by_seed.dataset_id = partly_scored_hosts.dataset_id
            and hosts_sampled_by_seed.classifier_id = partly_scored_hosts.classifier_id
            and hosts_sampled_by_seed.host_id = partly_scored_hosts.host_id
    where not hosts_sampled_by_seed.is_renumbered
),

host_samples as (
    select
        ---------- ids
        hosts_sampled_by_seed_kept.dataset_id,
        hosts_sampled_by_seed_kept.classifier_id,
        hosts_sampled_by_seed_kept.host_id,

        ---------- numerics
        hosts_sampled_by_seed_kept.page_count,
        hosts_sampled_by_seed_kept.hq_page_count,
        -- sample_seed, then each seed's mask and sample mean
        {{ unnest_lists({
            'sample_seed': list_literal(seeds),
            'hq_sample_mask': 'hosts_sampled_by_seed_kept.hq_sample_masks',
            'depth_sample_score_mean':
                'hosts_sampled_by_seed_kept.depth_sample_score_means',
        }) }}

    from hosts_sampled_by_seed_kept
)

select * from host_samples
