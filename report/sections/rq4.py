"""RQ4: what Common Crawl's allocation leaves uncrawled, and where."""

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
    fmt_number,
    fmt_range,
    fmt_row_interval,
    fmt_share,
    fmt_signed,
    versus,
)
from report.marts import Marts, sql_string

SUMMARY = "rpt_uncrawled_hq_summary"
BANDS = "rpt_uncrawled_hq_by_coverage_band"
COVERAGE_QUALITY = "rpt_coverage_quality_correlation"
RHO_CI_COLUMNS = ("spearman_rho_ci_low", "spearman_rho_ci_high")
MISSED_TLD = "rpt_missed_hq_by_tld"
HIDDEN_GEMS = "rpt_hidden_gems"

HIDDEN_GEMS_SHOWN = 25
TLDS_SHOWN = 15
PAPER_COVERAGE_RANGE = fmt_range(paper.COVERAGE_QUALITY_RHO_RANGE, 3, "signed")
# The candidate "under-crawled" host sets of rpt_uncrawled_hq_summary (docs/definitions.md A12).
HOST_SET_COLOURS = ("#08519c", "#6baed6", "#31a354", "#fd8d3c")
HOST_SETS = (
    ("low coverage (< 20%)", "low_coverage_host_count", "low_coverage_hq_share"),
    ("below-median coverage", "below_median_coverage_host_count", "below_median_coverage_hq_share"),
    ("hidden gems", "hidden_gem_count", "hidden_gem_hq_share"),
    ("low coverage with HQ", "low_coverage_with_hq_host_count", "low_coverage_with_hq_hq_share"),
)


def _main_crawl(marts: Marts, mart: str) -> str:
    crawls = marts.frame(mart, "select distinct crawl from {mart} where crawl is not null")
    return marts.rq4_crawl(mart, crawls["crawl"])


# ----------------------------------------------------------------------- totals per crawl


def uncrawled_text(row: pd.Series) -> str:
    """A crawl's estimated uncrawled HQ pages, with its bootstrap interval when it has one."""
    return fmt_row_interval(row, "total_est_uncrawled_hq", 0, "count")


def low_coverage_text(row: pd.Series) -> str:
    """The low-coverage hosts' share of them, with its bootstrap interval when it has one."""
    return fmt_row_interval(row, "low_coverage_hq_share", 0, "share")


