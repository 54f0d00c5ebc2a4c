"""RQ2: whole-host crawl orders by centrality, coverage and quality against random."""

from __future__ import annotations

from report import charts, paper
from report import numbers as nums
from report.content import ReportFigure, ReportTable, SectionContent
from report.formatting import (
    MISSING,
    caption,
    fmt_count,
    fmt_interval,
    fmt_number,
    fmt_range,
    fmt_ratio,
    fmt_share,
    versus,
)
from report.marts import Marts

YIELD_CURVES = "rpt_host_ordering_yield_curves"
AT_BUDGET = "rpt_host_ordering_at_budget"
RATIO_CI_COLUMNS = ("hq_ratio_vs_random_ci_low", "hq_ratio_vs_random_ci_high")

POLICIES = ("random", "hc", "pr", "cc_coverage", "oracle")
BUDGET = paper.TABLE3_BUDGET_SHARE
PAPER_HC = fmt_range(paper.HC_VS_RANDOM_RANGE, 1, "ratio")
PAPER_ORACLE = fmt_range(paper.ORACLE_VS_RANDOM_RANGE, 1, "ratio")


def _ordered(policies: set[str]) -> list[str]:
    return [p for p in POLICIES if p in policies] + sorted(policies - set(POLICIES))


def _plus_minus(value: object) -> str:
    """``±0.012``, or ``n/a`` (random itself, or one random order)."""
    shown = fmt_number(value, 3)
    return shown if shown == MISSING else f"±{shown}"


def hc_caption(hc: list[float], oracle: list[float], dclm_hc: float | None) -> str:
    """The 10%-budget caption: HC and oracle ratios to random, and DCLM's HC ratio."""
    return caption(
        f"HQ pages collected at a {fmt_share(BUDGET)} budget relative to a random host order "
        "(Table 3; bars: bootstrap intervals over hosts); HC",
        versus(fmt_range(hc, 2, "ratio"), PAPER_HC),
        f"DCLM under HC {versus(fmt_ratio(dclm_hc), 'below 1×')}",
        f"the oracle {versus(fmt_range(oracle, 2, 'ratio'), PAPER_ORACLE)}",
    )


