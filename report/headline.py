"""The headline table: each headline number of the paper beside the warehouse's.

``python -m report headline`` prints it; ``python -m report`` prints it after writing the page,
which shows it too. A row whose mart is missing or empty says so instead of a number.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from report import numbers as nums
from report import paper
from report.formatting import (
    MISSING,
    fmt_count,
    fmt_number,
    fmt_range,
    fmt_range_with_intervals,
    fmt_ratio,
    fmt_row_interval,
    fmt_share,
    fmt_signed,
    text_table,
)
from report.marts import Marts, MartUnavailableError, missing_column
from report.sections import plan, rq1, rq2, rq3, rq4

HEADER = ("analysis", "paper", "here")


@dataclass(frozen=True)
class HeadlineRow:
    """One headline number: what it is, the paper's value and the warehouse's."""

    analysis: str
    paper: str
    here: str


# ----------------------------------------------------------------------- one function per row


def _with_intervals(rows, column: str, digits: int = 2, style: str = "number") -> str:
    """``column``'s smallest and largest values over ``rows``, each with its interval."""
    bounds = [f"{column}_ci_low", f"{column}_ci_high"]
    lows, highs = (rows[b].tolist() if b in rows else None for b in bounds)
    return fmt_range_with_intervals(rows[column].tolist(), lows, highs, digits, style)


def _icc(marts: Marts) -> str:
    icc = marts.frame(rq1.ICC)
    return _with_intervals(icc[icc["min_docs"] == paper.ICC_MIN_DOCS], "icc1", 3)


def _ordering(policy: str, column: str = "hq_ratio_vs_random") -> Callable[[Marts], str]:
    def here(marts: Marts) -> str:
        at_budget = marts.frame(rq2.AT_BUDGET)
        bounds = [f"{column}_ci_low", f"{column}_ci_high"]
        lows, highs = (
            nums.ordering_ratios(at_budget, policy, column=b).tolist() if b in at_budget else None
            for b in bounds
        )
        ratios = nums.ordering_ratios(at_budget, policy, column=column)
        return fmt_range_with_intervals(ratios.tolist(), lows, highs, 2, "ratio")

    return here


RATIO_BOUNDS = ("hq_ratio_vs_random_ci_low", "hq_ratio_vs_random_ci_high")


def _dclm_hc(marts: Marts) -> str:
    at_budget = marts.frame(rq2.AT_BUDGET)
    ratios = nums.ordering_ratios(at_budget, "hc")
    dclm = nums.family_member(ratios.index, "dclm", marts.families())
    if dclm is None:
        return MISSING
    row = {
        column: nums.ordering_ratios(at_budget, "hc", column=column)[dclm]
        for column in ("hq_ratio_vs_random", *RATIO_BOUNDS)
        if column in at_budget
    }
    return f"{fmt_row_interval(row, 'hq_ratio_vs_random', 2, 'ratio')} ({dclm})"


def _centrality(marts: Marts) -> str:
    pooled = nums.pooled_spearman(marts.frame(rq1.CENTRALITY))
    return _with_intervals(pooled, "spearman_rho", 3, "signed")


def _k_sample(k: int) -> Callable[[Marts], str]:
    def here(marts: Marts) -> str:
        labels = {nums.FULLCRAWL: "full crawl", nums.CLASSIFIED: "classified"}
        return rq3.k_sample_values(marts.frame(rq3.SAMPLE_SIZE), k, labels)

    return here


def _depth(which: str) -> Callable[[Marts], str]:
    def here(marts: Marts) -> str:
        gains = nums.depth_gains(marts.frame(rq3.DEPTH))
        parts = []
        for dataset, label in ((nums.FULLCRAWL, "full crawl"), (nums.CLASSIFIED, "classified")):
            chosen = [gain for gain in gains if gain.dataset == dataset]
            if not chosen:
                continue
            budgets = [getattr(gain, f"{which}_budget") for gain in chosen]
            parts.append(
                f"{rq3.depth_gain_range(chosen, which)} at {fmt_range(budgets, 0, 'share')} "
                f"({label})"
            )
        return "; ".join(parts) or MISSING

    return here


def _hc_depth(marts: Marts) -> str:
    return rq3.hc_depth_text(marts.frame(rq3.DEPTH))


