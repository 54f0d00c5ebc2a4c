"""The crawl plan: where the next crawl's fetches go, whom it reaches, what its constraints cost."""

from __future__ import annotations

import pandas as pd
from matplotlib.patches import Patch

from report import charts
from report.content import ReportFigure, ReportTable, SectionContent
from report.formatting import (
    MISSING,
    caption,
    fmt_count,
    fmt_number,
    fmt_range,
    fmt_ratio,
    fmt_row_interval,
    fmt_share,
)
from report.marts import Marts

FETCH_BUDGET = "plan_host_fetch_budget"
DIVERSITY = "plan_diversity"
CONSTRAINT_COSTS = "plan_constraint_costs"
CHANGES = "plan_changes"

# plan_changes' reasons, in the order the model tries them, with their labels
CHANGE_REASONS = {
    "unchanged": "unchanged",
    "blocked": "robots.txt now fails",
    "unblocked": "robots.txt no longer fails",
    "newly_known": "newly known",
    "no_longer_known": "no longer known",
    "deepened": "sampled, now deepened",
    "sampled_not_deepened": "sampled, below the hosts taken",
    "sampled": "sampled now",
    "known_urls_changed": "known URLs changed",
    "reallocated": "budget moved around it",
}
# Aggregated in SQL: a row per host of either crawl's host index.
CHANGE_TOTALS_SQL = """
    select
        change_reason,
        any_value(crawl_before) filter (where crawl_before is not null) as crawl_before,
        any_value(crawl_after) filter (where crawl_after is not null) as crawl_after,
        count(*) as host_count,
        count(*) filter (where page_change > 0) as gained_host_count,
        count(*) filter (where page_change < 0) as lost_host_count,
        sum(pages_before)::double as pages_before,
        sum(pages_after)::double as pages_after,
        sum(expected_hq_after) - sum(expected_hq_before) as expected_hq_change
    from {mart}
    group by change_reason
"""

# plan_constraint_costs' rows, in the order shown, with their labels
SCENARIOS = {
    "unconstrained": "no constraint",
    "robots_only": "robots.txt only",
    "politeness_cap_only": "politeness cap only",
    "floors_only": "floors only",
    "plan": "the plan (all)",
}

PHASES = ("sample", "deepen", "explore", "skip")
PAGE_KINDS = ("pages_sampled", "pages_deepened", "pages_explored")
# Each phase keeps its colour in both panels; the kind of page is the hatching.
KIND_HATCHES = {"pages_sampled": "", "pages_deepened": "////", "pages_explored": "...."}
SHARE_COLOURS = ("#969696", "#9ecae1", "#3182bd", "#31a354")
# Aggregated in SQL: at paper scale the plan has a row per host of the host index (millions).
PHASE_TOTALS_SQL = """
    select
        phase,
        count(*) as host_count,
        sum(known_url_count)::double as known_url_count,
        sum(pages_sampled)::double as pages_sampled,
        sum(pages_deepened)::double as pages_deepened,
        sum(pages_explored)::double as pages_explored,
        sum(pages_to_fetch)::double as pages_to_fetch,
        sum(expected_hq) as expected_hq
    from {mart}
    group by phase
"""


def phase_totals(marts: Marts) -> pd.DataFrame:
    """Hosts, known URLs, pages of each kind and expected HQ per phase of the plan."""
    totals = marts.frame(FETCH_BUDGET, PHASE_TOTALS_SQL)
    order = {phase: index for index, phase in enumerate(PHASES)}
    totals["order"] = totals["phase"].map(lambda phase: order.get(phase, len(order)))
    return totals.sort_values(["order", "phase"]).drop(columns="order").reset_index(drop=True)


