"""RQ1 and the appendix tables: host-level quality, centrality, language, agreement, ranks."""

from __future__ import annotations

import math

import pandas as pd

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
    fmt_signed,
    versus,
)
from report.marts import Marts

ICC = "rpt_host_quality_icc"
CI_COLUMNS = ("icc1_ci_low", "icc1_ci_high")
RHO_CI_COLUMNS = ("spearman_rho_ci_low", "spearman_rho_ci_high")
CENTRALITY = "rpt_centrality_quality_correlations"
SCORE_BY_LANGUAGE = "rpt_score_by_language"
AGREEMENT = "rpt_classifier_agreement"
RANK_STABILITY = "rpt_graph_rank_stability"

PAPER_ICC = fmt_range(paper.ICC1_RANGE)
PAPER_CENTRALITY = fmt_range(paper.CENTRALITY_SPEARMAN_RANGE, 3, "signed")
PAPER_RANK_STABILITY = fmt_range(paper.RANK_STABILITY_RANGE, 3)


def _value(value: float | None, digits: int = 2) -> str:
    return MISSING if value is None else fmt_signed(value, digits)


def _stratum_label(stratum: str) -> str:
    """``all`` → ``pooled (all hosts)``, ``non_english`` → ``non-English-primary hosts``."""
    if stratum == "all":
        return "pooled (all hosts)"
    return {"english": "English-primary hosts", "non_english": "non-English-primary hosts"}.get(
        stratum, stratum.replace("_", " ")
    )


def _masked_value(strata, classifier: str | None, stratum: str) -> str:
    """A stratum's rho as the caption quotes it; a masked stratum says how few hosts."""
    rows = strata[(strata["classifier"] == classifier) & (strata["stratum"] == stratum)]
    if rows.empty:
        return MISSING
    row = rows.iloc[0]
    if row["is_masked"]:
        return f"not shown ({fmt_count(row['host_count'])} hosts)"
    return _value(float(row["spearman_rho"]))


# ----------------------------------------------------------------------- ICC (Fig. 1, Table 8)


def icc_caption(icc_at_min_docs: list[float]) -> str:
    """The ICC figure's caption, from the classifiers' ICC(1) at n >= 3."""
    return caption(
        "ICC(1) of page scores within hosts, by classifier and minimum pages per host "
        "(n ≥ 3, 5, 10; bars: bootstrap intervals over hosts); at n ≥ "
        f"{paper.ICC_MIN_DOCS}",
        versus(fmt_range(icc_at_min_docs), PAPER_ICC),
    )


def icc_section(marts: Marts) -> SectionContent:
    """Fig. 1 / Table 8: ICC(1) by classifier and host-size threshold."""
    icc = marts.frame(ICC, "select * from {mart} order by classifier, min_docs")
    classifiers = sorted(icc["classifier"].unique())
    thresholds = sorted(icc["min_docs"].unique())
    wide = icc.pivot(index="classifier", columns="min_docs", values="icc1").reindex(classifiers)
    # the bootstrap intervals (null when the build turned them off)
    bounds = {
        column: icc.pivot(index="classifier", columns="min_docs", values=column).reindex(
            classifiers
        )
        for column in ("icc1_ci_low", "icc1_ci_high")
        if column in icc
    }

    figure = charts.new_figure(8, 3.4)
    axis = figure.add_subplot()
    charts.paper_band(axis, *paper.ICC1_RANGE, label=f"paper {PAPER_ICC}")
    labels = [f"n ≥ {threshold} pages" for threshold in thresholds]
    charts.grouped_bars(
        axis,
        classifiers,
        {label: wide[t].tolist() for label, t in zip(labels, thresholds, strict=True)},
        colours=dict(zip(labels, charts.shades(len(labels)), strict=True)),
        intervals={
            label: (bounds["icc1_ci_low"][t].tolist(), bounds["icc1_ci_high"][t].tolist())
            for label, t in zip(labels, thresholds, strict=True)
        }
        if len(bounds) == 2
        else None,
    )
    axis.set_ylabel("ICC(1) of page scores within hosts")
    axis.set_ylim(0, 1)
    axis.legend(loc="upper right", ncols=len(thresholds) + 1)

    at_three = nums.icc_values(icc).tolist()
    header = ("classifier", *(f"ICC(1) n ≥ {t}" for t in thresholds), "hosts (n ≥ 3)", "pages")
    header += ("variance ratio (n ≥ 3)",)
    rows = []
    for classifier in classifiers:
        base = icc[(icc["classifier"] == classifier) & (icc["min_docs"] == thresholds[0])]
        rows.append(
            (
                classifier,
                *(
                    fmt_interval(
                        wide.loc[classifier, t],
                        *(bounds[c].loc[classifier, t] if bounds else None for c in CI_COLUMNS),
                        3,
                    )
                    for t in thresholds
                ),
                fmt_count(base["host_count"].iloc[0]) if not base.empty else MISSING,
                fmt_count(base["doc_count"].iloc[0]) if not base.empty else MISSING,
                fmt_number(base["icc_variance_ratio"].iloc[0], 3) if not base.empty else MISSING,
            )
        )
    return SectionContent(
        figures=[ReportFigure("icc_by_classifier", icc_caption(at_three), figure)],
        tables=[
            ReportTable(
                caption(
                    "Table 8: ICC(1) per classifier and threshold, with the variance-ratio "
                    "sensitivity (docs/definitions.md A2)",
                    versus(fmt_range(at_three), PAPER_ICC),
                ),
                header,
                rows,
            )
        ],
    )


