with

classifier_registry as (
    select * from {{ ref('classifier_registry') }}
),

-- An integer id per classifier: window partitions and sort keys over millions of rows
-- are several times faster on 32-bit integers than on names such as
-- 'gneissweb_quality' (or on 64-bit integers: DuckDB sorts narrow keys faster).
classifiers as (
    select
        ---------- ids
        classifier_registry.classifier,
        row_number() over (
            order by classifier_registry.classifier
        )::integer as classifier_id,

        ---------- numerics
        coalesce(
            classifier_registry.hq_threshold, {{ var('hq_threshold_default') }}
        ) as hq_threshold

    from classifier_registry
)

select * from classifiers
