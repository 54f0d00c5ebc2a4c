"""Matplotlib on the Agg backend, one house style, and deterministic files.

Figures are ``matplotlib.figure.Figure`` objects made without pyplot (no global figure
state). ``STYLE`` fixes everything that would make two runs differ: the SVG id salt, no date
in the SVG metadata, text drawn as paths (no font needed to view it).
"""

from __future__ import annotations

import base64
import hashlib
import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")

from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, PercentFormatter

STYLE = {
    "svg.hashsalt": "hostaware-report",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "legend.title_fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "figure.dpi": 100,
    "savefig.dpi": 120,
    "path.simplify": False,
}
PNG_METADATA = {"Software": None}
SVG_METADATA = {"Date": None, "Creator": None}

PAPER_COLOUR = "#c8102e"  # the paper's reference values: bands, lines and markers in red
PAPER_BAND_ALPHA = 0.12
# One colour per policy in every figure; HC's depth policy shares HC's blue, uniform breadth
# shares random's grey. No policy is red: red is the paper's.
POLICY_COLOURS = {
    "random": "#7f7f7f",
    "hc": "#1f77b4",
    "pr": "#ff7f0e",
    "cc_coverage": "#2ca02c",
    "oracle": "#000000",
    "uniform_breadth": "#7f7f7f",
    "hc_depth": "#1f77b4",
    "sample_then_deepen": "#9467bd",
}
# One colour per classifier family (the registry's ``family``) in every figure; a classifier of
# no family listed gets a colour of FALLBACK_COLOURS chosen by a hash of its name.
CLASSIFIER_COLOURS = {
    "dclm": "#1f77b4",
    "fineweb_edu": "#ff7f0e",
    "fineweb2": "#17becf",
    "gneissweb_quality": "#2ca02c",
    "gneissweb_medical": "#e377c2",
    "gneissweb_technology": "#9467bd",
    "gneissweb_education": "#bcbd22",
    "nemotron": "#8c564b",
}
FALLBACK_COLOURS = ("#393b79", "#637939", "#8c6d31", "#7b4173", "#3182bd", "#e6550d")
# One colour per language stratum (Tables 5 and 7), per phase of the crawl plan.
LANGUAGE_COLOURS = {
    "all": "#555555",
    "pooled": "#555555",
    "english": "#1b9e77",
    "non_english": "#d95f02",
    "unknown": "#aaaaaa",
}
PHASE_COLOURS = {
    "sample": "#6baed6",
    "deepen": "#08519c",
    "explore": "#fd8d3c",
    "skip": "#bdbdbd",
}
CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]


def classifier_colour(name: str, family: str | None) -> str:
    """The colour of classifier ``name`` of registry family ``family`` in every figure."""
    if family in CLASSIFIER_COLOURS:
        return CLASSIFIER_COLOURS[family]
    digest = hashlib.sha256(str(name).lower().encode("utf-8")).digest()
    return FALLBACK_COLOURS[digest[0] % len(FALLBACK_COLOURS)]


def shades(count: int, cmap: str = "Blues") -> list[str]:
    """``count`` shades of one hue, light to dark, for an ordered series (n ≥ 3, 5, 10)."""
    colours = colormaps[cmap]
    if count <= 1:
        return [to_hex(colours(0.7))]
    return [to_hex(colours(0.4 + 0.5 * index / (count - 1))) for index in range(count)]


def legend_outside(figure: Figure, axis: Axes | None = None, ncols: int = 4, **options) -> None:
    """The legend of ``axis`` (else of the figure's first axes) below the panels, no frame.

    Handles that share a label across panels are shown once.
    """
    axis = axis or figure.axes[0]
    handles, labels = [], []
    for candidate in [axis, *figure.axes]:
        for handle, label in zip(*candidate.get_legend_handles_labels(), strict=True):
            if label not in labels and not label.startswith("_"):
                handles.append(handle)
                labels.append(label)
    if handles:
        figure.legend(
            handles, labels, loc="outside lower center", ncols=min(ncols, len(handles)),
            frameon=False, **options,
        )  # fmt: skip


def share_axis(axis: Axes, which: str = "y") -> None:
    """Tick a 0-1 share axis as percentages."""
    target = axis.yaxis if which == "y" else axis.xaxis
    target.set_major_formatter(PercentFormatter(1.0, decimals=0))


def new_figure(width: float = 8.0, height: float = 3.6) -> Figure:
    """An empty figure of ``width`` × ``height`` inches."""
    return Figure(figsize=(width, height), layout="constrained")


def panel_grid(
    count: int,
    columns: int = 3,
    width: float = 8.0,
    row_height: float = 2.4,
    xlabel: str = "",
    ylabel: str = "",
    sharey: bool = True,
):
    """A figure with ``count`` panels in rows of ``columns``; unused panels hidden.

    The x axes are shared, and the y axes unless ``sharey`` is False.

    The x label and tick labels go on every panel with no panel below it, the y label on the
    first panel of each row.

    Returns:
        The figure and its ``count`` axes, row by row.
    """
    columns = max(1, min(columns, count))
    rows = math.ceil(count / columns)
    figure = new_figure(width, row_height * rows + 0.6)
    grid = figure.subplots(rows, columns, squeeze=False, sharex=True, sharey=sharey)
    flat = [axis for row in grid for axis in row]
    for axis in flat[count:]:
        axis.set_visible(False)
    for index, axis in enumerate(flat[:count]):
        if index + columns >= count:
            axis.xaxis.set_tick_params(labelbottom=True)
            axis.set_xlabel(xlabel)
        if index % columns == 0:
            axis.set_ylabel(ylabel)
    return figure, flat[:count]