# ----------------------------------------------------------------------- Tables 4-6


def _rho_intervals(rows, classifiers: list[str]) -> tuple[list[float], list[float]]:
    """Spearman's interval ends per classifier (rows indexed by classifier; NaN if none)."""
    if RHO_CI_COLUMNS[0] not in rows:
        return [math.nan] * len(classifiers), [math.nan] * len(classifiers)
    low, high = (rows[column].reindex(classifiers).tolist() for column in RHO_CI_COLUMNS)
    return low, high


def centrality_pooled_caption(pooled_rhos: list[float]) -> str:
    """The pooled centrality-quality caption, from every pooled Spearman's rho."""
    return caption(
        "Spearman's ρ of host centrality (HC, PR) against host median score, all hosts "
        "(bars: bootstrap intervals over hosts)",
        versus(fmt_range(pooled_rhos, 3, "signed"), PAPER_CENTRALITY),
    )


def centrality_section(marts: Marts) -> SectionContent:
    """Tables 4-6: centrality-quality correlations pooled, by language and by TLD category."""
    correlations = marts.frame(
        CENTRALITY, "select * from {mart} order by classifier, centrality_metric, stratum"
    )
    classifiers = sorted(correlations["classifier"].unique())
    metrics = sorted(correlations["centrality_metric"].unique())
    dclm = nums.family_member(classifiers, "dclm", marts.families())
    pooled = nums.pooled_spearman(correlations)
    figures = []

    # Table 4: pooled.
    figure = charts.new_figure(8, 3.2)
    axis = figure.add_subplot()
    charts.paper_band(axis, *paper.CENTRALITY_SPEARMAN_RANGE, label=f"paper {PAPER_CENTRALITY}")
    series, intervals = {}, {}
    for metric in metrics:
        rows = pooled[pooled["centrality_metric"] == metric].set_index("classifier")
        series[metric.upper()] = rows["spearman_rho"].reindex(classifiers).tolist()
        intervals[metric.upper()] = _rho_intervals(rows, classifiers)
    charts.grouped_bars(
        axis,
        classifiers,
        series,
        colours={
            metric.upper(): charts.POLICY_COLOURS.get(metric, "#555555") for metric in metrics
        },
        intervals=intervals if RHO_CI_COLUMNS[0] in pooled else None,
    )
    axis.axhline(0, color="black", lw=0.6)
    axis.set_ylabel("Spearman's ρ, centrality vs\nhost median score")
    charts.legend_outside(figure, axis)
    figures.append(
        ReportFigure(
            "centrality_quality_pooled",
            centrality_pooled_caption(pooled["spearman_rho"].tolist()),
            figure,
        )
    )

    # Table 5: language strata.
    language = correlations[correlations["stratum_type"].isin(["pooled", "language"])]
    strata = ["all", *sorted(set(language["stratum"]) - {"all"})]
    figure = charts.new_figure(8, 3.4)
    axes = figure.subplots(1, len(metrics), sharey=True, squeeze=False)[0]
    for axis, metric in zip(axes, metrics, strict=True):
        rows = language[language["centrality_metric"] == metric]
        wide = rows.pivot(index="classifier", columns="stratum", values="spearman_rho")
        wide = wide.reindex(index=classifiers, columns=strata)
        charts.grouped_bars(
            axis,
            classifiers,
            {_stratum_label(s): wide[s].tolist() for s in strata},
            colours={_stratum_label(s): charts.LANGUAGE_COLOURS.get(s, "#555555") for s in strata},
            intervals={
                _stratum_label(s): _rho_intervals(
                    rows[rows["stratum"] == s].set_index("classifier"), classifiers
                )
                for s in strata
            }
            if RHO_CI_COLUMNS[0] in rows
            else None,
        )
        axis.axhline(0, color="black", lw=0.6)
        axis.set_title(f"{metric.upper()} vs quality")
    axes[0].set_ylabel("Spearman's ρ, centrality vs\nhost median score")
    charts.legend_outside(figure, axes[0])
    figures.append(
        ReportFigure(
            "centrality_quality_by_language",
            caption(
                "HC/PR–quality Spearman's ρ pooled and within English- and non-English-primary "
                "hosts (Table 5); DCLM–HC",
                versus(
                    f"{_value(nums.stratum_rho(correlations, dclm, 'all'))} pooled, "
                    f"{_value(nums.stratum_rho(correlations, dclm, 'english'))} within English",
                    "negative pooled, positive within English",
                ),
            ),
            figure,
        )
    )

    # Table 6: TLD macro categories (HC); cells of too few hosts greyed out.
    tld = nums.mask_small_strata(
        correlations[
            (correlations["stratum_type"] == "tld_category")
            & (correlations["centrality_metric"] == metrics[0])
        ]
    )
    categories = sorted(tld["stratum"].unique())
    hosts = tld.groupby("stratum")["host_count"].max()
    wide = tld.pivot(index="classifier", columns="stratum", values="spearman_rho")
    wide = wide.reindex(index=classifiers, columns=categories)
    masked = tld.pivot(index="classifier", columns="stratum", values="is_masked")
    masked = masked.reindex(index=classifiers, columns=categories).fillna(True).astype(bool)
    figure = charts.new_figure(8, 0.45 * len(classifiers) + 1.8)
    axis = figure.add_subplot()
    image = charts.heatmap(
        axis,
        wide.to_numpy().tolist(),
        classifiers,
        [
            f"{category.replace('_', ' ')}\n({fmt_count(hosts[category])} hosts)"
            for category in categories
        ],
        masked=masked.to_numpy().tolist(),
        mask_label=f"n<{nums.MIN_STRATUM_HOSTS}",
        column_rotation=0,
    )
    figure.colorbar(image, ax=axis, label=f"Spearman's ρ, {metrics[0].upper()} vs quality")
    figures.append(
        ReportFigure(
            "centrality_quality_by_tld",
            caption(
                f"{metrics[0].upper()}–quality Spearman's ρ within TLD macro categories (hosts in "
                f"brackets; cells of fewer than {nums.MIN_STRATUM_HOSTS} hosts greyed out, "
                f"“n<{nums.MIN_STRATUM_HOSTS}”; Table 6); DCLM",
                versus(
                    f"academic {_masked_value(tld, dclm, 'academic')}, "
                    f"commercial {_masked_value(tld, dclm, 'commercial')}",
                    "negative in both",
                ),
            ),
            figure,
        )
    )

    header = ("classifier", "metric", "hosts", "Spearman ρ [95% interval]", "Kendall τ-b")
    header += ("weighted ρ",)
    header += ("weighted τ",)
    rows = [
        (
            row.classifier,
            row.centrality_metric,
            fmt_count(row.host_count),
            fmt_interval(
                row.spearman_rho,
                getattr(row, RHO_CI_COLUMNS[0], None),
                getattr(row, RHO_CI_COLUMNS[1], None),
                3,
                style="signed",
            ),
            fmt_signed(row.kendall_tau_b, 3),
            fmt_signed(row.weighted_spearman_rho, 3),
            fmt_signed(row.weighted_tau, 3),
        )
        for row in pooled.itertuples()
    ]
    table = ReportTable(
        caption(
            "Table 4: pooled correlations of centrality with host median score; Spearman",
            versus(fmt_range(pooled["spearman_rho"], 3, "signed"), PAPER_CENTRALITY),
        ),
        header,
        rows,
    )
    return SectionContent(figures=figures, tables=[table])


