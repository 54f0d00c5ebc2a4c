with

documents as (
    select * from {{ ref('stg_crawl__documents') }}
),

language_strata as (
    select * from {{ ref('language_strata') }}
),

suffix_categories as (
    select * from {{ ref('int_registry_suffix_categories') }}
),

host_ranks as (
    select * from {{ ref('stg_webgraph__host_ranks') }}
),

host_crawls as (
    select * from {{ ref('stg_host_index__host_crawls') }}
),

hosts_from_documents as (
    select
        documents.surt_host_name,
        count(*) as doc_count,
        count(*) filter (where language_strata.language_stratum = 'english')
        / count(*) as english_doc_share,
        mode(documents.url_host_tld) as url_host_tld,
        mode(documents.url_host_registry_suffix) as url_host_registry_suffix,
        mode(documents.url_host_registered_domain) as url_host_registered_domain

    from documents
    left join language_strata
        on documents.language = language_strata.language
    group by all
),

sample_crawl_hosts as (
    select * from host_crawls
    where crawl = '{{ var("sample_crawl") }}'
),

graph_release_ranks as (
    select * from host_ranks
    where release = '{{ var("graph_release") }}'
),

hosts_profiled as (
    select
        ---------- ids
        hosts_from_documents.surt_host_name,
        row_number() over (
            order by hosts_from_documents.surt_host_name
        )::integer as host_id,

        ---------- strings
        hosts_from_documents.url_host_registered_domain,
        hosts_from_documents.url_host_tld,
        hosts_from_documents.url_host_registry_suffix,
        suffix_categories.tld_macro_category,
        case
            when
                hosts_from_documents.english_doc_share
                >= {{ var('english_doc_share_threshold') }}
                then 'english'
            else 'non_english'
        end as language_stratum,

        ---------- numerics
        hosts_from_documents.doc_count,
        hosts_from_documents.english_doc_share,
        graph_release_ranks.hc_val,
        graph_release_ranks.hc_pos,
        graph_release_ranks.pr_val,
        graph_release_ranks.pr_pos,
        sample_crawl_hosts.known_url_count,
        sample_crawl_hosts.fetched_url_count,

        ---------- booleans
        graph_release_ranks.surt_host_name is not null as is_in_graph

    from hosts_from_documents
    left join suffix_categories
        on
            hosts_from_documents.url_host_registry_suffix
            is not distinct from suffix_categories.url_host_registry_suffix
    left join graph_release_ranks
        on hosts_from_documents.surt_host_name = graph_release_ranks.surt_host_name
    left join sample_crawl_hosts
        on hosts_from_documents.surt_host_name = sample_crawl_hosts.surt_host_name
)

select * from hosts_profiled
