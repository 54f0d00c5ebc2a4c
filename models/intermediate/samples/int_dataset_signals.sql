with

classifiers as (
    select * from {{ ref('int_classifiers') }}
),

pages_flagged as (
    select * from {{ ref('int_page_annotations_flagged') }}
),

-- The full crawl's signal is its annotation profile (one per crawl: a data test).
fullcrawl_profiles as (
    select distinct pages_flagged.annotation_profile
    from pages_flagged
    where pages_flagged.crawl = '{{ var("fullcrawl_crawl") }}'
),

-- RQ3's two datasets (docs/definitions.md A5 (RQ3 k-sample predictiveness)): the
-- classified sample, scored by every registry classifier, and the full crawl, whose
-- pages carry their annotation profile's flag.
dataset_signals as (
    select
        ---------- ids
        1 as dataset_id,
        'classified' as dataset,
        classifiers.classifier_id,
        classifiers.classifier,

        ---------- numerics
        classifiers.hq_threshold

    from classifiers
    union all
    select
        2 as dataset_id,
        'fullcrawl' as dataset,
        1 as classifier_id,
        fullcrawl_profiles.annotation_profile as classifier,
        -- the pages carry their profile's flag (int_page_annotations_flagged)
        null::double as hq_threshold
    from fullcrawl_profiles
)

select * from dataset_signals
