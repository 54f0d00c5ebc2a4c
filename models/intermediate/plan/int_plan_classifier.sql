with

classifier_registry as (
    select * from {{ ref('classifier_registry') }}
),

-- The classifier whose HQ judgement the crawl plan follows: `plan_classifier`, or by
-- default the registry's first quality classifier by name.
plan_classifier as (
    select
        ---------- ids
        classifier_registry.classifier,

        ---------- booleans
        coalesce(classifier_registry.is_english_trained, false) as is_english_trained

    from classifier_registry
    {%- if var('plan_classifier') %}
        where classifier_registry.classifier = '{{ var("plan_classifier") }}'
    {%- else %}
        where classifier_registry.kind = 'quality'
    {%- endif %}
    qualify row_number() over (order by classifier_registry.classifier) = 1
)

select * from plan_classifier
