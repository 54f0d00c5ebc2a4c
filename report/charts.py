"""Matplotlib on the Agg backend, one house style, and deterministic files.

Figures are ``matplotlib.figure.Figure`` objects made without pyplot (no global figure
state). ``STYLE`` fixes everything that would make two runs differ: the SVG id salt, no date
in the SVG metadata, text drawn as paths (no font needed to view it).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

STYLE = {
    "svg.hashsalt": "hostaware-report",
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
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

PAPER_COLOUR = "#c8102e"  # the paper's reference values: bands and markers in red
PAPER_BAND_ALPHA = 0.12
POLICY_COLOURS = {
    "random": "#7f7f7f",
    "hc": "#1f77b4",
    "pr": "#ff7f0e",
    "cc_coverage": "#2ca02c",
    "oracle": "#000000",
    "uniform_breadth": "#7f7f7f",
    "hc_depth": "#1f77b4",
    "sample_then_deepen": "#d62728",
}
CYCLE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


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
):
    """A figure with ``count`` panels in rows of ``columns``, axes shared; unused panels hidden.

    The x label and tick labels go on every panel with no panel below it, the y label on the
    first panel of each row.

    Returns:
        The figure and its ``count`` axes, row by row.
    """
    columns = max(1, min(columns, count))
    rows = math.ceil(count / columns)
    figure = new_figure(width, row_height * rows + 0.6)
    grid = figure.subplots(rows, columns, squeeze=False, sharex=True, sharey=True)
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
) -> None:
    """Bars of each series side by side within each group (x = groups)."""
    width = 0.8 / max(1, len(series))
    for index, (name, values) in enumerate(series.items()):
        offsets = [
            position + (index - (len(series) - 1) / 2) * width for position in range(len(groups))
        ]
        colour = (colours or {}).get(name, CYCLE[index % len(CYCLE)])
        axis.bar(offsets, values, width=width, label=name, color=colour)
    axis.set_xticks(range(len(groups)), groups, rotation=30, ha="right")
    axis.grid(axis="x", visible=False)


def heatmap(
    axis: Axes,
    values: Sequence[Sequence[float]],
    rows: Sequence[str],
    columns: Sequence[str],
    limit: float = 1.0,
    fmt: str = "{:+.2f}",
):
    """A diverging heatmap in [-limit, limit], each cell labelled; NaN cells blank.

    Returns:
        The image, for a colour bar.
    """
    image = axis.imshow(values, cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto")
    axis.set_xticks(range(len(columns)), columns, rotation=30, ha="right")
    axis.set_yticks(range(len(rows)), rows)
    axis.grid(False)
    for row_index, row in enumerate(values):
        for column_index, value in enumerate(row):
            if value is None or math.isnan(value):
                continue
            colour = "white" if abs(value) > 0.6 * limit else "black"
            axis.text(
                column_index, row_index, fmt.format(value), ha="center", va="center",
                fontsize=7, color=colour,
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
