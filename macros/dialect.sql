{# Why: the few places where DuckDB's SQL and Spark's differ, each behind one macro
   (adapter.dispatch: default__ is DuckDB's, spark__ Spark's), so that every model keeps
   one body. Spark 4 shares the rest: `qualify`, `group by all`, `::` casts, `filter
   (where …)`, semi/anti joins, median, mode, any_value, bit_count, corr, regr_*. #}

{# md5_number(x): the md5 digest of x as a number, for deterministic random orders.
   DuckDB reads the digest as a little-endian 128-bit unsigned integer (uhugeint); Spark
   has no 128-bit integer, so there it is the digest's hex with its bytes reversed: a
   fixed-width string that sorts as that integer does. Only ever compared, never added. #}
{% macro md5_number(expression) -%}
    {{ return(adapter.dispatch('md5_number')(expression)) }}
{%- endmacro %}

{% macro default__md5_number(expression) -%}
    md5_number({{ expression }})
{%- endmacro %}

{% macro spark__md5_number(expression) -%}
    array_join(reverse(regexp_extract_all(md5({{ expression }}), '..', 0)), '')
{%- endmacro %}

{# md5_number_type(): the type md5_number() has, to cast other order keys to it (a union
   of md5_number() with row_number() must keep every order exact: DOUBLE would not). On
   Spark, a row number in that type is its 32-digit zero-padded decimal text. #}
{% macro md5_number_cast(expression) -%}
    {{ return(adapter.dispatch('md5_number_cast')(expression)) }}
{%- endmacro %}

{% macro default__md5_number_cast(expression) -%}
    ({{ expression }})::uhugeint
{%- endmacro %}

{% macro spark__md5_number_cast(expression) -%}
    lpad(cast({{ expression }} as string), 32, '0')
{%- endmacro %}

{# order_block(x): the leading 16 bits of an md5_number() (or md5_number_cast()) order,
   a block key that never decreases as the order increases (macros/prefix_sums.sql):
   65,536 blocks of a random order, one of row numbers below 2^112. On Spark the order is
   32 hex (or decimal) digits, and the first four are those bits. #}
{% macro order_block(expression) -%}
    {{ return(adapter.dispatch('order_block')(expression)) }}
{%- endmacro %}

{% macro default__order_block(expression) -%}
    ({{ expression }} >> 112)::integer
{%- endmacro %}

{% macro spark__order_block(expression) -%}
    substr({{ expression }}, 1, 4)
{%- endmacro %}

{# order_block_number(x): order_block(x) as an integer, 0 .. 65,535, to compare with a
   count of blocks. #}
{% macro order_block_number(expression) -%}
    {{ return(adapter.dispatch('order_block_number')(expression)) }}
{%- endmacro %}

{% macro default__order_block_number(expression) -%}
    {{ order_block(expression) }}
{%- endmacro %}

{% macro spark__order_block_number(expression) -%}
    cast(conv({{ order_block(expression) }}, 16, 10) as int)
{%- endmacro %}

{# int_div(a, b): integer division rounding towards zero (DuckDB `//`, Spark `div`). #}
{% macro int_div(dividend, divisor) -%}
    {{ return(adapter.dispatch('int_div')(dividend, divisor)) }}
{%- endmacro %}

{% macro default__int_div(dividend, divisor) -%}
    {{ dividend }} // {{ divisor }}
{%- endmacro %}

{% macro spark__int_div(dividend, divisor) -%}
    {{ dividend }} div {{ divisor }}
{%- endmacro %}

{# unnest_values(values, data_type): one row per value of a Jinja list (a var such as
   budget_shares, or a range), cast to data_type: a select-list expression. #}
{% macro unnest_values(values, data_type) -%}
    {{ return(adapter.dispatch('unnest_values')(values, data_type)) }}
{%- endmacro %}

{% macro default__unnest_values(values, data_type) -%}
    unnest([{{ values | join(', ') }}])::{{ data_type }}
{%- endmacro %}

{% macro spark__unnest_values(values, data_type) -%}
    explode(cast(array({{ values | join(', ') }}) as array<{{ data_type }}>))
{%- endmacro %}

{# unnest_lists(lists): one row per position of equally long list columns, each list's
   element at that position in its own column; lists maps column name -> list
   expression. A select-list expression (with its column names). #}
{% macro unnest_lists(lists) -%}
    {{ return(adapter.dispatch('unnest_lists')(lists)) }}
{%- endmacro %}

{% macro default__unnest_lists(lists) -%}
    {%- for name, expression in lists.items() %}
        unnest({{ expression }}) as {{ name }}{{ ',' if not loop.last }}
    {%- endfor %}
{%- endmacro %}

{% macro spark__unnest_lists(lists) -%}
    inline(arrays_zip({{ lists.values() | join(', ') }})) as ({{ lists.keys() | join(', ') }})
{%- endmacro %}

{# list_of(): a list of the items the call block renders, comma-separated (DuckDB
   [a, b], Spark array(a, b)); list_element(list, index): its element at a 1-based index. #}
{% macro list_of() -%}
    {{ return(adapter.dispatch('list_of')(caller())) }}
{%- endmacro %}

{% macro default__list_of(items) -%}
    [{{ items }}]
{%- endmacro %}

{% macro spark__list_of(items) -%}
    array({{ items }})
{%- endmacro %}

{% macro list_element(list, index) -%}
    {{ return(adapter.dispatch('list_element')(list, index)) }}
{%- endmacro %}

{% macro default__list_element(list, index) -%}
    {{ list }}[{{ index }}]
{%- endmacro %}

{% macro spark__list_element(list, index) -%}
    element_at({{ list }}, {{ index }})
{%- endmacro %}

{# quantile_cont(x, q): the interpolated quantile q of x (Spark's percentile). #}
{% macro quantile_cont(expression, quantile) -%}
    {{ return(adapter.dispatch('quantile_cont')(expression, quantile)) }}
{%- endmacro %}

{% macro default__quantile_cont(expression, quantile) -%}
    quantile_cont({{ expression }}, {{ quantile }})
{%- endmacro %}

{% macro spark__quantile_cont(expression, quantile) -%}
    percentile({{ expression }}, {{ quantile }})
{%- endmacro %}

{# is_finite(x): x is a number, neither NaN nor infinite. #}
{% macro is_finite(expression) -%}
    {{ return(adapter.dispatch('is_finite')(expression)) }}
{%- endmacro %}

{% macro default__is_finite(expression) -%}
    isfinite({{ expression }})
{%- endmacro %}

{% macro spark__is_finite(expression) -%}
    (not isnan({{ expression }}) and abs({{ expression }}) != double('infinity'))
{%- endmacro %}

{# not_materialized(): DuckDB's hint that a CTE read twice is cheaper recomputed than
   held; Spark has no such hint (it never materializes a CTE). #}
{% macro not_materialized() -%}
    {{ return(adapter.dispatch('not_materialized')()) }}
{%- endmacro %}

{% macro default__not_materialized() -%}
    not materialized
{%- endmacro %}

{% macro spark__not_materialized() -%}
{%- endmacro %}

{# materialized(): DuckDB's hint that a CTE is computed once and held, where inlined its
   expensive columns would be computed again in each expression naming them (a digest in
   each branch of a case); Spark has no such hint. #}
{% macro materialized() -%}
    {{ return(adapter.dispatch('materialized')()) }}
{%- endmacro %}

{% macro default__materialized() -%}
    materialized
{%- endmacro %}

{% macro spark__materialized() -%}
{%- endmacro %}

{# after(relation): a `where` clause that holds a query back until `relation` (a
   materialized CTE) is written: DuckDB otherwise runs the pipelines of independent CTEs
   at once (macro host_samples). Spark recomputes a CTE at each reference and runs one
   stage at a time anyway: nothing. #}
{% macro after(relation) -%}
    {{ return(adapter.dispatch('after')(relation)) }}
{%- endmacro %}

{% macro default__after(relation) -%}
    where (select count(*) from {{ relation }}) >= 0
{%- endmacro %}

{% macro spark__after(relation) -%}
{%- endmacro %}

{# star_exclude(relation, columns): every column of relation but those. #}
{% macro star_exclude(relation, columns) -%}
    {{ return(adapter.dispatch('star_exclude')(relation, columns)) }}
{%- endmacro %}

{% macro default__star_exclude(relation, columns) -%}
    {{ relation }}.* exclude ({{ columns | join(', ') }})
{%- endmacro %}

{% macro spark__star_exclude(relation, columns) -%}
    {{ relation }}.* except ({{ columns | join(', ') }})
{%- endmacro %}

{# asof_join(kind, right, alias, left, equal_columns, left_value, right_value): join
   each row of left to the row of right, among those with the same equal_columns, with
   the largest right_value below left_value (DuckDB's asof join, `kind` inner or left).
   Spark has no asof join: there each right row spans up to the next right_value, and
   the row whose span holds left_value is joined. Renders `<kind> join … on …`. #}
{% macro asof_join(
    kind, right, alias, left, equal_columns, left_value, right_value
) -%}
    {{ return(adapter.dispatch('asof_join')(
        kind, right, alias, left, equal_columns, left_value, right_value
    )) }}
{%- endmacro %}

{% macro default__asof_join(
    kind, right, alias, left, equal_columns, left_value, right_value
) -%}
    asof {{ kind }} join {{ right }}{{ ' as ' ~ alias if alias != right }}
        on
            {{ columns_match(left, alias, equal_columns) }}
            and {{ left_value }} > {{ alias }}.{{ right_value }}
{%- endmacro %}

{% macro spark__asof_join(
    kind, right, alias, left, equal_columns, left_value, right_value
) -%}
    {{ kind }} join (
        select
            {{ right }}.*,
            lead({{ right }}.{{ right_value }}) over (
                partition by {{ qualified_columns(right, equal_columns) }}
                order by {{ right }}.{{ right_value }}
            ) as asof_span_end
        from {{ right }}
    ) as {{ alias }}
        on
            {{ columns_match(left, alias, equal_columns) }}
            and {{ left_value }} > {{ alias }}.{{ right_value }}
            and (
                {{ alias }}.asof_span_end is null
                or {{ left_value }} <= {{ alias }}.asof_span_end
            )
{%- endmacro %}

{# list_literal(values): a list of the values of a Jinja list (DuckDB [1, 2], Spark
   array(1, 2)). #}
{% macro list_literal(values) -%}
    {{ return(adapter.dispatch('list_literal')(values)) }}
{%- endmacro %}

{% macro default__list_literal(values) -%}
    [{{ values | join(', ') }}]
{%- endmacro %}

{% macro spark__list_literal(values) -%}
    array({{ values | join(', ') }})
{%- endmacro %}

{# kendall_taus_model(): the name of the model holding the Kendall statistics: the
   Python model on DuckDB, its SQL twin on Spark (dbt-spark runs no Python models in a
   session). For `ref(kendall_taus_model())`. #}
{% macro kendall_taus_model() -%}
    {{ return(adapter.dispatch('kendall_taus_model')()) }}
{%- endmacro %}

{% macro default__kendall_taus_model() -%}
    {{ return('int_centrality_quality_kendall') }}
{%- endmacro %}

{% macro spark__kendall_taus_model() -%}
    {{ return('int_centrality_quality_kendall_spark') }}
{%- endmacro %}

{# surt_host_to_name(surt): a SURT host key (`com,example,sub`) as a host name
   (`sub.example.com`): its labels in reverse order, joined by dots. #}
{% macro surt_host_to_name(surt) -%}
    {{ return(adapter.dispatch('surt_host_to_name')(surt)) }}
{%- endmacro %}

{% macro default__surt_host_to_name(surt) -%}
    array_to_string(list_reverse(string_split({{ surt }}, ',')), '.')
{%- endmacro %}

{% macro spark__surt_host_to_name(surt) -%}
    array_join(reverse(split({{ surt }}, ',')), '.')
{%- endmacro %}

{# key_hash(columns): a 64-bit hash of a row's values in the given columns, to narrow a
   search for repeated keys to the few rows whose hashes repeat (equal keys hash equal; two
   keys that only share a hash are told apart by a comparison of the keys themselves).
   DuckDB's hash(...) and Spark's xxhash64(...) both take any number of columns. #}
{% macro key_hash(columns) -%}
    {{ return(adapter.dispatch('key_hash')(columns)) }}
{%- endmacro %}

{% macro default__key_hash(columns) -%}
    hash({{ columns | join(', ') }})
{%- endmacro %}

{% macro spark__key_hash(columns) -%}
    xxhash64({{ columns | join(', ') }})
{%- endmacro %}

{# hex_number(text, start, digits): the number the `digits` hex digits of `text` (a
   digest's hex) from position `start` (1-based) spell, as a bigint (at most 15 digits). #}
{% macro hex_number(text, start, digits) -%}
    {{ return(adapter.dispatch('hex_number')(text, start, digits)) }}
{%- endmacro %}

{% macro default__hex_number(text, start, digits) -%}
    ('0x' || substr({{ text }}, {{ start }}, {{ digits }}))::bigint
{%- endmacro %}

{% macro spark__hex_number(text, start, digits) -%}
    cast(conv(substr({{ text }}, {{ start }}, {{ digits }}), 16, 10) as bigint)
{%- endmacro %}
