{{ config(format='csv') }}

-- The crawl plan again, as CSV for tools that do not read Parquet.
select * from {{ ref('plan_host_fetch_budget') }}