def summary_section(marts: Marts) -> SectionContent:
    """Estimated uncrawled HQ pages per crawl, and the shares of the under-crawled host sets."""
    summary = marts.frame(SUMMARY, "select * from {mart} order by crawl")
    crawl = marts.rq4_crawl(SUMMARY, summary["crawl"])
    main = summary[summary["crawl"] == crawl].iloc[0]
    figure = charts.new_figure(8, 3.8)
    left, right = figure.subplots(1, 2, width_ratios=[1, 1.4])
    left.bar(
        summary["crawl"],
        summary["total_est_uncrawled_hq"],
        color=["#08519c" if c == crawl else "#9ecae1" for c in summary["crawl"]],
        width=0.6,
    )
    # the bootstrap intervals (null when the build turned them off)
    bounds = [f"total_est_uncrawled_hq_{end}" for end in ("ci_low", "ci_high")]
    if set(bounds) <= set(summary.columns) and summary[bounds].notna().all(axis=None):
        total = summary["total_est_uncrawled_hq"].astype(float)
        left.errorbar(
            range(len(summary)),
            total,
            yerr=[total - summary[bounds[0]], summary[bounds[1]] - total],
            fmt="none",
            ecolor="#333333",
            elinewidth=0.8,
            capsize=2,
        )
    left.set_xticks(range(len(summary)), summary["crawl"], rotation=30, ha="right")
    left.grid(axis="x", visible=False)
    left.set_ylabel("estimated uncrawled HQ pages")
    left.yaxis.set_major_formatter(FuncFormatter(lambda value, _: fmt_count(value)))
    left.set_title(f"paper: {fmt_count(paper.UNCRAWLED_HQ_PAGES)} in {paper.RQ4_CRAWL}", fontsize=8)
    charts.grouped_bars(
        right,
        list(summary["crawl"]),
        {label: summary[share].tolist() for label, _, share in HOST_SETS},
        colours=dict(zip([label for label, _, _ in HOST_SETS], HOST_SET_COLOURS, strict=True)),
    )
    for value, text in (
        (paper.LOW_COVERAGE_HQ_SHARE, "paper: half on hosts crawled < 20%"),
        (
            paper.UNDER_CRAWLED_HQ_SHARE,
            f"paper: {fmt_share(paper.UNDER_CRAWLED_HQ_SHARE)} on "
            f"{fmt_count(paper.UNDER_CRAWLED_HOST_COUNT)} “under-crawled” hosts",
        ),
    ):
        right.axhline(value, color=charts.PAPER_COLOUR, lw=1, ls="--")
        right.text(
            0.99, value + 0.015, text, transform=right.get_yaxis_transform(), ha="right",
            va="bottom", fontsize=7, color=charts.PAPER_COLOUR,
        )  # fmt: skip
    right.set_ylim(0, 1)
    charts.share_axis(right)
    right.set_ylabel("share of the uncrawled HQ pages")
    right.legend(loc="upper left", fontsize=7, ncols=2, bbox_to_anchor=(0, 1.22), frameon=False)
    figure_caption = caption(
        "Estimated HQ pages among known but unfetched URLs per crawl (known − fetched, times the "
        f"host's HQ density; bars: 95% bootstrap intervals over hosts), and where they sit; "
        f"{crawl}",
        versus(uncrawled_text(main), fmt_count(paper.UNCRAWLED_HQ_PAGES)),
        "on hosts crawled below 20%: " + versus(low_coverage_text(main), "about half"),
    )
    header = ("crawl", "analysed hosts", "uncrawled HQ", "median coverage")
    header += tuple(f"{label}: hosts, share" for label, _, _ in HOST_SETS)
    rows = [
        (
            row["crawl"],
            fmt_count(row["analysed_host_count"]),
            uncrawled_text(row),
            fmt_share(row["coverage_median"]),
            f"{fmt_count(row[HOST_SETS[0][1]])}, {low_coverage_text(row)}",
            *(
                f"{fmt_count(row[count])}, {fmt_share(row[share])}"
                for _, count, share in HOST_SETS[1:]
            ),
        )
        for _, row in summary.iterrows()
    ]
    table = ReportTable(
        caption(
            "Uncrawled HQ pages per crawl and the candidate under-crawled host sets "
            "(docs/definitions.md A12); "
            f"the paper puts {fmt_share(paper.UNDER_CRAWLED_HQ_SHARE)} on "
            f"{fmt_count(paper.UNDER_CRAWLED_HOST_COUNT)} under-crawled hosts without defining "
            f"them; here in {crawl}",
            ", ".join(
                f"{label} {fmt_share(main[share])} on {fmt_count(main[count])} hosts"
                for label, count, share in HOST_SETS
            ),
        ),
        header,
        rows,
    )
    return SectionContent(
        figures=[ReportFigure("uncrawled_hq_summary", figure_caption, figure)], tables=[table]
    )


# ----------------------------------------------------------------------- Fig. 7


def coverage_band_section(marts: Marts) -> SectionContent:
    """Fig. 7: estimated uncrawled HQ pages by coverage band."""
    bands = marts.frame(BANDS, "select * from {mart} order by crawl, coverage_band_lower")
    crawl = marts.rq4_crawl(BANDS, bands["crawl"])
    figure = charts.new_figure(8, 3.2)
    axis = figure.add_subplot()
    for other in sorted(set(bands["crawl"]) - {crawl}):
        rows = bands[bands["crawl"] == other]
        axis.plot(
            rows["coverage_band_lower"] + 0.05,
            rows["hq_share"],
            color="#bbbbbb",
            lw=0.8,
            marker=".",
        )
    rows = bands[bands["crawl"] == crawl]
    axis.bar(
        rows["coverage_band_lower"] + 0.05, rows["hq_share"], width=0.09, label=crawl,
        color="#1f77b4",
    )  # fmt: skip
    axis.plot([], [], color="#bbbbbb", lw=0.8, marker=".", label="other crawls")
    below = rows[rows["coverage_band_upper"] <= paper.LOW_COVERAGE_THRESHOLD + 1e-9]["hq_share"]
    low_share = below.sum() if not rows.empty else None
    axis.axvline(
        paper.LOW_COVERAGE_THRESHOLD, color=charts.PAPER_COLOUR, lw=1, ls="--",
        label=f"paper: about half below {fmt_share(paper.LOW_COVERAGE_THRESHOLD)} coverage "
        f"({fmt_share(low_share)} here)",
    )  # fmt: skip
    axis.set_xlim(0, 1)
    charts.share_axis(axis, "x")
    charts.share_axis(axis, "y")
    axis.set_xlabel("host coverage (fetched / known URLs), bands of 10 points")
    axis.set_ylabel("share of the crawl's\nuncrawled HQ pages")
    charts.legend_outside(figure, axis, ncols=3)
    figure_caption = caption(
        f"Estimated uncrawled HQ pages by host coverage band, {crawl} (Fig. 7); on hosts "
        "crawled below 20%",
        versus(fmt_share(low_share), "about half"),
    )
    return SectionContent(
        figures=[ReportFigure("uncrawled_hq_by_coverage_band", figure_caption, figure)]
    )


