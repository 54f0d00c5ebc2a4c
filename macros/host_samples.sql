{#- host_samples(pages): the rows of int_host_samples (docs/definitions.md A5, A6) from
    a relation of keyed pages — dataset_id, classifier_id, host_id, score, is_hq and
    sample_key_<s> for every seed s (macro sample_keys), one row per page a signal scored.
    A host's sample for seed s is its pages in order of sample_key_<s>. Per signal × host ×
    seed: the host's pages and HQ pages, which of its first sampled pages are HQ (bit
    j - 1 of the mask for the j-th, for j up to the larger of `sample_size_max` and
    `depth_sample_size`) and the mean score of sample_then_deepen's sample, summed as
    decimals (15 places): exact, so that equal means tie whatever order threads add them
    in (the md5 of the host then decides).

    Only a host's first pages in each order count, so only they are sorted: for each seed,
    the pages whose key's leading 16 bits (order_block) fall below
    ceil(`sample_candidate_pages` × 65,536 / the host's pages), its candidates: about that
    many pages of a large host (64 by default), every page of a small one. A page left out
    comes after every page kept, so the kept pages' order starts the host's own unless
    fewer than its first pages were kept (about 4e-11 per host and seed at 64 candidates
    and 20 first pages): those host × seeds are sampled again from all their pages (on
    DuckDB a pass that is skipped when there are none). Sorting every page of every host
    in five orders passed the 8 GB spill cap at 200M pages (docs/performance.md). Each
    seed's summaries meet the host counts on their own (the summaries of all five seeds in
    one join, beside the five held, passed the cap at 400M).
    Positions stay out of any `where`: DuckDB would turn the windows into a top-n aggregate
    per host, which holds every host's first pages at once. `pages` is read once per seed
    and twice more: the caller holds it or marks it not_materialized. A parenthesised
    query. -#}
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
    {%- if (var('sample_candidate_pages') | int) < 1 %}
        {{ exceptions.raise_compiler_error(
            "sample_candidate_pages must be at least 1"
        ) }}
    {%- endif %}
    {%- set ids = ['dataset_id', 'classifier_id', 'host_id'] %}
    (
        with

        -- Per signal × host: its pages, HQ pages and the order blocks its candidates
        -- fall below.
        host_pages as {{ materialized() }} (
            select
                {{ qualified_columns(pages, ids) }},
                count(*) as page_count,
                count(*) filter (where {{ pages }}.is_hq) as hq_page_count,
                {{ int_div(
                    '(' ~ var('sample_candidate_pages') ~ ' * 65536 + count(*) - 1)',
                    'count(*)'
                ) }} as candidate_blocks
            from {{ pages }}
            group by all
        ),

        -- Each seed's candidates in its order, and per host their summary. One seed at
        -- a time (macro after): each seed's pages wait for the previous seed's summary,
        -- so that one window holds memory at a time; DuckDB otherwise runs the five
        -- windows at once, past the 8 GB spill cap at 200M pages.
        {%- for seed in seeds %}
        candidates_positioned_{{ seed }} as (
            select
                {{ qualified_columns('seed_pages', ids) }},
                {{ seed }} as sample_seed,
                seed_pages.score,
                seed_pages.is_hq,
                {{ sample_position('seed_pages', ids) }}
            from (
                select
                    {{ qualified_columns(pages, ids) }},
                    {{ pages }}.score,
                    {{ pages }}.is_hq,
                    {{ pages }}.sample_key_{{ seed }} as sample_key,
                    host_pages.candidate_blocks
                from {{ pages }}
                inner join host_pages
                    on {{ columns_match(pages, 'host_pages', ids) }}
                {%- if not loop.first %}
                    {{ after('candidate_samples_' ~ (seed - 1)) }}
                {%- endif %}
            ) as seed_pages
            where
                {{ order_block_number('seed_pages.sample_key') }}
                < seed_pages.candidate_blocks
        ),

        {%- set positioned = 'candidates_positioned_' ~ seed %}
        candidate_samples_{{ seed }} as {{ materialized() }}
            {{- first_sampled_summary(positioned, mask_positions) }},
        {%- endfor %}

        -- Per seed, each host's counts beside its candidates' summary and whether they
        -- held the host's first pages (complete; not when it had no candidate at all).
        -- Seed by seed, so that each join's hash table holds one seed's summaries; joined
        -- again at each of its two reads rather than held (5.75M rows a seed at 400M).
        {%- for seed in seeds %}
        counted_samples_{{ seed }} as {{ not_materialized() }} (
            select
                {{ qualified_columns('host_pages', ids) }},
                host_pages.page_count,
                host_pages.hq_page_count,
                {{ seed }} as sample_seed,
                candidates.hq_sample_mask,
                candidates.depth_sample_score_mean,
                coalesce(candidates.first_pages_positioned, 0)
                >= least(host_pages.page_count, {{ mask_positions }}) as is_complete
            from host_pages
            left join candidate_samples_{{ seed }} as candidates
                on {{ columns_match('host_pages', 'candidates', ids) }}
        ),
        {%- endfor %}

        -- The host × seeds whose candidates missed some of the first pages. Held: DuckDB
        -- then knows it small and builds the resample's joins on it, not on the pages.
        short_samples as {{ materialized() }} (
            {%- for seed in seeds %}
                select
                    {{ qualified_columns('counted_samples_' ~ seed, ids) }},
                    counted_samples_{{ seed }}.sample_seed
                from counted_samples_{{ seed }}
                where not counted_samples_{{ seed }}.is_complete
                {{ 'union all' if not loop.last }}
            {%- endfor %}
        ),

        -- Their samples again, from all the host's pages.
        short_pages_positioned as (
            select
                {{ qualified_columns('short_pages', ids) }},
                short_pages.sample_seed,
                short_pages.score,
                short_pages.is_hq,
                {{ sample_position('short_pages', ids + ['sample_seed']) }}
            from (
                select
                    {{ qualified_columns(pages, ids) }},
                    {{ pages }}.score,
                    {{ pages }}.is_hq,
                    {{ unnest_lists({
                        'sample_seed': list_literal(seeds),
                        'sample_key': seed_keys(pages, seeds),
                    }) }}
                from {{ pages }}
                semi join short_samples
                    on {{ columns_match(pages, 'short_samples', ids) }}
            ) as short_pages
            semi join short_samples
                on
                    {{ columns_match('short_pages', 'short_samples', ids) }}
                    and short_pages.sample_seed = short_samples.sample_seed
        ),

        resampled as {{ first_sampled_summary('short_pages_positioned', mask_positions) }}

        {%- for seed in seeds %}
            select
                ---------- ids
                {{ qualified_columns('counted_samples_' ~ seed, ids) }},

                ---------- numerics
                counted_samples_{{ seed }}.page_count,
                counted_samples_{{ seed }}.hq_page_count,
                counted_samples_{{ seed }}.sample_seed,
                counted_samples_{{ seed }}.hq_sample_mask,
                counted_samples_{{ seed }}.depth_sample_score_mean
            from counted_samples_{{ seed }}
            where counted_samples_{{ seed }}.is_complete
            union all
        {%- endfor %}
        select
            {{ qualified_columns('host_pages', ids) }},
            host_pages.page_count,
            host_pages.hq_page_count,
            resampled.sample_seed,
            resampled.hq_sample_mask,
            resampled.depth_sample_score_mean
        from host_pages
        inner join resampled
            on {{ columns_match('host_pages', 'resampled', ids) }}
    )
{%- endmacro %}
-- noqa: enable=LT02

