"""RQ3: how well a few pages predict a host, and how deep to crawl each host."""

from __future__ import annotations

import pandas as pd
from matplotlib.ticker import FuncFormatter

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
    fmt_range_with_intervals,
    fmt_ratio,
    fmt_share,
    versus,
)
from report.marts import Marts

SAMPLE_SIZE = "rpt_sample_size_correlation"
DEPTH = "rpt_depth_policy_curves"

DEPTH_POLICIES = ("uniform_breadth", "hc_depth", "sample_then_deepen", "oracle")
RATIO_BOUNDS = ["ratio_vs_uniform_ci_low", "ratio_vs_uniform_ci_high"]
POLICY_LABELS = {
    "uniform_breadth": "uniform breadth",
    "hc_depth": "HC depth",
    "sample_then_deepen": "sample-then-deepen",
    "oracle": "oracle (clipped)",
}


def k_sample_values(sample_size: pd.DataFrame, k: int, labels: dict[str, str]) -> str:
    """The k-sample rho at k of each dataset (``labels``: dataset → its label).

    The smallest and largest over the dataset's classifiers, each with its bootstrap interval
    where it has one: ``0.44 [0.41, 0.47] (full crawl); 0.34 [0.30, 0.38] to 0.57 [0.52,
    0.61] (classified)``.
    """
    parts = []
    for dataset, label in labels.items():
        rho = nums.k_sample_rho(sample_size, dataset, k)
        if rho.empty:
            continue
        lows, highs = (
            nums.k_sample_rho(sample_size, dataset, k, column=f"spearman_rho_{end}").tolist()
            if f"spearman_rho_{end}" in sample_size
            else None
            for end in ("ci_low", "ci_high")
        )
        parts.append(f"{fmt_range_with_intervals(rho.tolist(), lows, highs)} ({label})")
    return "; ".join(parts) if parts else MISSING


def k_sample_text(sample_size, k: int) -> str:
    """``"k = 3: ρ = 0.44 [0.41, 0.47] (full crawl); … here, 0.53 in the paper"``."""
    labels = {nums.FULLCRAWL: "full crawl", nums.CLASSIFIED: "classified sample"}
    here = k_sample_values(sample_size, k, labels)
    return f"k = {k}: ρ = {versus(here, fmt_number(paper.K_SAMPLE_RHO[k]))}"


def sample_size_section(marts: Marts) -> SectionContent:
    """Fig. 4: Spearman's rho of the first k pages' HQ density against the rest's, by k."""
    sample_size = marts.frame(SAMPLE_SIZE, "select * from {mart} order by all")
    families = marts.families()
    host_sets = sorted(sample_size["host_set"].unique(), reverse=True)  # variable, fixed
    figure = charts.new_figure(8, 4.2)
    axes = figure.subplots(1, len(host_sets), sharey=True, squeeze=False)[0]
    signals = sorted(
        set(zip(sample_size["dataset"], sample_size["classifier"], strict=True)),
        key=lambda signal: (signal[0] == nums.FULLCRAWL, signal),
    )
    for axis, host_set in zip(axes, host_sets, strict=True):
        axis.axvspan(
            *paper.K_SAMPLE_PLATEAU, color=charts.PAPER_COLOUR, alpha=0.06, lw=0,
            label="paper: plateau at k ≈ 15–20",
        )  # fmt: skip
        for dataset, classifier in signals:
            line = sample_size[
                (sample_size["host_set"] == host_set)
                & (sample_size["dataset"] == dataset)
                & (sample_size["classifier"] == classifier)
            ].sort_values("sample_size")
            is_fullcrawl = dataset == nums.FULLCRAWL
            axis.plot(
                line["sample_size"],
                line["spearman_rho"],
                color="black"
                if is_fullcrawl
                else charts.classifier_colour(classifier, families.get(classifier)),
                lw=2 if is_fullcrawl else 1,
                label=f"{classifier} ({dataset})",
                zorder=3 if is_fullcrawl else 2,
            )
            bounds = line.reindex(columns=["spearman_rho_ci_low", "spearman_rho_ci_high"])
            if is_fullcrawl and len(line) and bounds.notna().all(axis=None):
                axis.fill_between(
                    line["sample_size"], bounds.iloc[:, 0], bounds.iloc[:, 1],
                    color="black", alpha=0.12, lw=0, zorder=1,
                    label="full crawl: 95% interval over hosts",
                )  # fmt: skip
        for k, rho in sorted(paper.K_SAMPLE_RHO.items()):
            axis.plot([1, k], [rho, rho], ls="--", lw=1, color=charts.PAPER_COLOUR, zorder=4)
        axis.scatter(
            list(paper.K_SAMPLE_RHO),
            list(paper.K_SAMPLE_RHO.values()),
            marker="X",
            s=50,
            color=charts.PAPER_COLOUR,
            zorder=5,
            label="paper: "
            + ", ".join(
                f"ρ = {fmt_number(rho)} at k = {k}" for k, rho in sorted(paper.K_SAMPLE_RHO.items())
            ),
        )
        hosts = sample_size[sample_size["host_set"] == host_set]["host_count"]
        axis.set_title(f"{host_set} host set ({fmt_range(hosts, 0)} hosts)")
        axis.set_xlabel("k, pages sampled per host")
        axis.set_xlim(left=1)
    axes[0].set_ylabel("Spearman's ρ, sample vs rest\n(mean over seeds)")
    charts.legend_outside(figure, axes[0], ncols=3, fontsize=7)
    figure_caption = caption(
        "Spearman's ρ of a host's first-k-page HQ density against its other pages', by k "
        "(shaded: the paper's plateau at k ≈ 15–20; grey band: the full crawl's 95% bootstrap "
        "interval over hosts; Fig. 4)",
        *(k_sample_text(sample_size, k) for k in sorted(paper.K_SAMPLE_RHO)),
    )
    return SectionContent(figures=[ReportFigure("sample_size_correlation", figure_caption, figure)])


