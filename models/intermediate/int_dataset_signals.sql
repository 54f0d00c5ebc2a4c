with

classifiers as (
    select * from {{ ref('int_classifiers') }}
),

-- RQ3's two datasets (SPEC A5): the classified sample, scored by every registry
-- classifier, and the full crawl, whose pages carry GneissWeb's quality annotation.
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
        'gneissweb_quality' as classifier,
        {{ var('hq_threshold_default') }} as hq_threshold
)

select * from dataset_signals
