{# Why: every headline statistic gets a bootstrap interval over hosts, the unit each
   analysis samples (docs/definitions.md B, "Bootstrap intervals"). The Poisson bootstrap
   (Hanley & MacGibbon 2006; Chamandy et al. 2012, "Estimating uncertainty for massive
   data streams") gives each host in replicate b a weight drawn as Poisson(1) — a host
   counted that many times — instead of resampling hosts with a join; the weight is a
   function of (host, b) alone, so DuckDB, Spark and the numpy reference
   (reference/bootstrap.py) draw the same replicates. Replicate 0 is the sample itself
   (every weight 1): the point estimate is one more replicate, computed by the same SQL.

   One digest per host, not one per (host, b): md5(host) gives two seeds s, t uniform on
   0 .. p - 1 (p = 2^31 - 1, a prime), and replicate b's uniform is (s + b t) mod p — for
   b != b' the pair of a host's uniforms is uniform on p^2 pairs, so any two replicates'
   weights are independent (pairwise independence is all a percentile interval's
   quantiles need); integers throughout, and 200 replicates of 532k hosts cost 1.5 s
   instead of md5's 18 s. #}

{# bootstrap_replicates(): the replicate numbers, 0 (the sample) to the var
   `bootstrap_replicates` (0 turns the intervals off), as a from-clause column `replicate`. #}
{% macro bootstrap_replicates() -%}
    {%- set replicates = var('bootstrap_replicates') | int -%}
    {%- if replicates < 0 or replicates >= 2147483647 -%}
        {{ exceptions.raise_compiler_error(
            'bootstrap_replicates must be 0 .. 2^31 - 2, not ' ~ replicates
        ) }}
    {%- endif -%}
    (select {{ unnest_values(range(0, replicates + 1), 'integer') }} as replicate)
{%- endmacro %}

{# bootstrap_seed(key, which): a host's seed 0 (hex digits 1-15 of md5(key)) or 1
   (digits 16-30), reduced mod p = 2^31 - 1: uniform on 0 .. p - 1 to within 2^-29. #}
{% macro bootstrap_seed(key, which) -%}
    ({{ hex_number('md5(' ~ key ~ ')', 1 + 15 * which, 15) }} % 2147483647)
{%- endmacro %}

{# bootstrap_weight(seed_0, seed_1, replicate): the host's weight in the replicate: the
   number of thresholds T_k = ceil(P(K <= k) * p), K ~ Poisson(1) (scipy.stats.poisson.cdf),
   that u = (seed_0 + replicate * seed_1) mod p reaches — the inverse CDF, so
   P(weight = k) = P(K = k) to 1/p; 1 in replicate 0. #}
{% macro bootstrap_weight(seed_0, seed_1, replicate) -%}
    {%- set thresholds = [
        790015084, 1580030168, 1975037710, 2106706891, 2139624186, 2146207645,
        2147304888, 2147461638, 2147481231, 2147483408, 2147483626, 2147483646
    ] -%}
    {%- set uniform = '(((' ~ seed_0 ~ ') + cast(' ~ replicate ~ ' as bigint) * ('
        ~ seed_1 ~ ')) % 2147483647)' -%}
    {%- set branches = [] -%}
    {%- for threshold in thresholds -%}
        {%- do branches.append(
            'when ' ~ uniform ~ ' < ' ~ threshold ~ ' then ' ~ loop.index0
        ) -%}
    {%- endfor -%}
    case when {{ replicate }} = 0 then 1 {{ branches | join(' ') }}
    else {{ thresholds | length }} end
{%- endmacro %}

{# bootstrap_host_weights(hosts, key, name): a select of every host's weight in every
   replicate, columns `key`, `replicate`, `weight`: the distinct (key, name) rows of the
   relation `hosts`, each with its seeds from `name`, times the replicates (alias
   `bootstrap_hosts`, `replicates`). #}
{% macro bootstrap_host_weights(hosts, key, name) -%}
    select
        bootstrap_hosts.{{ key }},
        replicates.replicate,
        {{ bootstrap_weight(
            'bootstrap_hosts.seed_0', 'bootstrap_hosts.seed_1', 'replicates.replicate'
        ) }} as weight

    from (
        select distinct
            {{ hosts }}.{{ key }},
            {{ bootstrap_seed(hosts ~ '.' ~ name, 0) }} as seed_0,
            {{ bootstrap_seed(hosts ~ '.' ~ name, 1) }} as seed_1
        from {{ hosts }}
    ) as bootstrap_hosts
    cross join {{ bootstrap_replicates() }} as replicates
{%- endmacro %}

{# bootstrap_interval(value, name): the aggregates of a statistic's replicates (the
   rows of replicates 1 .. B): `<name>_ci_low` and `_ci_high`, the percentile interval
   at `bootstrap_level` (linear quantiles), and `_se`, their sample standard deviation. #}
{% macro bootstrap_interval(value, name) -%}
    {%- set lower = (1 - var('bootstrap_level')) / 2 -%}
    {{ quantile_cont(value, lower) }} as {{ name }}_ci_low,
    {{ quantile_cont(value, 1 - lower) }} as {{ name }}_ci_high,
    stddev_samp({{ value }}) as {{ name }}_se
{%- endmacro %}
