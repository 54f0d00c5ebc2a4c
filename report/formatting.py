"""Number formatting and caption text, shared by the page, the figures and the terminal.

Pure functions of plain values: no warehouse, no matplotlib.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

MISSING = "n/a"


def is_missing(value: object) -> bool:
    """Whether ``value`` is no number: None, NaN or pandas' NA."""
    if value is None:
        return True
    try:
        return math.isnan(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return True


def fmt_number(value: object, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals, or ``n/a``."""
    if is_missing(value):
        return MISSING
    return f"{float(value):.{digits}f}"  # type: ignore[arg-type]


def fmt_interval(
    value: object, low: object, high: object, digits: int = 2, style: str = "number"
) -> str:
    """``value`` with its bootstrap interval (``0.46 [0.32, 0.57]``); the value alone without one.

    ``style`` as ``fmt_range``'s: ``number``, ``signed``, ``ratio``, ``share`` or ``count``
    (``fmt_count``, ``digits`` unused).

    >>> fmt_interval(0.4562, 0.3204, 0.5689, 3)
    '0.456 [0.320, 0.569]'
    >>> fmt_interval(-0.0812, -0.1204, -0.0431, 3, style="signed")
    '-0.081 [-0.120, -0.043]'
    """
    number = FORMATS[style]
    if is_missing(low) or is_missing(high):
        return number(value, digits)
    return f"{number(value, digits)} [{number(low, digits)}, {number(high, digits)}]"


def fmt_row_interval(row, column: str, digits: int = 2, style: str = "number") -> str:
    """A mart row's ``column`` with its bootstrap interval (``<column>_ci_low``, ``_ci_high``).

    The value alone where the row has no interval columns or they are null (the build turned
    the bootstrap off). ``row`` is a pandas Series or a dict.

    >>> fmt_row_interval({"rho": -0.081, "rho_ci_low": -0.12, "rho_ci_high": -0.043}, "rho", 3)
    '-0.081 [-0.120, -0.043]'
    >>> fmt_row_interval({"share": 0.5}, "share", 0, "share")
    '50%'
    """
    low, high = (row.get(f"{column}_ci_{end}") for end in ("low", "high"))
    return fmt_interval(row[column], low, high, digits, style)


def fmt_signed(value: object, digits: int = 2) -> str:
    """``value`` with an explicit sign (``+0.21``, ``-0.09``), or ``n/a``."""
    if is_missing(value):
        return MISSING
    return f"{float(value):+.{digits}f}"  # type: ignore[arg-type]


def fmt_ratio(value: object, digits: int = 2) -> str:
    """A ratio with a times sign (``1.83×``), or ``n/a``."""
    if is_missing(value):
        return MISSING
    return f"{float(value):.{digits}f}×"  # type: ignore[arg-type]


def fmt_share(value: object, digits: int = 0) -> str:
    """A 0-1 share as a percentage (``0.214`` → ``21%``), or ``n/a``."""
    if is_missing(value):
        return MISSING
    return f"{100 * float(value):.{digits}f}%"  # type: ignore[arg-type]


def fmt_count(value: object) -> str:
    """A count: grouped below a million, in millions above (``888``, ``58M``, ``1.25M``).

    Estimated counts are fractional: from 100 up they are rounded to whole pages, below 100
    they keep one decimal (``12.5``).
    """
    if is_missing(value):
        return MISSING
    number = float(value)  # type: ignore[arg-type]
    if abs(number) >= 1e6:
        return f"{number / 1e6:.3g}M"
    if number == round(number) or abs(number) >= 100:
        return f"{number:,.0f}"
    return f"{number:,.1f}"


FORMATS: dict[str, Callable[[object, int], str]] = {
    "number": fmt_number,
    "signed": fmt_signed,
    "ratio": fmt_ratio,
    "share": fmt_share,
    "count": lambda value, _digits: fmt_count(value),
}


def fmt_range(values: Iterable[object], digits: int = 2, style: str = "number") -> str:
    """The smallest and largest of ``values`` (missing ones skipped) as one string.

    ``0.45–0.61`` (``0.7–1.8×``, ``21–30%``) when neither is negative; ``-0.22 to 0.21``
    when one is (a dash beside a minus sign reads badly) or the style is ``signed``; a single
    value when both format the same; ``n/a`` when there are none.

    Args:
        values: the numbers.
        digits: decimals (of the percentage for ``share``).
        style: ``number``, ``signed``, ``ratio`` (``1.83×``) or ``share`` (``21%``).
    """
    formatter = FORMATS[style]
    present = [float(value) for value in values if not is_missing(value)]  # type: ignore[arg-type]
    if not present:
        return MISSING
    low, high = formatter(min(present), digits), formatter(max(present), digits)
    if low == high:
        return low
    if min(present) < 0 or style == "signed":
        return f"{low} to {high}"
    unit = {"ratio": "×", "share": "%"}.get(style, "")
    return f"{low.removesuffix(unit)}–{high}"


def fmt_range_with_intervals(
    values: Sequence[object],
    lows: Sequence[object] | None,
    highs: Sequence[object] | None,
    digits: int = 2,
    style: str = "number",
) -> str:
    """The smallest and largest of ``values``, each with its bootstrap interval.

    ``0.444 [0.412, 0.478] to 0.565 [0.531, 0.601]``; a value without an interval (the build
    turned them off: ``lows`` None or missing) is shown alone, as ``fmt_range`` would.

    >>> fmt_range_with_intervals([0.5, 0.25], [0.4, 0.2], [0.6, 0.3])
    '0.25 [0.20, 0.30] to 0.50 [0.40, 0.60]'
    """
    formatter = FORMATS[style]
    lows = [None] * len(values) if lows is None else list(lows)
    highs = [None] * len(values) if highs is None else list(highs)
    present = [
        (float(value), low, high)  # type: ignore[arg-type]
        for value, low, high in zip(values, lows, highs, strict=True)
        if not is_missing(value)
    ]
    if not present:
        return MISSING
    if all(is_missing(low) or is_missing(high) for _, low, high in present):
        return fmt_range([value for value, _, _ in present], digits, style)

    def shown(value: float, low: object, high: object) -> str:
        if is_missing(low) or is_missing(high):
            return formatter(value, digits)
        return f"{formatter(value, digits)} [{formatter(low, digits)}, {formatter(high, digits)}]"

    smallest = min(present, key=lambda row: row[0])
    largest = max(present, key=lambda row: row[0])
    if formatter(smallest[0], digits) == formatter(largest[0], digits):
        return shown(*smallest)
    return f"{shown(*smallest)} to {shown(*largest)}"


def versus(here: str, paper: str | None) -> str:
    """``"<here> here, <paper> in the paper"``, or ``"<here> here"`` without a paper value."""
    if paper is None:
        return f"{here} here"
    return f"{here} here, {paper} in the paper"


def caption(what: str, *comparisons: str) -> str:
    """One caption line: what the figure shows, then each comparison, ending in a full stop.

    >>> caption("ICC(1) by classifier", "0.45–0.61 here, 0.43–0.62 in the paper")
    'ICC(1) by classifier: 0.45–0.61 here, 0.43–0.62 in the paper.'
    """
    text = what if not comparisons else f"{what}: {'; '.join(comparisons)}"
    return text if text.endswith(".") else f"{text}."


def text_table(header: tuple[str, ...], rows: list[tuple[str, ...]], gap: int = 2) -> str:
    """A plain-text table with aligned columns, for the terminal."""
    widths = [max(len(row[index]) for row in [header, *rows]) for index in range(len(header))]
    spacer = " " * gap

    def line(cells: tuple[str, ...]) -> str:
        return spacer.join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True))

    rule = spacer.join("-" * width for width in widths)
    return "\n".join([line(header).rstrip(), rule, *(line(row).rstrip() for row in rows)])