# ----------------------------------------------------------------------- Table 1, Figs. 8, 10


def coverage_rho_text(
    coverage: pd.DataFrame, crawl: str | None, signal: str, min_pages: int
) -> str:
    """``coverage_rho`` signed to 3 digits, with its bootstrap interval when the mart has one."""
    rows = coverage[
        (coverage["crawl"] == crawl)
        & (coverage["signal"] == signal)
        & (coverage["min_annotated_pages"] == min_pages)
    ]
    if rows.empty:
        return MISSING
    return fmt_row_interval(rows.iloc[0], "spearman_rho", 3, "signed")


def coverage_quality_section(marts: Marts) -> SectionContent:
    """Table 1 / Figs. 8, 10: Spearman's rho of coverage against quality, per crawl."""
    coverage = marts.frame(COVERAGE_QUALITY, "select * from {mart} order by all")
    crawl = marts.rq4_crawl(COVERAGE_QUALITY, coverage["crawl"])
    gneissweb = nums.annotation_signal(coverage)
    minimums = sorted(coverage["min_annotated_pages"].unique())
    signals = sorted(coverage["signal"].unique(), key=lambda s: (s != gneissweb, s))

    main = coverage[coverage["crawl"] == crawl]
    minimum_labels = {m: f"≥ {m} annotated {'page' if m == 1 else 'pages'}" for m in minimums}
    minimum_colours = dict(
        zip(minimum_labels.values(), charts.shades(len(minimums), "Greens"), strict=True)
    )
    figure = charts.new_figure(8, 3.8)
    axis = figure.add_subplot()
    wide = main.pivot(index="signal", columns="min_annotated_pages", values="spearman_rho")
    wide = wide.reindex(index=signals, columns=minimums)
    # the bootstrap intervals (null when the build turned them off)
    bounds = {
        column: main.pivot(index="signal", columns="min_annotated_pages", values=column).reindex(
            index=signals, columns=minimums
        )
        for column in RHO_CI_COLUMNS
        if column in main
    }
    charts.grouped_bars(
        axis,
        signals,
        {minimum_labels[m]: wide[m].tolist() for m in minimums},
        colours=minimum_colours,
        intervals={
            minimum_labels[m]: tuple(bounds[column][m].tolist() for column in RHO_CI_COLUMNS)
            for m in minimums
        }
        if len(bounds) == 2
        else None,
    )
    # The paper's values where they apply: GneissWeb's line over its group, the classifiers'
    # band over theirs.
    if gneissweb in signals:
        position = signals.index(gneissweb)
        axis.hlines(
            paper.COVERAGE_QUALITY_RHO, position - 0.45, position + 0.45,
            color=charts.PAPER_COLOUR, lw=1.5, ls="--", zorder=4,
            label=f"paper: GneissWeb {fmt_signed(paper.COVERAGE_QUALITY_RHO)}",
        )  # fmt: skip
    others_at = [index for index, signal in enumerate(signals) if signal != gneissweb]
    if others_at:
        axis.fill_between(
            [min(others_at) - 0.5, max(others_at) + 0.5],
            -paper.OTHER_CLASSIFIERS_ABS_RHO_MAX,
            paper.OTHER_CLASSIFIERS_ABS_RHO_MAX,
            color=charts.PAPER_COLOUR,
            alpha=charts.PAPER_BAND_ALPHA,
            lw=0,
            zorder=0,
            label=f"paper: classifiers |ρ| ≤ {paper.OTHER_CLASSIFIERS_ABS_RHO_MAX}",
        )
    axis.axhline(0, color="black", lw=0.6)
    axis.set_xlim(-0.5, len(signals) - 0.5)
    axis.set_ylabel("Spearman's ρ,\nhost coverage vs quality")
    charts.legend_outside(figure, axis, ncols=3)
    gneissweb_rhos = ", ".join(
        f"{coverage_rho_text(coverage, crawl, gneissweb, m)} (≥ {m})" for m in minimums
    )
    others = main[main["signal"] != gneissweb]["spearman_rho"].abs()
    by_signal_caption = caption(
        f"Spearman's ρ of host coverage against quality per signal, {crawl}, on hosts with at "
        "least 1, 3 or 10 annotated pages (Table 1, Fig. 8; bars: 95% bootstrap intervals over "
        "hosts); GneissWeb",
        versus(gneissweb_rhos, fmt_signed(paper.COVERAGE_QUALITY_RHO)),
        "the classifiers' |ρ|: "
        + versus(
            f"≤ {fmt_number(others.max(), 3)}" if not others.empty else MISSING,
            f"≤ {fmt_number(paper.OTHER_CLASSIFIERS_ABS_RHO_MAX)}",
        ),
    )

    series = coverage[coverage["signal"] == gneissweb]
    crawls = sorted(series["crawl"].unique())
    figure_crawls = charts.new_figure(8, 3.4)
    axis = figure_crawls.add_subplot()
    charts.paper_band(
        axis, *paper.COVERAGE_QUALITY_RHO_RANGE, label=f"paper: {PAPER_COVERAGE_RANGE}, six crawls"
    )
    for minimum in minimums:
        line = series[series["min_annotated_pages"] == minimum].set_index("crawl").reindex(crawls)
        label = minimum_labels[minimum]
        axis.plot(
            crawls, line["spearman_rho"], marker="o", color=minimum_colours[label], label=label
        )
        if set(RHO_CI_COLUMNS) <= set(line.columns) and line[list(RHO_CI_COLUMNS)].notna().any(
            axis=None
        ):
            axis.fill_between(
                crawls,
                line[RHO_CI_COLUMNS[0]].astype(float),
                line[RHO_CI_COLUMNS[1]].astype(float),
                color=minimum_colours[label],
                alpha=0.2,
                lw=0,
            )
    axis.axhline(0, color="black", lw=0.6)
    axis.set_xticks(range(len(crawls)), crawls, rotation=30, ha="right")
    axis.set_ylabel("Spearman's ρ, host coverage\nvs GneissWeb HQ density")
    charts.legend_outside(figure_crawls, axis, ncols=4)
    by_crawl = "; ".join(
        fmt_range(series[series["min_annotated_pages"] == m]["spearman_rho"], 3, "signed")
        + f" (≥ {m} annotated {'page' if m == 1 else 'pages'})"
        for m in minimums
    )
    by_crawl_caption = caption(
        f"Spearman's ρ of host coverage against GneissWeb HQ density per crawl (Fig. 10; bands: "
        f"95% bootstrap intervals over hosts), {len(crawls)} crawls",
        versus(by_crawl, f"{PAPER_COVERAGE_RANGE} over six crawls"),
    )
    return SectionContent(
        figures=[
            ReportFigure("coverage_quality_by_signal", by_signal_caption, figure),
            ReportFigure("coverage_quality_by_crawl", by_crawl_caption, figure_crawls),
        ]
    )