# ----------------------------------------------------------------------- Table 7


def score_by_language_section(marts: Marts) -> SectionContent:
    """Table 7: quartiles of host median scores, English vs non-English hosts."""
    scores = marts.frame(SCORE_BY_LANGUAGE, "select * from {mart} order by all")
    classifiers = sorted(scores["classifier"].unique())
    strata = sorted(scores["language_stratum"].unique())
    figure = charts.new_figure(8, 3.4)
    axis = figure.add_subplot()
    width = 0.7 / max(1, len(strata))
    for index, stratum in enumerate(strata):
        rows = scores[scores["language_stratum"] == stratum].set_index("classifier")
        rows = rows.reindex(classifiers)
        offsets = [p + (index - (len(strata) - 1) / 2) * width for p in range(len(classifiers))]
        median = rows["host_median_score_p50"]
        axis.errorbar(
            offsets,
            median,
            yerr=[median - rows["host_median_score_p25"], rows["host_median_score_p75"] - median],
            fmt="o",
            capsize=3,
            color=charts.LANGUAGE_COLOURS.get(stratum, charts.CYCLE[index % len(charts.CYCLE)]),
            label=_stratum_label(stratum),
        )
    axis.set_xticks(range(len(classifiers)), classifiers, rotation=30, ha="right")
    axis.set_ylabel("host median score\n(median and quartiles of hosts)")
    # Scores live in [0, 1], but host medians sit low: fit the axis to the upper quartiles.
    upper = scores["host_median_score_p75"].max()
    axis.set_ylim(0, 1 if math.isnan(upper) else min(1.0, math.ceil(10 * upper * 1.1) / 10))
    axis.grid(axis="x", visible=False)
    charts.legend_outside(figure, axis, ncols=2)

    families = marts.families()

    def medians(family: str) -> str:
        found = nums.language_medians(scores, nums.family_member(classifiers, family, families))
        if not found:
            return MISSING
        return " vs ".join(f"{fmt_number(found.get(s), 2)} {s}" for s in strata)

    figure_caption = caption(
        "Host median scores by the host's primary language (median and quartiles; Table 7)",
        versus(
            f"DCLM {medians('dclm')}, FineWeb-Edu {medians('fineweb_edu')}",
            "DCLM much higher on non-English hosts, FineWeb-Edu similar",
        ),
    )
    header = ("classifier", "language", "hosts", "p25", "median", "p75", "mean")
    rows = [
        (
            row.classifier,
            row.language_stratum,
            fmt_count(row.host_count),
            fmt_number(row.host_median_score_p25, 3),
            fmt_number(row.host_median_score_p50, 3),
            fmt_number(row.host_median_score_p75, 3),
            fmt_number(row.host_median_score_mean, 3),
        )
        for row in scores.itertuples()
    ]
    return SectionContent(
        figures=[ReportFigure("score_by_language", figure_caption, figure)],
        tables=[ReportTable("Table 7: host median scores by language stratum.", header, rows)],
    )


