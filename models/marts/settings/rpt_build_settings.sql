{%- set profile = var("annotation_profile") %}

-- The vars naming the crawls and releases the marts are about, so that readers (the
-- report) follow the build instead of guessing from names.
with

build_settings as (
    select
        '{{ var("sample_crawl") }}' as sample_crawl,
        '{{ var("graph_release") }}' as graph_release,
        '{{ var("fullcrawl_crawl") }}' as fullcrawl_crawl,
        '{{ var("plan_crawl") }}' as plan_crawl,
        {% if profile is none -%}
            cast(null as string)
        {%- else -%}
            '{{ profile }}'
        {%- endif %} as annotation_profile
)

select * from build_settings