def hc_depth_text(depth: pd.DataFrame) -> str:
    """HC depth's smallest and largest ratio to uniform breadth, with their intervals.

    And how many of its intervals (every budget below 1, every signal) hold 1×.
    """
    rows = depth.loc[nums.hc_depth_ratios(depth).index]
    lows, highs = (rows[b].tolist() if b in rows else None for b in RATIO_BOUNDS)
    text = fmt_range_with_intervals(rows["ratio_vs_uniform"].tolist(), lows, highs, 2, "ratio")
    holding, bounded = nums.hc_depth_intervals_holding_one(depth)
    if bounded:
        text += f" (95% intervals hold 1× at {holding} of {bounded} budgets × signals)"
    return text


def depth_gain_range(gains: list[nums.DepthGain], which: str) -> str:
    """The smallest and largest of the gains' ``which`` ratios, each with its interval.

    ``which`` is ``smallest`` (the smallest feasible budget) or ``largest`` (below 1).
    """
    ratios = [getattr(gain, f"{which}_ratio") for gain in gains]
    intervals = [getattr(gain, f"{which}_interval") for gain in gains]
    lows, highs = ([interval[end] for interval in intervals] for end in (0, 1))
    return fmt_range_with_intervals(ratios, lows, highs, 2, "ratio")


def depth_caption(gains: list[nums.DepthGain], hc_depth: str) -> str:
    """The depth-policy caption: sample-then-deepen at its smallest and largest budgets."""
    fullcrawl = [gain for gain in gains if gain.dataset == nums.FULLCRAWL]
    classified = [gain for gain in gains if gain.dataset == nums.CLASSIFIED]
    parts = []
    for gain in fullcrawl:
        parts.append(
            f"{fmt_interval(gain.smallest_ratio, *gain.smallest_interval, 2, 'ratio')} at its "
            f"smallest feasible budget ({fmt_share(gain.smallest_budget)}) falling to "
            f"{fmt_interval(gain.largest_ratio, *gain.largest_interval, 2, 'ratio')} at "
            f"{fmt_share(gain.largest_budget)} (full crawl)"
        )
    if classified:
        parts.append(
            f"{depth_gain_range(classified, 'smallest')} falling to "
            f"{depth_gain_range(classified, 'largest')} (classified sample)"
        )
    here = "; ".join(parts) if parts else MISSING
    return caption(
        "Expected HQ pages per fetch relative to uniform breadth, by budget (shaded: "
        "sample-then-deepen infeasible, its sample costing more than the budget; the y axis "
        "is fitted to the policies a crawler can run, the oracle clipped; bands: 95% bootstrap "
        "intervals over hosts; Fig. 5); "
        "sample-then-deepen",
        versus(
            here,
            f"up to {fmt_ratio(paper.DEPTH_RATIO_SMALL_BUDGET, 1)} at small budgets, falling to "
            f"{fmt_ratio(paper.DEPTH_RATIO_LARGE_BUDGET, 1)}",
        ),
        f"HC depth {versus(hc_depth, 'little or no gain')}",
    )


