{{ config(severity='warn') }}

-- RQ3's full-crawl dataset needs page-level annotations of crawl `fullcrawl_crawl`;
-- host-level ones (or none) leave it empty, and its rows out of the RQ3 marts.
with

pages_flagged as (
    select * from {{ ref('int_page_annotations_flagged') }}
),

fullcrawl_pages as (
    select count(*) as page_count
    from pages_flagged
    where pages_flagged.crawl = '{{ var("fullcrawl_crawl") }}'
)

select
    '{{ var("fullcrawl_crawl") }}' as fullcrawl_crawl,
    fullcrawl_pages.page_count
from fullcrawl_pages
where fullcrawl_pages.page_count = 0
