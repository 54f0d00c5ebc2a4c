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

-- Every suffix once, null (hosts without a public suffix: IP addresses) among them.
registry_suffixes as (
    select documents.url_host_registry_suffix
    from documents
    union
    select host_crawls.url_host_registry_suffix
    from host_crawls
),

-- docs/definitions.md A3 (Centrality vs quality): a suffix takes the category of the
-- first matching pattern by priority (`ac.%` before `__`, so `ac.uk` is academic and
-- `uk` a country code); a suffix matching none, or none at all, is other_generic. The
-- one place hosts are categorised: readers join on the suffix, null included.
suffix_patterns_matched as (
    select
        registry_suffixes.url_host_registry_suffix,
        tld_macro_categories.macro_category

    from registry_suffixes
    left join tld_macro_categories
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
),

suffix_categories as (
    select
        suffix_patterns_matched.url_host_registry_suffix,
        coalesce(suffix_patterns_matched.macro_category, 'other_generic')
            as tld_macro_category

    from suffix_patterns_matched
)

select * from suffix_categories
