with

classifier_registry as (
    select * from {{ ref('classifier_registry') }}
),

-- An integer id per classifier: window partitions and sort keys over millions of rows
-- are several times faster on integers than on names such as 'gneissweb_quality'.
classifiers as (
    select
        ---------- ids
        classifier_registry.classifier,
        row_number() over (order by classifier_registry.classifier) as classifier_id,

        ---------- numerics
        coalesce(
            classifier_registry.hq_threshold, {{ var('hq_threshold_default') }}
        ) as hq_threshold

    from classifier_registry
)

select * from classifiers