def paper_band(axis: Axes, low: float, high: float, label: str = "paper") -> None:
    """Shade the paper's range ``[low, high]`` across the axis."""
    axis.axhspan(low, high, color=PAPER_COLOUR, alpha=PAPER_BAND_ALPHA, lw=0, label=label)


def paper_line(axis: Axes, value: float, label: str = "paper") -> None:
    """A dashed line at the paper's value across the axis."""
    axis.axhline(value, color=PAPER_COLOUR, lw=1, ls="--", label=label)


def log_ratio_axis(axis: Axes, ticks: Sequence[float] = (0.5, 1, 2, 4, 8, 16)) -> None:
    """A log-scale y axis for ratios, ticked at ``ticks`` and labelled ``2×``."""
    axis.set_yscale("log")
    axis.yaxis.set_major_locator(FixedLocator(list(ticks)))
    axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}×"))
    axis.yaxis.set_minor_formatter(NullFormatter())


def grouped_bars(
    axis: Axes,
    groups: Sequence[str],
    series: dict[str, Sequence[float]],
    colours: dict[str, str] | None = None,
    baseline: float = 0.0,
    intervals: dict[str, tuple[Sequence[float], Sequence[float]]] | None = None,
) -> None:
    """Bars of each series side by side within each group (x = groups), from ``baseline``.

    ``intervals`` gives a series' (lows, highs): an error bar on each bar that has both.
    """
    width = 0.8 / max(1, len(series))
    for index, (name, values) in enumerate(series.items()):
        offsets = [
            position + (index - (len(series) - 1) / 2) * width for position in range(len(groups))
        ]
        colour = (colours or {}).get(name, CYCLE[index % len(CYCLE)])
        heights = [value - baseline for value in values]
        axis.bar(offsets, heights, width=width, bottom=baseline, label=name, color=colour)
        if intervals and name in intervals:
            lows, highs = (np.asarray(bound, dtype=float) for bound in intervals[name])
            shown = ~(np.isnan(lows) | np.isnan(highs) | np.isnan(np.asarray(values, float)))
            if shown.any():
                middle = np.asarray(values, dtype=float)[shown]
                axis.errorbar(
                    np.asarray(offsets)[shown],
                    middle,
                    yerr=[middle - lows[shown], highs[shown] - middle],
                    fmt="none",
                    ecolor="#333333",
                    elinewidth=0.8,
                    capsize=2,
                )
    axis.set_xticks(range(len(groups)), groups, rotation=30, ha="right")
    axis.grid(axis="x", visible=False)


MASKED_COLOUR = "#e6e6e6"


def heatmap(
    axis: Axes,
    values: Sequence[Sequence[float]],
    rows: Sequence[str],
    columns: Sequence[str],
    limit: float = 1.0,
    fmt: str = "{:+.2f}",
    masked: Sequence[Sequence[bool]] | None = None,
    mask_label: str = "",
    notes: dict[tuple[int, int], str] | None = None,
    column_rotation: float = 30,
):
    """A diverging heatmap in [-limit, limit], each cell labelled.

    NaN cells are grey and unlabelled; ``masked`` cells (True) are grey and say ``mask_label``
    instead of their value; ``notes`` adds a second line under the value of a cell
    (``(row, column)`` → text).

    Returns:
        The image, for a colour bar.
    """
    shown = [
        [
            math.nan if (masked is not None and masked[r][c]) or value is None else value
            for c, value in enumerate(row)
        ]
        for r, row in enumerate(values)
    ]
    cmap = colormaps["RdBu_r"].with_extremes(bad=MASKED_COLOUR)
    image = axis.imshow(shown, cmap=cmap, vmin=-limit, vmax=limit, aspect="auto")
    axis.set_xticks(
        range(len(columns)), columns, rotation=column_rotation,
        ha="right" if column_rotation else "center",
    )  # fmt: skip
    axis.set_yticks(range(len(rows)), rows)
    axis.grid(False)
    for row_index, row in enumerate(shown):
        for column_index, value in enumerate(row):
            if masked is not None and masked[row_index][column_index]:
                axis.text(
                    column_index, row_index, mask_label, ha="center", va="center",
                    fontsize=7, color="#666666", fontstyle="italic",
                )  # fmt: skip
                continue
            if math.isnan(value):
                continue
            colour = "white" if abs(value) > 0.6 * limit else "black"
            text = fmt.format(value)
            note = (notes or {}).get((row_index, column_index))
            if note:
                text += "\n" + note
            axis.text(
                column_index, row_index, text, ha="center", va="center",
                fontsize=7, color=colour, linespacing=1.1,
            )  # fmt: skip
    return image


def save(figure: Figure, folder: Path, name: str) -> tuple[Path, Path]:
    """Write ``folder/name.png`` and ``folder/name.svg``.

    Returns:
        The PNG and SVG paths.
    """
    folder.mkdir(parents=True, exist_ok=True)
    png, svg = folder / f"{name}.png", folder / f"{name}.svg"
    figure.savefig(png, format="png", metadata=PNG_METADATA)
    figure.savefig(svg, format="svg", metadata=SVG_METADATA)
    return png, svg


def data_uri(svg: Path) -> str:
    """The SVG file as a ``data:`` URI, for an ``<img>`` in a self-contained page."""
    encoded = base64.b64encode(svg.read_bytes()).decode("ascii")
    return f"data:image/svg+xml;base64,{encoded}"
