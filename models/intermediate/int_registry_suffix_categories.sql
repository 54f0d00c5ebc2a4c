{{ config(materialized='table') }}

with

documents as (
    select * from {{ ref('stg_crawl__documents') }}
),

host_crawls as (
    select * from {{ ref('stg_host_index__host_crawls') }}
),

tld_macro_categories as (
    select * from {{ ref('tld_macro_categories') }}
),

registry_suffixes as (
    select documents.url_host_registry_suffix
    from documents
    where documents.url_host_registry_suffix is not null
    union
    select host_crawls.url_host_registry_suffix
    from host_crawls
    where host_crawls.url_host_registry_suffix is not null
),

-- SPEC A3: a suffix takes the category of the first matching pattern by priority
-- (`ac.%` before `__`, so `ac.uk` is academic and `uk` a country code).
suffix_categories as (
    select
        registry_suffixes.url_host_registry_suffix,
        tld_macro_categories.macro_category as tld_macro_category

    from registry_suffixes
    inner join tld_macro_categories
        on
            registry_suffixes.url_host_registry_suffix
            like tld_macro_categories.suffix_pattern
    qualify
        row_number() over (
            partition by registry_suffixes.url_host_registry_suffix
            order by
                tld_macro_categories.match_priority,
                tld_macro_categories.suffix_pattern
        ) = 1
)

select * from suffix_categories