def plan_caption(totals: pd.DataFrame) -> str:
    """The plan figure's caption: its pages by kind and the HQ pages it expects."""
    pages = {kind: totals[kind].sum() for kind in PAGE_KINDS}
    fetched = totals[totals["pages_to_fetch"] > 0]["host_count"].sum()
    return caption(
        f"The crawl plan's {fmt_count(totals['pages_to_fetch'].sum())} pages over "
        f"{fmt_count(fetched)} of {fmt_count(totals['host_count'].sum())} hosts, by phase "
        "(the paper gives no plan)",
        f"{fmt_count(pages['pages_sampled'])} sampled, {fmt_count(pages['pages_deepened'])} "
        f"deepened, {fmt_count(pages['pages_explored'])} explored",
        f"expected HQ pages {fmt_count(round(totals['expected_hq'].sum(), 1))}",
    )


def fetch_budget_section(marts: Marts) -> SectionContent:
    """The plan's pages and hosts by phase."""
    totals = phase_totals(marts)
    figure = charts.new_figure(8, 3.2)
    left, right = figure.subplots(1, 2)
    phases = list(totals["phase"])
    colours = [charts.PHASE_COLOURS.get(phase, "#555555") for phase in phases]
    left.bar(phases, totals["host_count"], color=colours)
    left.set_ylabel("hosts")
    left.set_title("hosts by phase")
    left.grid(axis="x", visible=False)
    bottom = [0.0] * len(totals)
    for kind in PAGE_KINDS:
        right.bar(
            phases, totals[kind], bottom=bottom, color=colours, edgecolor="white", lw=0.6,
            hatch=KIND_HATCHES[kind],
        )  # fmt: skip
        bottom = [b + v for b, v in zip(bottom, totals[kind], strict=True)]
    right.set_ylabel("pages to fetch")
    right.set_title("pages by phase")
    right.grid(axis="x", visible=False)
    right.legend(
        handles=[
            Patch(facecolor="#999999", edgecolor="white", hatch=KIND_HATCHES[kind], label=label)
            for kind, label in zip(PAGE_KINDS, ("sampled", "deepened", "explored"), strict=True)
        ],
        loc="upper right",
        title="pages",
    )
    header = ("phase", "hosts", "known URLs", "sampled", "deepened", "explored", "pages")
    header += ("expected HQ", "HQ per page")
    rows = [
        (
            row.phase,
            fmt_count(row.host_count),
            fmt_count(row.known_url_count),
            fmt_count(row.pages_sampled),
            fmt_count(row.pages_deepened),
            fmt_count(row.pages_explored),
            fmt_count(row.pages_to_fetch),
            fmt_number(row.expected_hq, 1),
            fmt_number(row.expected_hq / row.pages_to_fetch, 3) if row.pages_to_fetch else "",
        )
        for row in totals.itertuples()
    ]
    return SectionContent(
        figures=[ReportFigure("plan_pages_by_phase", plan_caption(totals), figure)],
        tables=[ReportTable("The crawl plan by phase.", header, rows)],
    )


def diversity_section(marts: Marts) -> SectionContent:
    """The plan's language and TLD-category representation against the host population."""
    diversity = marts.frame(DIVERSITY, "select * from {mart} order by dimension, dimension_value")
    dimensions = sorted(diversity["dimension"].unique())
    figure = charts.new_figure(8, 3.6)
    axes = figure.subplots(1, len(dimensions), squeeze=False, width_ratios=None)[0]
    columns = {
        "population hosts": "population_host_share",
        "plan hosts": "plan_host_share",
        "plan pages": "plan_page_share",
        "expected HQ": "expected_hq_share",
    }
    for axis, dimension in zip(axes, dimensions, strict=True):
        rows = diversity[diversity["dimension"] == dimension]
        charts.grouped_bars(
            axis,
            [str(value).replace("_", " ") for value in rows["dimension_value"]],
            {label: rows[column].tolist() for label, column in columns.items()},
            colours=dict(zip(columns, SHARE_COLOURS, strict=True)),
        )
        axis.set_title(dimension.replace("_", " "))
        axis.set_ylim(0, 1)
        charts.share_axis(axis)
    axes[0].set_ylabel("share of the total")
    charts.legend_outside(figure, axes[0], ncols=4)
    figure_caption = caption(
        "The plan's hosts, pages and expected HQ pages by primary language and TLD category, "
        "against the host population",
        "representation ratio (plan's host share / population's) "
        + fmt_range(diversity["representation_ratio"], 2, "ratio"),
    )
    header = ("dimension", "value", "population hosts", "share", "plan hosts", "share")
    header += ("plan pages", "share", "expected HQ share", "representation", "floor")
    rows = [
        (
            row.dimension,
            str(row.dimension_value),
            fmt_count(row.population_host_count),
            fmt_share(row.population_host_share, 1),
            fmt_count(row.plan_host_count),
            fmt_share(row.plan_host_share, 1),
            fmt_count(row.plan_page_count),
            fmt_share(row.plan_page_share, 1),
            fmt_share(row.expected_hq_share, 1),
            fmt_ratio(row.representation_ratio),
            _floor(row.floor_share, row.floor_page_count, row.is_floor_met),
        )
        for row in diversity.itertuples()
    ]
    return SectionContent(
        figures=[ReportFigure("plan_diversity", figure_caption, figure)],
        tables=[ReportTable("The plan against the population.", header, rows)],
    )


