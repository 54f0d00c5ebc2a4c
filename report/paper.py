"""The paper's reference numbers, in one place.

Every number the report puts beside the warehouse's comes from here. The source of each is
the table of ``docs/definitions.md`` §2.2 ("Headline numbers"), named by its row after each
comment; the bracketed section is the section of the paper's published summary it is from.
"""

from __future__ import annotations

# The crawl the paper's RQ4 numbers are about
# (docs/definitions.md §2.2 "RQ4 CC-MAIN-2024-10" [S §4.4]).
RQ4_CRAWL = "CC-MAIN-2024-10"

# RQ1: ICC(1) across the 10 classifiers, 0.43-0.62, stable at n >= 3, 5, 10
# (docs/definitions.md §2.2 "RQ1 ICC(1), 10 classifiers" [S §1, §4.1, C.5]; Table 8).
ICC1_RANGE = (0.43, 0.62)
ICC_MIN_DOCS = 3

# RQ2 at a 10% budget (docs/definitions.md §2.2 "RQ2 at a 10% budget" [S §4.2, B, Table 3]).
TABLE3_BUDGET_SHARE = 0.10
HC_VS_RANDOM_RANGE = (0.7, 1.8)  # HC vs random; below 1 for DCLM
ORACLE_VS_RANDOM_RANGE = (4.0, 8.0)  # oracle vs random
# "HC ordering about halves the TLDs reached" (docs/definitions.md §2.2 "RQ2 at a 10% budget")
HC_TLD_RATIO = 0.5

# Table 4: Spearman of HC/PR vs host quality over 12 classifiers
# (docs/definitions.md §2.2 "centrality vs quality (Table 4)" [S C.1]).
CENTRALITY_SPEARMAN_RANGE = (-0.086, 0.207)

# Table 2: Spearman of HC/PR ranks vs later graph releases
# (docs/definitions.md §2.2 "rank stability (Table 2)" [S A]).
RANK_STABILITY_RANGE = (0.851, 0.923)

# Fig. 12: classifier agreement over 462,494 docs; DCLM vs Nemotron-Q -0.459
# (docs/definitions.md §2.2 "classifier agreement (Fig. 12)" [S E]).
AGREEMENT_DOC_COUNT = 462_494
DCLM_VS_NEMOTRON_RHO = -0.459

# RQ3 k-sample: rho 0.53 at k = 3, 0.57 at k = 5, plateau at k of about 15-20
# (docs/definitions.md §2.2 "RQ3 k-sample" [S §4.3]; Fig. 4).
K_SAMPLE_RHO = {3: 0.53, 5: 0.57}
K_SAMPLE_PLATEAU = (15, 20)

# RQ3 depth: sample-then-deepen up to 7.8x uniform breadth at small budgets, falling to 1.7x
# as budgets grow; HC depth little or no gain
# (docs/definitions.md §2.2 "RQ3 depth" [S §4.3, §6]; Fig. 5).
DEPTH_RATIO_SMALL_BUDGET = 7.8
DEPTH_RATIO_LARGE_BUDGET = 1.7

# RQ4 CC-MAIN-2024-10: 58M estimated HQ pages among uncrawled known URLs, half of them on
# hosts crawled below 20% (docs/definitions.md §2.2 "RQ4 CC-MAIN-2024-10" [S §4.4]; Fig. 7).
UNCRAWLED_HQ_PAGES = 58_000_000
LOW_COVERAGE_THRESHOLD = 0.2
LOW_COVERAGE_HQ_SHARE = 0.5

# RQ4 concentration: 62% of the 58M on 369,534 "under-crawled" hosts, definition unstated
# (docs/definitions.md §2.2 "RQ4 CC-MAIN-2024-10" [S §6]; docs/definitions.md A12).
UNDER_CRAWLED_HQ_SHARE = 0.62
UNDER_CRAWLED_HOST_COUNT = 369_534

# RQ4 coverage vs quality: Spearman -0.08 with GneissWeb; other classifiers |rho| <= 0.07
# (docs/definitions.md §2.2 "RQ4 coverage vs quality" [S §4.4, §6]; Table 1, Fig. 8).
COVERAGE_QUALITY_RHO = -0.08
OTHER_CLASSIFIERS_ABS_RHO_MAX = 0.07

# RQ4 six crawls 2021-2024: coverage-quality rho from -0.057 to -0.151
# (docs/definitions.md §2.2 "RQ4 coverage vs quality" [S E]; Fig. 10).
COVERAGE_QUALITY_RHO_RANGE = (-0.151, -0.057)

# RQ4 TLDs: .uk holds 23% of the missed budget from 6.1% of hosts
# (docs/definitions.md §2.2 "RQ4 TLDs (Fig. 11)" [S E]).
UK_MISSED_SHARE = 0.23
UK_HOST_SHARE = 0.061