# ----------------------------------------------------------------------- Fig. 11


def uk_text(shares, crawl: str | None) -> str:
    """``.uk``'s share of the missed HQ pages and of the hosts, beside the paper's."""
    uk = shares[shares["tld"] == "uk"]
    here = (
        f"{fmt_share(uk['missed_share'].iloc[0])} from {fmt_share(uk['host_share'].iloc[0], 1)} "
        "of hosts"
        if not uk.empty
        else f"no .uk host in {crawl}"
    )
    return "the .uk hosts hold " + versus(
        here,
        f"{fmt_share(paper.UK_MISSED_SHARE)} from {fmt_share(paper.UK_HOST_SHARE, 1)} of hosts",
    )


def missed_tld_section(marts: Marts) -> SectionContent:
    """Fig. 11: the missed HQ pages by top-level domain against the TLD's share of hosts."""
    missed = marts.frame(MISSED_TLD, "select * from {mart} order by all")
    crawl = marts.rq4_crawl(MISSED_TLD, missed["crawl"])
    shares = nums.tld_shares(missed, crawl)
    shown = shares.head(TLDS_SHOWN).iloc[::-1]
    figure = charts.new_figure(8, 0.28 * len(shown) + 1.4)
    axis = figure.add_subplot()
    positions = range(len(shown))
    axis.barh(
        [p + 0.2 for p in positions], shown["missed_share"], height=0.4, color="#1f77b4",
        label="share of the estimated uncrawled HQ pages",
    )  # fmt: skip
    axis.barh(
        [p - 0.2 for p in positions], shown["host_share"], height=0.4, color="#aec7e8",
        label="share of the analysed hosts",
    )  # fmt: skip
    tlds = list(shown["tld"])
    if "uk" in tlds:
        position = tlds.index("uk")
        axis.scatter(
            [paper.UK_MISSED_SHARE, paper.UK_HOST_SHARE], [position + 0.2, position - 0.2],
            marker="|", s=160, linewidths=2, color=charts.PAPER_COLOUR, zorder=5,
            label=f"paper: .uk {fmt_share(paper.UK_MISSED_SHARE)} of uncrawled HQ, "
            f"{fmt_share(paper.UK_HOST_SHARE, 1)} of hosts",
        )  # fmt: skip
    axis.set_yticks(list(positions), ["." + tld for tld in shown["tld"]])
    axis.grid(axis="y", visible=False)
    charts.share_axis(axis, "x")
    axis.set_xlabel(f"share of {crawl}'s analysed hosts / of its estimated uncrawled HQ pages")
    axis.legend(loc="lower right")
    figure_caption = caption(
        f"Estimated uncrawled HQ pages by top-level domain against its share of hosts, {crawl}, "
        f"the {len(shown)} largest (Fig. 11)",
        uk_text(shares, crawl),
    )
    return SectionContent(figures=[ReportFigure("missed_hq_by_tld", figure_caption, figure)])


