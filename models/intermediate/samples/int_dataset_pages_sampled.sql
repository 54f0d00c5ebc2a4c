{#- `| int`: the linter renders var() as the var's name -#}
{%- set seeds = range(1, (var('sample_seeds') | int) + 1) %}

with

documents as (
    select * from {{ ref('stg_crawl__documents') }}
),

pages_flagged as (
    select * from {{ ref('int_page_annotations_flagged') }}
),

dataset_hosts as (
    select * from {{ ref('int_dataset_hosts') }}
),

dataset_pages as (
    select
        dataset_hosts.dataset_id,
        dataset_hosts.host_id,
        documents.doc_id
    from documents
    inner join dataset_hosts
        on
            dataset_hosts.dataset_id = 1
            and documents.surt_host_name = dataset_hosts.surt_host_name
    union all
    select
        dataset_hosts.dataset_id,
        dataset_hosts.host_id,
        pages_flagged.page_key as doc_id
    from pages_flagged
    inner join dataset_hosts
        on
            dataset_hosts.dataset_id = 2
            and pages_flagged.surt_host_name = dataset_hosts.surt_host_name
    where pages_flagged.crawl = '{{ var("fullcrawl_crawl") }}'
),

-- A page's place in each seed's sample of its host (docs/definitions.md §4.0
-- (Conventions) and A5 (RQ3 k-sample predictiveness)): the host's pages in order of
-- md5(doc_id || ':' || seed), as a number; position 1 is sampled first.
pages_sampled as (
    select
        ---------- ids
        dataset_pages.dataset_id,
        dataset_pages.host_id,
        dataset_pages.doc_id,

        ---------- numerics
        {% call list_of() %}
        {%- for seed in seeds %}
                row_number() over (
                    partition by dataset_pages.dataset_id, dataset_pages.host_id
                    order by {{ md5_number("dataset_pages.doc_id || ':" ~ seed ~ "'") }}
                )::integer{{ ',' if not loop.last }}
        {%- endfor %}
        {% endcall %} as sample_positions

    from dataset_pages
)

select * from pages_sampled