def _floor(share: float, pages: float, is_met: object) -> str:
    """A group's floor in the diversity table: its share and pages, and whether it is met."""
    if pd.isna(share):
        return ""
    verdict = "met" if is_met is True or is_met == 1 else "not met: too few pages"
    return f"{fmt_share(share, 1)} ({fmt_count(pages)} pages, {verdict})"


def expected_hq_error(costs: pd.DataFrame) -> list[list[float]] | None:
    """Error bars of plan_constraint_costs' expected HQ: below and above, from its interval.

    None when the build has no intervals (the bootstrap off, or no host of known quality).
    """
    bounds = costs.reindex(columns=["expected_hq_ci_low", "expected_hq_ci_high"])
    if bounds.isna().any(axis=None):
        return None
    return [
        (costs["expected_hq"] - bounds["expected_hq_ci_low"]).tolist(),
        (bounds["expected_hq_ci_high"] - costs["expected_hq"]).tolist(),
    ]


def plan_expected_hq(marts: Marts) -> str:
    """The plan's expected HQ pages with their interval (plan_constraint_costs' plan row)."""
    costs = marts.frame(CONSTRAINT_COSTS, "select * from {mart} where scenario = 'plan'")
    if costs.empty:
        return MISSING
    return fmt_row_interval(costs.iloc[0], "expected_hq", 1, "count")