# ----------------------------------------------------------------------- hidden gems


def hidden_gems_section(marts: Marts) -> SectionContent:
    """The hidden gems with the most estimated uncrawled HQ pages (a table)."""
    crawl = _main_crawl(marts, HIDDEN_GEMS)
    quoted = sql_string(crawl or "")
    gems = marts.frame(
        HIDDEN_GEMS,
        "select * from {mart} where crawl = " + quoted + " order by gem_rank, surt_host_name "
        f"limit {HIDDEN_GEMS_SHOWN}",
    )
    counts = marts.frame(
        HIDDEN_GEMS,
        "select count(*) as gem_count, sum(est_uncrawled_hq) as est_uncrawled_hq "
        "from {mart} where crawl = " + quoted,
    ).iloc[0]
    header = ("rank", "host", "TLD", "known URLs", "fetched", "coverage", "annotated", "HQ")
    header += ("HQ density", "uncrawled HQ")
    rows = [
        (
            str(row.gem_rank),
            row.surt_host_name,
            row.url_host_tld or "",
            fmt_count(row.known_url_count),
            fmt_count(row.fetched_url_count),
            fmt_share(row.coverage_rate),
            fmt_count(row.annotated_page_count),
            fmt_count(row.hq_page_count),
            fmt_number(row.hq_density, 2),
            fmt_number(row.est_uncrawled_hq, 1),
        )
        for row in gems.itertuples()
    ]
    table = ReportTable(
        caption(
            f"Hidden gems of {crawl} (below-median coverage, top-decile HQ density; "
            "docs/definitions.md §2.1), "
            f"the top {len(rows)} of {fmt_count(counts['gem_count'])} by estimated uncrawled HQ "
            f"pages ({fmt_count(round(counts['est_uncrawled_hq'], 1))} in all)"
        ),
        header,
        rows,
    )
    return SectionContent(tables=[table])