def depth_section(marts: Marts) -> SectionContent:
    """Fig. 5: depth policies against uniform breadth; null where a policy is infeasible."""
    depth = marts.frame(DEPTH, "select * from {mart} order by all")
    signals = sorted(
        set(zip(depth["dataset"], depth["classifier"], strict=True)),
        key=lambda signal: (signal[0] != nums.FULLCRAWL, signal),
    )
    policies = [p for p in DEPTH_POLICIES if p in set(depth["policy"])]
    policies += sorted(set(depth["policy"]) - set(DEPTH_POLICIES))
    figure, axes = charts.panel_grid(
        len(signals),
        row_height=2.4,
        xlabel="budget, share of pages",
        ylabel="HQ per fetch / uniform",
    )
    # One linear y range for every panel, fitted to the policies a crawler can run; the oracle
    # (up to ~11× at small budgets) would squash them near 1, so it is clipped and its maximum
    # printed instead.
    runnable = depth[depth["policy"] != "oracle"]["ratio_vs_uniform"].dropna()
    top = max(2.0, paper.DEPTH_RATIO_LARGE_BUDGET * 1.15, float(runnable.max()) * 1.15)
    bottom = min(0.8, float(runnable.min()) * 0.95) if not runnable.empty else 0.8
    for axis, (dataset, classifier) in zip(axes, signals, strict=True):
        rows = depth[(depth["dataset"] == dataset) & (depth["classifier"] == classifier)]
        for policy in policies:
            line = rows[rows["policy"] == policy].sort_values("budget_share")
            axis.plot(
                line["budget_share"],
                line["ratio_vs_uniform"],
                "--" if policy == "oracle" else "-",
                marker="." if policy == "sample_then_deepen" else None,
                color=charts.POLICY_COLOURS.get(policy),
                lw=1.6 if policy == "sample_then_deepen" else 1.2,
                label=POLICY_LABELS.get(policy, policy),
            )
            # where the policy is feasible (sample-then-deepen's sample costs the smallest)
            banded = line.dropna(subset=["ratio_vs_uniform"])
            bounds = banded.reindex(columns=RATIO_BOUNDS)
            if policy != "uniform_breadth" and bounds.notna().all(axis=None) and len(banded):
                axis.fill_between(
                    banded["budget_share"], bounds[RATIO_BOUNDS[0]], bounds[RATIO_BOUNDS[1]],
                    color=charts.POLICY_COLOURS.get(policy), lw=0,
                    alpha=0.08 if policy == "oracle" else 0.15,  # the oracle a backdrop
                )  # fmt: skip
            if policy == "oracle" and line["ratio_vs_uniform"].max() > top:
                axis.text(
                    0.98, 0.96, f"oracle ↑ up to {fmt_ratio(line['ratio_vs_uniform'].max(), 1)}",
                    transform=axis.transAxes, ha="right", va="top", fontsize=7,
                )  # fmt: skip
        cost = rows[rows["policy"] == "sample_then_deepen"]["min_feasible_budget_share"]
        if not cost.empty and cost.iloc[0] > 0:
            axis.axvspan(
                0, float(cost.iloc[0]), color="#999999", alpha=0.15, lw=0,
                label="sample-then-deepen infeasible (its sample costs more than the budget)",
            )  # fmt: skip
        axis.axhline(1, color="black", lw=0.6)
        axis.axhline(
            paper.DEPTH_RATIO_LARGE_BUDGET, color=charts.PAPER_COLOUR, lw=1, ls="--",
            label=f"paper: sample-then-deepen falls to "
            f"{fmt_ratio(paper.DEPTH_RATIO_LARGE_BUDGET, 1)} at large budgets",
        )  # fmt: skip
        axis.plot(
            [0], [top], marker="^", ms=6, color=charts.PAPER_COLOUR, clip_on=False, ls="none",
            label=f"paper: up to {fmt_ratio(paper.DEPTH_RATIO_SMALL_BUDGET, 1)} at small "
            "budgets (above the axis)",
        )  # fmt: skip
        axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}×"))
        charts.share_axis(axis, "x")
        axis.set_title(f"{classifier} ({dataset})", fontsize=8)
        axis.set_xlim(0, 1)
        axis.set_ylim(bottom, top)
    charts.legend_outside(figure, axes[0], ncols=2)

    gains = nums.depth_gains(depth)
    hc_depth = hc_depth_text(depth)
    header = ("dataset", "classifier", "sample cost", "smallest feasible", "ratio", "peak")
    header += ("at budget", "largest budget < 1", "ratio")
    rows = [
        (
            gain.dataset,
            gain.classifier,
            fmt_share(gain.min_feasible_budget_share),
            fmt_share(gain.smallest_budget),
            fmt_interval(gain.smallest_ratio, *gain.smallest_interval, 2, "ratio"),
            fmt_ratio(gain.peak_ratio),
            fmt_share(gain.peak_budget),
            fmt_share(gain.largest_budget),
            fmt_interval(gain.largest_ratio, *gain.largest_interval, 2, "ratio"),
        )
        for gain in gains
    ]
    hosts = depth.groupby("dataset")["host_count"].max()
    table = ReportTable(
        caption(
            "Sample-then-deepen against uniform breadth (budgets as shares of the pages; "
            + ", ".join(f"{d}: {fmt_count(n)} hosts" for d, n in hosts.items())
            + ")"
        ),
        header,
        rows,
    )
    return SectionContent(
        figures=[ReportFigure("depth_policy_curves", depth_caption(gains, hc_depth), figure)],
        tables=[table],
    )