def _coverage_quality(larger: bool) -> Callable[[Marts], str]:
    def here(marts: Marts) -> str:
        frame = marts.frame(rq4.COVERAGE_QUALITY)
        crawl = marts.rq4_crawl(rq4.COVERAGE_QUALITY, frame["crawl"])
        signal = nums.annotation_signal(frame)
        minimums = sorted(frame["min_annotated_pages"].unique())
        chosen = [m for m in minimums if m > 1] if larger else [m for m in minimums if m <= 1]
        values = [f"{rq4.coverage_rho_text(frame, crawl, signal, m)} (≥ {m})" for m in chosen]
        return f"{', '.join(values) or MISSING}; {crawl}"

    return here


def _coverage_quality_crawls(marts: Marts) -> str:
    frame = marts.frame(rq4.COVERAGE_QUALITY)
    signal = nums.annotation_signal(frame)
    series = frame[frame["signal"] == signal]
    parts = [
        f"{_with_intervals(rows, 'spearman_rho', 3, 'signed')} (≥ {m})"
        for m, rows in series.groupby("min_annotated_pages", sort=True)
    ]
    return f"{'; '.join(parts)}; {series['crawl'].nunique()} crawls"


def _other_classifiers(marts: Marts) -> str:
    frame = marts.frame(rq4.COVERAGE_QUALITY)
    crawl = marts.rq4_crawl(rq4.COVERAGE_QUALITY, frame["crawl"])
    others = frame[(frame["crawl"] == crawl) & (frame["signal_source"] != nums.ANNOTATION_SOURCE)]
    parts = [
        f"≤ {fmt_number(rows['spearman_rho'].abs().max(), 3)} (≥ {m})"
        for m, rows in others.groupby("min_annotated_pages", sort=True)
    ]
    return "; ".join(parts) or MISSING


def _summary(marts: Marts):
    summary = marts.frame(rq4.SUMMARY)
    crawl = marts.rq4_crawl(rq4.SUMMARY, summary["crawl"])
    return crawl, summary[summary["crawl"] == crawl].iloc[0]


def _uncrawled(marts: Marts) -> str:
    crawl, row = _summary(marts)
    return f"{rq4.uncrawled_text(row)} ({crawl})"


def _low_coverage(marts: Marts) -> str:
    crawl, row = _summary(marts)
    hosts = fmt_count(row["low_coverage_host_count"])
    return f"{rq4.low_coverage_text(row)} on {hosts} hosts ({crawl})"


def _under_crawled(marts: Marts) -> str:
    _, row = _summary(marts)
    return "; ".join(
        f"{label} {fmt_share(row[share])} on {fmt_count(row[count])}"
        for label, count, share in rq4.HOST_SETS[1:3]
    )


def _uk(marts: Marts) -> str:
    missed = marts.frame(rq4.MISSED_TLD)
    crawl = marts.rq4_crawl(rq4.MISSED_TLD, missed["crawl"])
    uk = nums.tld_shares(missed, crawl)
    uk = uk[uk["tld"] == "uk"]
    if uk.empty:
        return f"no .uk host ({crawl})"
    return (
        f"{fmt_share(uk['missed_share'].iloc[0])} from {fmt_share(uk['host_share'].iloc[0], 1)} "
        f"({crawl})"
    )


def _rank_stability(marts: Marts) -> str:
    return fmt_range(marts.frame(rq1.RANK_STABILITY)["spearman_rho"], 3)


def _dclm_nemotron(marts: Marts) -> str:
    agreement = marts.frame(rq1.AGREEMENT)
    families = marts.families()
    names = set(agreement["classifier_a"]) | set(agreement["classifier_b"])
    rho = nums.pair_rho(
        agreement,
        nums.family_member(names, "dclm", families),
        nums.family_member(names, "nemotron", families),
    )
    return MISSING if rho is None else fmt_signed(rho, 3)


def _plan(marts: Marts) -> str:
    totals = plan.phase_totals(marts)
    return (
        f"{fmt_count(totals['pages_to_fetch'].sum())} pages, "
        f"{plan.plan_expected_hq(marts)} expected HQ"
    )