{#- first_sampled_summary(positioned, mask_positions): per signal × host × seed of
    `positioned` (ids, sample_seed, score, is_hq and sample_position, 1 for the first
    sampled page), the HQ mask of the first `mask_positions` pages, the mean score of the
    first `depth_sample_size` and how many of the first `mask_positions` it holds
    (first_pages_positioned). A parenthesised query. -#}
{% macro first_sampled_summary(positioned, mask_positions) -%}
    (
        select
            {{ positioned }}.dataset_id,
            {{ positioned }}.classifier_id,
            {{ positioned }}.host_id,
            {{ positioned }}.sample_seed,
            coalesce(
                -- a case, not a filter: the shift must not see later positions
                bit_or(
                    case
                        when
                            {{ positioned }}.is_hq
                            and {{ positioned }}.sample_position <= {{ mask_positions }}
                            then 1::bigint << ({{ positioned }}.sample_position - 1)
                    end
                ),
                0
            ) as hq_sample_mask,
            avg({{ positioned }}.score::decimal(38, 15)) filter (
                where {{ positioned }}.sample_position <= {{ var('depth_sample_size') }}
            )::double as depth_sample_score_mean,
            count(*) filter (
                where {{ positioned }}.sample_position <= {{ mask_positions }}
            ) as first_pages_positioned
        from {{ positioned }}
        group by all
    )
{%- endmacro %}

{#- sample_position(relation, partition): each row's place in its `partition` (column
    names of `relation`) in order of its sample_key, 1 first, as sample_position. -#}
{% macro sample_position(relation, partition) -%}
    row_number() over (
        partition by {{ qualified_columns(relation, partition) }}
        order by {{ relation }}.sample_key
    )::integer as sample_position
{%- endmacro %}

{#- seed_keys(pages, seeds): the list of a page's sample keys, one per seed. -#}
{% macro seed_keys(pages, seeds) -%}
    {%- call list_of() %}
        {%- for seed in seeds %}
            {{ pages }}.sample_key_{{ seed }}{{ ',' if not loop.last }}
        {%- endfor %}
    {%- endcall %}
{%- endmacro %}

{#- sample_keys(page_id): a page's sample key for every seed s,
    md5(page_id || ':' || s) as a number (docs/definitions.md §4.0), as columns
    sample_key_<s>, each followed by a comma: as columns before the windows (macro
    host_samples) sort by them. -#}
{% macro sample_keys(page_id) -%}
    {#- `| int`: the linter renders var() as the var's name -#}
    {%- for seed in range(1, (var('sample_seeds') | int) + 1) %}
        {{ md5_number(page_id ~ " || ':" ~ seed ~ "'") }} as sample_key_{{ seed }},
    {%- endfor %}
{%- endmacro %}

{# k_sample_densities(rows, carried): a subquery over `rows` (one per host, or per shape
   of hosts alike, and seed: page_count, hq_page_count, hq_sample_mask and the `carried`
   columns) with a row per k (1 .. `sample_size_max`) and host set it belongs to
   (docs/definitions.md A5: `variable`, a page left after the first k; `fixed`, enough
   pages for every k): the carried columns, host_set_id, sample_size, sample_density (the
   first k sampled pages' HQ share) and remaining_density (the pages left's). The k-sample
   correlations' pairs and their bootstrap's hosts both come from it, so a host's
   densities are the same doubles in both. `sample_sizes`, a list, keeps those k only. #}
{% macro k_sample_densities(rows, carried, sample_sizes=none) -%}
    {%- set all_sizes = range(1, (var('sample_size_max') | int) + 1) %}
    {%- set sample_sizes = sample_sizes or all_sizes %}
    (
        with

        host_sets as (
            select * from {{ ref('int_sample_host_sets') }}
        ),

        sample_sizes as (
            select
                {{ unnest_values(sample_sizes, 'integer') }} as sample_size
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
