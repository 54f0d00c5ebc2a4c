-- The oracle (whole hosts, truest HQ density first) is the most any allocation of
-- the budget can expect (SPEC §6). sample_then_deepen collects its sample's actual HQ
-- pages, which one lucky seed may push past the oracle; the mean over seeds may not.
with

depth_policy_curves as (
    select * from {{ ref('rpt_depth_policy_curves') }}
),

oracle_curves as (
    select * from depth_policy_curves
    where policy = 'oracle'
)

select depth_policy_curves.*
from depth_policy_curves
inner join oracle_curves
    on
        depth_policy_curves.dataset = oracle_curves.dataset
        and depth_policy_curves.classifier = oracle_curves.classifier
        and depth_policy_curves.budget_share = oracle_curves.budget_share
where
    depth_policy_curves.hq_expected
    > oracle_curves.hq_expected + 1e-9 * oracle_curves.total_hq_page_count
