-- The classifiers the marts speak of, with the family each belongs to: the report
-- finds the paper's named classifiers ("DCLM", "Nemotron-CC") and their colours by
-- `family`.
with

classifiers as (
    select * from {{ ref('int_classifiers') }}
),

final as (
    select
        ---------- ids
        classifiers.classifier,

        ---------- strings
        classifiers.kind,
        classifiers.family,

        ---------- numerics
        classifiers.hq_threshold,

        ---------- booleans
        classifiers.is_precomputed

    from classifiers
)

select * from final