# ----------------------------------------------------------------------- Fig. 12


def agreement_section(marts: Marts) -> SectionContent:
    """Fig. 12: page-level Spearman's rho between every pair of classifiers."""
    agreement = marts.frame(AGREEMENT, "select * from {mart} order by all")
    both_orders = agreement.rename(
        columns={"classifier_a": "classifier_b", "classifier_b": "classifier_a"}
    )
    pairs = pd.concat([agreement, both_orders], ignore_index=True).drop_duplicates(
        ["classifier_a", "classifier_b"]
    )
    classifiers = sorted(set(pairs["classifier_a"]) | set(pairs["classifier_b"]))
    wide = pairs.pivot(index="classifier_a", columns="classifier_b", values="spearman_rho")
    wide = wide.reindex(index=classifiers, columns=classifiers)
    for classifier in classifiers:
        wide.loc[classifier, classifier] = 1.0
    families = marts.families()
    dclm = nums.family_member(classifiers, "dclm", families)
    nemotron = nums.family_member(classifiers, "nemotron", families)
    notes = {}
    if dclm is not None and nemotron is not None:
        cells = (classifiers.index(dclm), classifiers.index(nemotron))
        note = f"paper {fmt_signed(paper.DCLM_VS_NEMOTRON_RHO, 2)}"
        notes = {cells: note, cells[::-1]: note}
    figure = charts.new_figure(7, 0.5 * len(classifiers) + 2.2)
    axis = figure.add_subplot()
    image = charts.heatmap(axis, wide.to_numpy().tolist(), classifiers, classifiers, notes=notes)
    figure.colorbar(image, ax=axis, label="Spearman's ρ of page scores")
    rho = nums.pair_rho(agreement, dclm, nemotron)
    pages = agreement["doc_count"].max()
    figure_caption = caption(
        "Page-level Spearman's ρ between classifiers over the pages both scored (Fig. 12); "
        "DCLM vs Nemotron",
        versus(
            f"{_value(rho, 3)} over {fmt_count(pages)} pages",
            f"{fmt_signed(paper.DCLM_VS_NEMOTRON_RHO, 3)} over "
            f"{fmt_count(paper.AGREEMENT_DOC_COUNT)} documents",
        ),
    )
    return SectionContent(figures=[ReportFigure("classifier_agreement", figure_caption, figure)])


