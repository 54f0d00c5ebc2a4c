-- A crawl's pages annotated by two sources (say Common Crawl's GneissWeb annotations
-- and FineWeb-Edu rows) would be counted twice in its hosts' HQ densities: the
-- `annotation_profile` var must say which one RQ3 and RQ4 read.
with

pages_flagged as (
    select * from {{ ref('int_page_annotations_flagged') }}
)

select
    pages_flagged.crawl,
    count(distinct pages_flagged.annotation_profile) as profile_count,
    min(pages_flagged.annotation_profile) as first_profile,
    max(pages_flagged.annotation_profile) as last_profile
from pages_flagged
group by 1
having count(distinct pages_flagged.annotation_profile) > 1
