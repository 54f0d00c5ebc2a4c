-- What a random host order collects, in expectation, for every universe. Fetching
-- whole hosts in a uniformly random order does not collect the budget's share b of
-- the HQ pages on average: a small budget rarely reaches a large host, so where one
-- host holds most HQ pages the share collected at b = 0.01 is about half of b, or
-- twice it (the tiny crawl, seeds 2 and 7). What holds exactly is a symmetry: the
-- reversed order is as likely, and the first (1 - b) of its pages are the pages the
-- order leaves at b (the boundary host's remainder too, by the expected-value rule),
-- so E[hq(b)] + E[hq(1 - b)] = K, the universe's HQ pages: at b = 1/2 exactly K / 2;
-- and at b = 1 every seed collects K. Per pair of budgets, the seeds' sums
-- hq(b) + hq(1 - b) - K have mean 0; the test fails where their mean over the R
-- seeds is more than 6 standard errors (their sd / sqrt(R)) from 0, beyond rounding
-- (a Student t with R - 1 = 19 degrees of freedom exceeds 6 with probability 1e-5:
-- a failure is a random order that is not uniform, or a wrong fill, not chance).
with

host_ordering_yields as (
    select * from {{ ref('int_host_ordering_yields') }}
    where policy = 'random'
),

paired_budgets as (
    select
        low.classifier,
        low.budget_share,
        low.random_seed,
        low.total_hq_page_count,
        low.hq_collected + coalesce(high.hq_collected, 0)
        - low.total_hq_page_count as deviation

    from host_ordering_yields as low
    left join host_ordering_yields as high
        on
            low.classifier = high.classifier
            and low.random_seed = high.random_seed
            and abs(low.budget_share + high.budget_share - 1) < 1e-9
    where
        -- b = 1 pairs with b = 0, which collects nothing
        low.budget_share > 1 - 1e-9
        or (low.budget_share <= 0.5 + 1e-9 and high.budget_share is not null)
),

paired_means as (
    select
        paired_budgets.classifier,
        paired_budgets.budget_share,
        any_value(paired_budgets.total_hq_page_count) as total_hq_page_count,
        avg(paired_budgets.deviation) as mean_deviation,
        coalesce(stddev_samp(paired_budgets.deviation), 0)
        / sqrt(count(*)) as standard_error,
        count(*) as seed_count

    from paired_budgets
    group by all
)

select paired_means.*
from paired_means
where
    abs(paired_means.mean_deviation)
    > 6 * paired_means.standard_error + 1e-9 * paired_means.total_hq_page_count
