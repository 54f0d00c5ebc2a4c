{#- host_samples(pages): the rows of int_host_samples (docs/definitions.md A5, A6) from
    a relation of positioned pages — dataset_id, classifier_id, host_id, score, is_hq
    and sample_position_<s> for every seed s (1 for the host's first sampled page). Per
    signal × host × seed: the host's pages and HQ pages, which of its first sampled pages
    are HQ (bit j - 1 of the mask for the j-th, for j up to the larger of
    `sample_size_max` and `depth_sample_size`) and the mean score of sample_then_deepen's
    sample, summed as decimals (15 places): exact, so that equal means tie whatever order
    threads add them in (the md5 of the host then decides). A parenthesised query. -#}
-- the linter measures a call block's indent inside a macro from the macro's own column
-- noqa: disable=LT02
{% macro host_samples(pages) -%}
    {#- `| int`: the linter renders var() as the var's name -#}
    {%- set seeds = range(1, (var('sample_seeds') | int) + 1) %}
    {%- set mask_positions = [
        var('sample_size_max') | int, var('depth_sample_size') | int
    ] | max %}
    {%- if mask_positions > 62 %}
        {{ exceptions.raise_compiler_error(
            "sample_size_max and depth_sample_size must be at most 62 (a 64-bit mask)"
        ) }}
    {%- endif %}
    (
        with

        hosts_sampled_by_seed as (
            select
                {{ pages }}.dataset_id,
                {{ pages }}.classifier_id,
                {{ pages }}.host_id,
                count(*) as page_count,
                count(*) filter (where {{ pages }}.is_hq) as hq_page_count,
                {% call list_of() %}
                {%- for seed in seeds %}
                    {%- set position = pages ~ '.sample_position_' ~ seed %}
                        coalesce(
                            -- a case, not a filter: the shift must not see later positions
                            bit_or(
                                case
                                    when
                                        {{ pages }}.is_hq
                                        and {{ position }} <= {{ mask_positions }}
                                        then 1::bigint << ({{ position }} - 1)
                                end
                            ),
                            0
                        ){{ ',' if not loop.last }}
                {%- endfor %}
                {% endcall %} as hq_sample_masks,
                {% call list_of() %}
                {%- for seed in seeds %}
                        avg({{ pages }}.score::decimal(38, 15)) filter (
                            where
                            {{ pages }}.sample_position_{{ seed }}
                            <= {{ var('depth_sample_size') }}
                        )::double{{ ',' if not loop.last }}
                {%- endfor %}
                {% endcall %} as depth_sample_score_means

            from {{ pages }}
            group by all
        )

        select
            ---------- ids
            hosts_sampled_by_seed.dataset_id,
            hosts_sampled_by_seed.classifier_id,
            hosts_sampled_by_seed.host_id,

            ---------- numerics
            hosts_sampled_by_seed.page_count,
            hosts_sampled_by_seed.hq_page_count,
            -- sample_seed, then each seed's mask and sample mean
            {{ unnest_lists({
                'sample_seed': list_literal(seeds),
                'hq_sample_mask': 'hosts_sampled_by_seed.hq_sample_masks',
                'depth_sample_score_mean': 'hosts_sampled_by_seed.depth_sample_score_means',
            }) }}

        from hosts_sampled_by_seed
    )
{%- endmacro %}
-- noqa: enable=LT02

{#- sample_keys(page_id): a page's sample key for every seed s,
    md5(page_id || ':' || s) as a number (docs/definitions.md §4.0), as columns
    sample_key_<s>, each followed by a comma. sample_positions(keyed): from a relation
    with host_id and those keys, each page's place in its host's sample for every seed
    (1 is sampled first), as sample_position_<s>, each followed by a comma. Keys as
    columns before the windows: a window's sort carries its input's columns, which would
    hold the long page ids to hash for the next one. -#}
{% macro sample_keys(page_id) -%}
    {#- `| int`: the linter renders var() as the var's name -#}
    {%- for seed in range(1, (var('sample_seeds') | int) + 1) %}
        {{ md5_number(page_id ~ " || ':" ~ seed ~ "'") }} as sample_key_{{ seed }},
    {%- endfor %}
{%- endmacro %}

{% macro sample_positions(keyed) -%}
    {%- for seed in range(1, (var('sample_seeds') | int) + 1) %}
        row_number() over (
            partition by {{ keyed }}.host_id
            order by {{ keyed }}.sample_key_{{ seed }}
        )::integer as sample_position_{{ seed }},
    {%- endfor %}
{%- endmacro %}

{# k_sample_densities(rows, carried): a subquery over `rows` (one per host, or per shape
   of hosts alike, and seed: page_count, hq_page_count, hq_sample_mask and the `carried`
   columns) with a row per k (1 .. `sample_size_max`) and host set it belongs to
   (docs/definitions.md A5: `variable`, a page left after the first k; `fixed`, enough
   pages for every k): the carried columns, host_set_id, sample_size, sample_density (the
   first k sampled pages' HQ share) and remaining_density (the pages left's). The k-sample
   correlations' pairs and their bootstrap's hosts both come from it, so a host's
   densities are the same doubles in both. #}
{% macro k_sample_densities(rows, carried) -%}
    (
        with

        host_sets as (
            select * from {{ ref('int_sample_host_sets') }}
        ),

        sample_sizes as (
            select
                {{ unnest_values(range(1, (var('sample_size_max') | int) + 1), 'integer') }}
                    as sample_size
        ),

        sample_hq as (
            select
                {{ rows }}.{{ carried | join(', ' ~ rows ~ '.') }},
                host_sets.host_set_id,
                sample_sizes.sample_size,
                bit_count(
                    {{ rows }}.hq_sample_mask
                    & ((1::bigint << sample_sizes.sample_size) - 1)
                ) as sample_hq_page_count,
                {{ rows }}.page_count,
                {{ rows }}.hq_page_count

            from {{ rows }}
            cross join sample_sizes
            inner join host_sets
                on
                    (
                        host_sets.host_set = 'variable'
                        and {{ rows }}.page_count >= sample_sizes.sample_size + 1
                    )
                    or (
                        -- a page left after every sample, whatever the vars
                        host_sets.host_set = 'fixed'
                        and {{ rows }}.page_count >= greatest(
                            {{ var('fixed_host_set_min_pages') }},
                            {{ var('sample_size_max') }} + 1
                        )
                    )
        )

        select
            sample_hq.{{ carried | join(', sample_hq.') }},
            sample_hq.host_set_id,
            sample_hq.sample_size,
            sample_hq.sample_hq_page_count / sample_hq.sample_size as sample_density,
            (sample_hq.hq_page_count - sample_hq.sample_hq_page_count)
            / (sample_hq.page_count - sample_hq.sample_size) as remaining_density
        from sample_hq
    )
{%- endmacro %}