# ----------------------------------------------------------------------- Table 2


def rank_stability_section(marts: Marts) -> SectionContent:
    """Table 2: Spearman's rho of HC and PR between graph releases."""
    stability = marts.frame(RANK_STABILITY, "select * from {mart} order by all")
    labels = [
        f"{row.centrality_metric.upper()}\n{row.reference_release}\n→ {row.later_release}"
        for row in stability.itertuples()
    ]
    figure = charts.new_figure(8, 3.2)
    axis = figure.add_subplot()
    charts.paper_band(axis, *paper.RANK_STABILITY_RANGE, label=f"paper {PAPER_RANK_STABILITY}")
    colours = [charts.POLICY_COLOURS.get(m, "#1f77b4") for m in stability["centrality_metric"]]
    bars = axis.bar(range(len(labels)), stability["spearman_rho"], color=colours, width=0.6)
    axis.bar_label(bars, fmt="%.3f", fontsize=8, padding=2)
    axis.set_xticks(range(len(labels)), labels, fontsize=8)
    axis.grid(axis="x", visible=False)
    lowest = stability["spearman_rho"].min()
    axis.set_ylim(0 if math.isnan(lowest) else max(0.0, math.floor(10 * lowest) / 10 - 0.1), 1)
    axis.set_ylabel("Spearman's ρ of host ranks\nbetween graph releases")
    charts.legend_outside(figure, axis)
    stability_caption = caption(
        "Spearman's ρ of host HC and PR between graph releases, over hosts in both (Table 2)",
        versus(fmt_range(stability["spearman_rho"], 3), PAPER_RANK_STABILITY),
    )
    rows = [
        (
            row.centrality_metric,
            row.reference_release,
            row.later_release,
            fmt_count(row.host_count),
            fmt_number(row.spearman_rho, 3),
        )
        for row in stability.itertuples()
    ]
    header = ("metric", "release", "later release", "common hosts", "Spearman ρ")
    return SectionContent(
        figures=[ReportFigure("graph_rank_stability", stability_caption, figure)],
        tables=[
            ReportTable(
                "Table 2: rank stability of host centrality between graph releases.",
                header,
                rows,
            )
        ],
    )
