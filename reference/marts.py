"""The marts the reference checks, by research question.

What the tests build and compare, and what the benches time (docs/definitions.md names each
analysis).
"""

from __future__ import annotations

__all__ = ["MARTS", "RQ3_MARTS", "RQ4_MARTS", "RQ12_MARTS", "RQ34_MARTS"]

# RQ1 (host-level quality, centrality) and RQ2 (host orderings)
RQ12_MARTS = (
    "rpt_host_quality_icc",
    "rpt_centrality_quality_correlations",
    "rpt_score_by_language",
    "rpt_classifier_agreement",
    "rpt_graph_rank_stability",
    "rpt_host_ordering_at_budget",
)
# RQ3 (within-host samples, depth policies)
RQ3_MARTS = ("rpt_sample_size_correlation", "rpt_depth_policy_curves")
# RQ4 (coverage against quality), fct_host_crawls first: the others are read off it
RQ4_MARTS = (
    "fct_host_crawls",
    "rpt_coverage_quality_correlation",
    "rpt_uncrawled_hq_summary",
    "rpt_hidden_gems",
    "rpt_missed_hq_by_tld",
    "rpt_uncrawled_hq_by_coverage_band",
)
RQ34_MARTS = (*RQ3_MARTS, *RQ4_MARTS)
MARTS = (*RQ12_MARTS, *RQ34_MARTS)
