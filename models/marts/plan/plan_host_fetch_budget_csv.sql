{{ config(
    format='csv',
    options={'compression': 'gzip'},
    location='{{ adapter.external_root() }}/plan_host_fetch_budget_csv.csv.gz'
) }}

-- The crawl plan again, as gzip-compressed CSV for tools that do not read Parquet.
-- Plain, its repeated reasons took 217 bytes a host (73 GB at a real crawl's 335M
-- hosts); gzipped 21 (bench/bench_scale.py, issue 35), and every tool still reads it
-- (zcat, pandas, DuckDB, Spark). The location is a template the materialization renders
-- when the model runs, so that it follows HOSTAWARE_EXPORTS and not the value the
-- project was parsed with.
select * from {{ ref('plan_host_fetch_budget') }}