def constraints_section(marts: Marts) -> SectionContent:
    """What each of the plan's constraints costs in expected HQ pages, on the same budget."""
    costs = marts.frame(CONSTRAINT_COSTS, "select * from {mart}")
    order = {scenario: index for index, scenario in enumerate(SCENARIOS)}
    costs = costs.assign(order=costs["scenario"].map(order)).sort_values("order")
    labels = [SCENARIOS.get(scenario, scenario) for scenario in costs["scenario"]]
    figure = charts.new_figure(8, 2.8)
    axis = figure.subplots()
    colours = ["#3182bd" if scenario == "plan" else "#9ecae1" for scenario in costs["scenario"]]
    axis.barh(labels, costs["expected_hq"], color=colours, xerr=expected_hq_error(costs))
    axis.invert_yaxis()
    axis.set_xlabel("expected HQ pages")
    axis.grid(axis="y", visible=False)
    for position, (hq, cost) in enumerate(
        zip(costs["expected_hq"], costs["expected_hq_cost"], strict=True)
    ):
        note = fmt_number(hq, 1) + (
            "" if pd.isna(cost) or cost == 0 else f" (−{fmt_number(cost, 1)})"
        )
        axis.annotate(note, (hq, position), xytext=(4, 0), textcoords="offset points", va="center")
    plan = costs[costs["scenario"] == "plan"].iloc[0]
    figure_caption = caption(
        f"Expected HQ pages of the crawl plan on its budget of {fmt_count(plan['budget_pages'])} "
        "pages, without its constraints, with each alone, and with all (the paper has none; "
        "bars: 95% intervals of the expected value, the plan fixed)",
        "the difference from no constraint is what a constraint costs in yield"
        if len(costs) > 1
        else "plan_constraint_costs was false: the plan without its constraints was not computed",
    )
    header = ("plan", "hosts", "pages", "expected HQ", "HQ per page", "cost (HQ pages)")
    header += ("robots.txt: hosts out", "reduced", "capped hosts", "floor pages")
    rows = [
        (
            SCENARIOS.get(row.scenario, row.scenario),
            fmt_count(row.plan_host_count),
            fmt_count(row.plan_page_count),
            fmt_row_interval(row._asdict(), "expected_hq", 1),
            fmt_number(row.expected_hq_share, 3) if not pd.isna(row.expected_hq_share) else "",
            fmt_number(row.expected_hq_cost, 1) if not pd.isna(row.expected_hq_cost) else "",
            fmt_count(row.robots_excluded_host_count),
            fmt_count(row.robots_reduced_host_count),
            fmt_count(row.capped_host_count),
            fmt_count(row.floor_reserved_page_count),
        )
        for row in costs.itertuples()
    ]
    table_caption = "What the plan's constraints cost."
    if not pd.isna(plan["page_cap"]):
        table_caption += (
            f" The politeness cap: at most {fmt_count(plan['page_cap'])} pages a host, one fetch "
            f"every {fmt_number(plan['page_cap_crawl_delay_seconds'], 1)} s over the crawl."
        )
    return SectionContent(
        figures=[ReportFigure("plan_constraint_costs", figure_caption, figure)],
        tables=[ReportTable(table_caption, header, rows)],
    )


def changes_section(marts: Marts) -> SectionContent:
    """The plan against the previous crawl's: hosts and pages by why they moved."""
    totals = marts.frame(CHANGES, CHANGE_TOTALS_SQL)
    order = {reason: index for index, reason in enumerate(CHANGE_REASONS)}
    totals = totals.assign(order=totals["change_reason"].map(order)).sort_values("order")
    labels = [CHANGE_REASONS.get(reason, reason) for reason in totals["change_reason"]]
    moved = totals["pages_after"] - totals["pages_before"]
    figure = charts.new_figure(8, 3.2)
    axis = figure.subplots()
    axis.barh(labels, moved, color=["#31a354" if value >= 0 else "#de2d26" for value in moved])
    axis.axvline(0, color="#333333", lw=0.8)
    axis.invert_yaxis()
    axis.set_xlabel("pages gained (+) or lost (−) against the previous crawl's plan")
    axis.grid(axis="y", visible=False)
    before = totals["crawl_before"].dropna()
    after = totals["crawl_after"].dropna()
    crawls = f"{before.iloc[0] if len(before) else '?'} → {after.iloc[0] if len(after) else '?'}"
    figure_caption = caption(
        f"The crawl plan against the previous crawl's ({crawls}), planned as it would have "
        "been then, by why each host's pages moved (the paper gives no plan)",
        f"{fmt_count(totals['host_count'].sum())} hosts, "
        f"{fmt_count(moved.abs().sum() / 2)} pages moved",
    )
    header = ("why", "hosts", "more pages", "fewer pages", "pages before", "pages after")
    header += ("expected HQ change",)
    rows = [
        (
            label,
            fmt_count(row.host_count),
            fmt_count(row.gained_host_count),
            fmt_count(row.lost_host_count),
            fmt_count(row.pages_before),
            fmt_count(row.pages_after),
            fmt_number(row.expected_hq_change, 1),
        )
        for label, row in zip(labels, totals.itertuples(), strict=True)
    ]
    return SectionContent(
        figures=[ReportFigure("plan_changes", figure_caption, figure)],
        tables=[ReportTable("The plan against the previous crawl's.", header, rows)],
    )