def host_ordering_section(marts: Marts) -> SectionContent:
    """Fig. 2/9 and Table 3: HQ collected by host order and budget."""
    curves = marts.frame(YIELD_CURVES, "select * from {mart} order by all")
    at_budget = marts.frame(AT_BUDGET, "select * from {mart} order by all")
    classifiers = sorted(curves["classifier"].unique())
    policies = _ordered(set(curves["policy"]))
    hc = nums.ordering_ratios(at_budget, "hc")
    oracle = nums.ordering_ratios(at_budget, "oracle")
    dclm = nums.family_member(classifiers, "dclm", marts.families())
    dclm_hc = float(hc[dclm]) if dclm in hc.index else None

    # Fig. 2 / 9: the curves.
    figure, axes = charts.panel_grid(
        len(classifiers),
        row_height=2.5,
        xlabel="budget, share of pages (log)",
        ylabel="HQ pages collected",
    )
    for axis, classifier in zip(axes, classifiers, strict=True):
        rows = curves[curves["classifier"] == classifier]
        for policy in policies:
            line = rows[rows["policy"] == policy].sort_values("budget_share")
            style = "--" if policy == "oracle" else "-"
            axis.plot(
                line["budget_share"],
                line["hq_share"],
                style,
                color=charts.POLICY_COLOURS.get(policy),
                lw=1.2,
                label=policy,
            )
            if policy == "random" and line["hq_collected_sd"].notna().any():
                spread = line["hq_collected_sd"] * line["hq_share"] / line["hq_collected"]
                axis.fill_between(
                    line["budget_share"],
                    line["hq_share"] - spread,
                    line["hq_share"] + spread,
                    color=charts.POLICY_COLOURS["random"],
                    alpha=0.2,
                    lw=0,
                    label="random ± sd over seeds",
                )
        axis.axvline(
            BUDGET, color=charts.PAPER_COLOUR, lw=0.8, ls=":",
            label=f"the {fmt_share(BUDGET)} budget of Table 3",
        )  # fmt: skip
        axis.set_xscale("log")
        charts.share_axis(axis, "x")
        charts.share_axis(axis, "y")
        axis.set_title(classifier)
        axis.set_ylim(0, 1.02)
    charts.legend_outside(figure, axes[0], ncols=4)
    curves_caption = caption(
        "Share of all HQ pages collected as the budget grows, by host order (random: mean ± sd "
        "over seeds; dotted: the 10% budget; Fig. 2, 9); at 10% HC",
        versus(fmt_range(hc, 2, "ratio") + " random", PAPER_HC),
        f"the oracle {versus(fmt_range(oracle, 2, 'ratio'), PAPER_ORACLE)}",
    )

    # Table 3 as a figure: ratios at 10%.
    shown = [p for p in _ordered(set(at_budget["policy"])) if p != "random"]
    figure_10 = charts.new_figure(8, 3.6)
    axis = figure_10.add_subplot()
    charts.paper_band(
        axis, *paper.HC_VS_RANDOM_RANGE, label=f"paper: HC {PAPER_HC}, oracle {PAPER_ORACLE}"
    )
    charts.paper_band(axis, *paper.ORACLE_VS_RANDOM_RANGE, label="_paper oracle")
    intervals = {
        policy: tuple(
            nums.ordering_ratios(at_budget, policy, column=column).reindex(classifiers).tolist()
            for column in RATIO_CI_COLUMNS
        )
        for policy in shown
    }
    charts.grouped_bars(
        axis,
        classifiers,
        {
            policy: nums.ordering_ratios(at_budget, policy).reindex(classifiers).tolist()
            for policy in shown
        },
        colours=charts.POLICY_COLOURS,
        baseline=1.0,
        intervals=intervals if RATIO_CI_COLUMNS[0] in at_budget else None,
    )
    axis.axhline(1, color="black", lw=0.6)
    charts.log_ratio_axis(axis, (0.25, 0.5, 1, 2, 4, 8, 16))
    axis.set_ylim(0.2, 12)
    axis.set_ylabel(f"HQ pages / random order's,\n{fmt_share(BUDGET)} budget (log)")
    charts.legend_outside(figure_10, axis, ncols=6)

    tld_hc = nums.ordering_ratios(at_budget, "hc", column="tld_ratio_vs_random")
    rows_10 = nums.at_budget(at_budget, BUDGET)
    rows = [
        (
            row.classifier,
            row.policy,
            fmt_number(row.hq_collected, 1),
            fmt_interval(
                row.hq_ratio_vs_random,
                *(getattr(row, column, None) for column in RATIO_CI_COLUMNS),
                style="ratio",
            ),
            _plus_minus(getattr(row, "hq_ratio_seed_se", None)),
            fmt_ratio(row.hq_collected / row.oracle_hq_collected)
            if row.oracle_hq_collected
            else MISSING,
            fmt_count(row.tld_count),
            fmt_ratio(row.tld_ratio_vs_random),
        )
        for row in rows_10.sort_values(["classifier", "policy"]).itertuples()
    ]
    header = ("classifier", "policy", "HQ pages", "vs random [95% interval]", "± seeds")
    header += ("vs oracle", "TLDs")
    header += ("TLDs vs random",)
    table = ReportTable(
        caption(
            f"Table 3: host orders at a {fmt_share(BUDGET)} budget (± seeds: the ratio's standard "
            "error from averaging the random orders, apart from the hosts' interval); TLDs "
            "reached by HC relative to random",
            versus(fmt_range(tld_hc, 2, "ratio"), f"about {fmt_ratio(paper.HC_TLD_RATIO, 1)}"),
        ),
        header,
        rows,
    )
    return SectionContent(
        figures=[
            ReportFigure("host_ordering_yield_curves", curves_caption, figure),
            ReportFigure(
                "host_ordering_at_10pct",
                hc_caption(hc.tolist(), oracle.tolist(), dclm_hc),
                figure_10,
            ),
        ],
        tables=[table],
    )
