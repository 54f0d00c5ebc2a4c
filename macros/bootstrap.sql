{# Why: every headline statistic gets a bootstrap interval over hosts, the unit each
   analysis samples (docs/definitions.md B, "Bootstrap intervals"). The Poisson bootstrap
   (Hanley & MacGibbon 2006; Chamandy et al. 2012, "Estimating uncertainty for massive
   data streams") gives each host in replicate b a weight drawn as Poisson(1) — a host
   counted that many times — instead of resampling hosts with a join; the weight is a
   function of (host, b) alone, so DuckDB, Spark and the numpy reference
   (reference/bootstrap.py) draw the same replicates. Replicate 0 is the sample itself
   (every weight 1): the point estimate is one more replicate, computed by the same SQL. #}

{# bootstrap_replicates(): the replicate numbers, 0 (the sample) to the var
   `bootstrap_replicates` (0 turns the intervals off), as a from-clause column `replicate`. #}
{% macro bootstrap_replicates() -%}
    (select {{ unnest_values(range(0, var('bootstrap_replicates') | int + 1), 'integer') }}
        as replicate)
{%- endmacro %}

{# bootstrap_draw(key, replicate): the uniform integer behind a host's weight in a
   replicate: the first 13 hex digits of md5(key || ':' || replicate), in [0, 2^52). #}
{% macro bootstrap_draw(key, replicate) -%}
    {{ hex_prefix_number(
        "md5(" ~ key ~ " || ':' || cast(" ~ replicate ~ " as string))", 13
    ) }}
{%- endmacro %}

{# bootstrap_weight(draw, replicate): the weight of that draw: the number of thresholds
   T_k = ceil(P(K <= k) * 2^52), K ~ Poisson(1) (scipy.stats.poisson.cdf), it reaches — the
   inverse CDF, so P(weight = k) = P(K = k) to 2^-52; 1 in replicate 0. Integers
   throughout, so every engine draws the same weights. #}
{% macro bootstrap_weight(draw, replicate) -%}
    {%- set thresholds = [
        1656781714176975, 3313563428353948, 4141954285442435, 4418084571138597,
        4487117142562638, 4500923656847446, 4503224742561581, 4503553469092171,
        4503594559908495, 4503599125554754, 4503599582119379, 4503599623625254,
        4503599627084077, 4503599627350141, 4503599627369145, 4503599627370412,
        4503599627370491
    ] -%}
    {%- set branches = [] -%}
    {%- for threshold in thresholds -%}
        {%- do branches.append(
            'when ' ~ draw ~ ' < ' ~ threshold ~ ' then ' ~ loop.index0
        ) -%}
    {%- endfor -%}
    case when {{ replicate }} = 0 then 1 {{ branches | join(' ') }}
    else {{ thresholds | length }} end
{%- endmacro %}
