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

{# Why: a statistic over a crawl's host index (RQ4: millions of hosts a crawl, 335M in a
   real index) cannot afford B replicates of every host (a row per host and replicate:
   the coverage-quality correlations took 281 s instead of 20 s at paper scale). Its
   first-order replicate is sum_h (w_hb - 1) psi_h; with Poisson(1) weights (variance 1,
   independent across hosts) its variance is exactly sum_h psi_h^2, and over thousands of
   hosts it is normal: the percentile interval the replicates converge to as B grows is
   the estimate -/+ z sqrt(sum psi^2), z the normal quantile at (1 + level) / 2 (the
   infinitesimal jackknife's standard error, Efron 1982 ch. 6). These marts give that
   limit, in one pass over their hosts (docs/definitions.md B, "Host-index statistics"). #}

{# normal_quantile(probability): the standard normal quantile z of a constant
   probability in [1e-9, 1 - 1e-9], worked out when the model compiles (one constant, the
   same in DuckDB and Spark). Newton's method from 0 on Phi(z) = max(p, 1 - p), which
   creeps up on the root without overshooting (Phi is concave above 0), with
   Phi(z) = 1/2 + phi(z) sum_n z^(2n+1) / (1 3 5 ... (2n+1)) (G. Marsaglia, "Evaluating
   the normal distribution", J. Stat. Softw. 11(4), 2004) and 1 / phi(z) = sqrt(2 pi)
   exp(z^2 / 2) by its power series: a Newton step is (p - 1/2) sqrt(2 pi) exp(z^2 / 2)
   minus that sum. Both series have positive terms and 100 of them reach double precision
   for |z| <= 6; Phi's rounding (a few 1e-16) leaves z within it over phi(z): 5e-15 of
   scipy's at 95%, 3e-13 at 99.9%, 6e-9 at |z| = 6. #}
{% macro normal_quantile(probability) -%}
    {%- set p = probability | float -%}
    {%- if not (1e-9 <= p <= 1 - 1e-9) -%}
        {{ exceptions.raise_compiler_error(
            'normal_quantile needs a probability in [1e-9, 1 - 1e-9], not ' ~ probability
        ) }}
    {%- endif -%}
    {%- set upper = [p, 1 - p] | max -%}
    {%- set newton = namespace(z=0.0, done=false) -%}
    {%- for _ in range(60) if not newton.done -%}
        {%- set square = newton.z * newton.z -%}
        {%- set series = namespace(
            exp=1.0, exp_term=1.0, sum=newton.z, sum_term=newton.z
        ) -%}
        {%- for n in range(1, 100) -%}
            {%- set series.exp_term = series.exp_term * square / 2 / n -%}
            {%- set series.exp = series.exp + series.exp_term -%}
            {%- set series.sum_term = series.sum_term * square / (2 * n + 1) -%}
            {%- set series.sum = series.sum + series.sum_term -%}
        {%- endfor -%}
        {%- set step = (upper - 0.5) * 2.5066282746310002 * series.exp - series.sum -%}
        {%- set newton.z = newton.z + step -%}
        {#- a step leaves an error of about z step^2 / 2: one under 1e-8 ends it -#}
        {%- set newton.done = step | abs <= 1e-8 -%}
    {%- endfor -%}
    {%- if not newton.done -%}
        {{ exceptions.raise_compiler_error(
            'normal_quantile did not converge for ' ~ probability
        ) }}
    {%- endif -%}
    cast({{ newton.z if p >= 0.5 else -newton.z }} as double)
{%- endmacro %}

{# normal_interval(value, variance, name, low=none, high=none): `<name>_ci_low`,
   `_ci_high` and `_se` of an estimate whose first-order bootstrap variance is
   `variance` (sum_h psi_h^2): value -/+ z sqrt(variance) at `bootstrap_level`, kept
   within [low, high] where given. Null when bootstrap_replicates is 0, or the value or
   the variance is. #}
{% macro normal_interval(value, variance, name, low=none, high=none) -%}
    {%- set on = var('bootstrap_replicates') | int > 0 -%}
    {%- set se = 'sqrt(' ~ variance ~ ')' -%}
    {%- set z = normal_quantile((1 + var('bootstrap_level')) / 2) -%}
    {%- set lower = '(' ~ value ~ ') - ' ~ z ~ ' * ' ~ se -%}
    {%- set upper = '(' ~ value ~ ') + ' ~ z ~ ' * ' ~ se -%}
    {%- if low is not none -%}
        {%- set lower = 'greatest(' ~ low ~ ', ' ~ lower ~ ')' -%}
    {%- endif -%}
    {%- if high is not none -%}
        {%- set upper = 'least(' ~ high ~ ', ' ~ upper ~ ')' -%}
    {%- endif -%}
    {#- greatest() and least() skip nulls: an undefined estimate needs its own case -#}
    {%- set defined = '(' ~ value ~ ') is not null and ('
        ~ variance ~ ') is not null' -%}
    {%- if on -%}
        case when {{ defined }} then {{ lower }} end as {{ name }}_ci_low,
        case when {{ defined }} then {{ upper }} end as {{ name }}_ci_high,
        case when {{ defined }} then {{ se }} end as {{ name }}_se
    {%- else -%}
        cast(null as double) as {{ name }}_ci_low,
        cast(null as double) as {{ name }}_ci_high,
        cast(null as double) as {{ name }}_se
    {%- endif -%}
{%- endmacro %}