P = paper
ROWS: tuple[tuple[str, str, Callable[[Marts], str]], ...] = (
    ("ICC(1) across classifiers, n ≥ 3 (RQ1)", fmt_range(P.ICC1_RANGE), _icc),
    ("HC vs random at 10% budget (RQ2)", rq2.PAPER_HC, _ordering("hc")),
    ("DCLM under HC vs random at 10%", "below 1×", _dclm_hc),
    ("oracle vs random at 10% budget (RQ2)", rq2.PAPER_ORACLE, _ordering("oracle")),
    (
        "TLDs reached, HC vs random at 10%",
        f"about {fmt_ratio(P.HC_TLD_RATIO, 1)}",
        _ordering("hc", "tld_ratio_vs_random"),
    ),
    ("centrality–quality Spearman, pooled (Table 4)", rq1.PAPER_CENTRALITY, _centrality),
    ("k-sample ρ at k = 3 (RQ3)", fmt_number(P.K_SAMPLE_RHO[3]), _k_sample(3)),
    ("k-sample ρ at k = 5 (RQ3)", fmt_number(P.K_SAMPLE_RHO[5]), _k_sample(5)),
    (
        "sample-then-deepen vs uniform, smallest feasible budget",
        f"up to {fmt_ratio(P.DEPTH_RATIO_SMALL_BUDGET, 1)}",
        _depth("smallest"),
    ),
    (
        "sample-then-deepen vs uniform, largest budget < 100%",
        fmt_ratio(P.DEPTH_RATIO_LARGE_BUDGET, 1),
        _depth("largest"),
    ),
    ("HC depth vs uniform (RQ3)", "little or no gain", _hc_depth),
    (
        "coverage–quality ρ, GneissWeb, ≥ 1 annotated page",
        fmt_signed(P.COVERAGE_QUALITY_RHO),
        _coverage_quality(larger=False),
    ),
    (
        "coverage–quality ρ, GneissWeb, larger minimums",
        f"{fmt_signed(P.COVERAGE_QUALITY_RHO)} (filter unstated)",
        _coverage_quality(larger=True),
    ),
    (
        "coverage–quality ρ per crawl, GneissWeb",
        f"{rq4.PAPER_COVERAGE_RANGE} (6 crawls)",
        _coverage_quality_crawls,
    ),
    (
        "coverage–quality |ρ|, other classifiers",
        f"≤ {fmt_number(P.OTHER_CLASSIFIERS_ABS_RHO_MAX)}",
        _other_classifiers,
    ),
    (
        "estimated uncrawled HQ pages (RQ4)",
        f"{fmt_count(P.UNCRAWLED_HQ_PAGES)} ({P.RQ4_CRAWL})",
        _uncrawled,
    ),
    ("share on hosts crawled < 20%", f"about {fmt_share(P.LOW_COVERAGE_HQ_SHARE)}", _low_coverage),
    (
        "share on 'under-crawled' hosts",
        f"{fmt_share(P.UNDER_CRAWLED_HQ_SHARE)} on {fmt_count(P.UNDER_CRAWLED_HOST_COUNT)}",
        _under_crawled,
    ),
    (
        ".uk: share of missed HQ from share of hosts",
        f"{fmt_share(P.UK_MISSED_SHARE)} from {fmt_share(P.UK_HOST_SHARE, 1)}",
        _uk,
    ),
    ("HC/PR rank stability across releases (Table 2)", rq1.PAPER_RANK_STABILITY, _rank_stability),
    (
        "DCLM vs Nemotron page-score ρ (Fig. 12)",
        fmt_signed(P.DCLM_VS_NEMOTRON_RHO, 3),
        _dclm_nemotron,
    ),
    ("crawl plan: pages, expected HQ", "(no plan in the paper)", _plan),
)
ANALYSES: tuple[str, ...] = tuple(label for label, _, _ in ROWS)


def headline_rows(marts: Marts) -> list[HeadlineRow]:
    """Every headline row, the warehouse's value or why there is none."""
    rows = []
    for analysis, paper_value, here in ROWS:
        try:
            value = here(marts)
        except MartUnavailableError as missing:
            value = f"{MISSING}: {missing}"
        except (KeyError, AttributeError) as error:
            column = missing_column(error)
            if column is None:
                raise
            value = f"{MISSING}: a mart has no column {column}"
        rows.append(HeadlineRow(analysis, paper_value, value))
    return rows


def format_headline(rows: list[HeadlineRow], report_path: str | None = None) -> str:
    """The headline table as text, then the report's path."""
    table = text_table(HEADER, [(row.analysis, row.paper, row.here) for row in rows])
    lines = [
        "Headline numbers: the paper (docs/definitions.md §2.2) beside this warehouse; "
        "[low, high]: the bootstrap interval over hosts (95% unless bootstrap_level is set)",
        "",
        table,
    ]
    if report_path:
        lines += ["", f"report: {report_path}"]
    return "\n".join(lines)
