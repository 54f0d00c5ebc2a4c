"""The report's sections, in page order, each with the marts it reads and the figures it draws."""

from __future__ import annotations

from report.content import Section
from report.sections import plan, rq1, rq2, rq3, rq4

SECTIONS: tuple[Section, ...] = (
    Section(
        "icc",
        "RQ1 · How much of quality is the host? ICC(1) (Fig. 1, Table 8)",
        (rq1.ICC,),
        ("icc_by_classifier",),
        rq1.icc_section,
    ),
    Section(
        "centrality",
        "RQ1 · Centrality against quality (Tables 4–6)",
        (rq1.CENTRALITY,),
        (
            "centrality_quality_pooled",
            "centrality_quality_by_language",
            "centrality_quality_by_tld",
        ),
        rq1.centrality_section,
    ),
    Section(
        "score-by-language",
        "RQ1 · Scores by language (Table 7)",
        (rq1.SCORE_BY_LANGUAGE,),
        ("score_by_language",),
        rq1.score_by_language_section,
    ),
    Section(
        "classifier-agreement",
        "Classifier agreement (Fig. 12)",
        (rq1.AGREEMENT,),
        ("classifier_agreement",),
        rq1.agreement_section,
    ),
    Section(
        "rank-stability",
        "Graph rank stability (Table 2)",
        (rq1.RANK_STABILITY,),
        ("graph_rank_stability",),
        rq1.rank_stability_section,
    ),
    Section(
        "host-ordering",
        "RQ2 · Crawling whole hosts in order (Figs. 2, 9; Table 3)",
        (rq2.YIELD_CURVES, rq2.AT_BUDGET),
        ("host_ordering_yield_curves", "host_ordering_at_10pct"),
        rq2.host_ordering_section,
    ),
    Section(
        "sample-size",
        "RQ3 · How many pages tell a host's quality? (Fig. 4)",
        (rq3.SAMPLE_SIZE,),
        ("sample_size_correlation",),
        rq3.sample_size_section,
    ),
    Section(
        "depth",
        "RQ3 · How deep to crawl each host (Fig. 5)",
        (rq3.DEPTH,),
        ("depth_policy_curves",),
        rq3.depth_section,
    ),
    Section(
        "uncrawled",
        "RQ4 · High-quality pages left uncrawled",
        (rq4.SUMMARY,),
        ("uncrawled_hq_summary",),
        rq4.summary_section,
    ),
    Section(
        "coverage-bands",
        "RQ4 · Uncrawled HQ by coverage (Fig. 7)",
        (rq4.BANDS,),
        ("uncrawled_hq_by_coverage_band",),
        rq4.coverage_band_section,
    ),
    Section(
        "coverage-quality",
        "RQ4 · Coverage against quality (Table 1; Figs. 8, 10)",
        (rq4.COVERAGE_QUALITY,),
        ("coverage_quality_by_signal", "coverage_quality_by_crawl"),
        rq4.coverage_quality_section,
    ),
    Section(
        "missed-tld",
        "RQ4 · Missed HQ by TLD (Fig. 11)",
        (rq4.MISSED_TLD,),
        ("missed_hq_by_tld",),
        rq4.missed_tld_section,
    ),
    Section(
        "hidden-gems",
        "RQ4 · Hidden gems",
        (rq4.HIDDEN_GEMS,),
        (),
        rq4.hidden_gems_section,
    ),
    Section(
        "plan",
        "The crawl plan: pages by phase",
        (plan.FETCH_BUDGET,),
        ("plan_pages_by_phase",),
        plan.fetch_budget_section,
    ),
    Section(
        "plan-diversity",
        "The crawl plan: whom it reaches",
        (plan.DIVERSITY,),
        ("plan_diversity",),
        plan.diversity_section,
    ),
    Section(
        "plan-constraints",
        "The crawl plan: what its constraints cost",
        (plan.CONSTRAINT_COSTS,),
        ("plan_constraint_costs",),
        plan.constraints_section,
    ),
    Section(
        "plan-changes",
        "The crawl plan: what moved since the previous crawl's",
        (plan.CHANGES,),
        ("plan_changes",),
        plan.changes_section,
    ),
)

FIGURES: tuple[str, ...] = tuple(name for section in SECTIONS for name in section.figures)
