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

        ---------- strings
        classifier_registry.kind,
        classifier_registry.family,

        ---------- numerics
        classifier_registry.hq_threshold,

        ---------- booleans
        -- Scored elsewhere and loaded by `python -m ingest scores`: such a classifier
        -- may cover only some of the sample's pages.
        coalesce(
            classifier_registry.score_transform
            in ('precomputed', 'precomputed_clipped'),
            false
        ) as is_precomputed

    from classifier_registry
)

select * from classifiers
