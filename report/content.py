"""What a section of the report holds: figures, tables and notes, each with its caption."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from matplotlib.figure import Figure

from report.marts import Marts


@dataclass
class ReportFigure:
    """One figure: its file name (no suffix), its caption line, and the drawing.

    After the page is written, ``png`` and ``svg`` hold the files' paths.
    """

    name: str
    caption: str
    figure: Figure
    png: str = ""
    svg: str = ""


@dataclass
class ReportTable:
    """A small table for the page: caption, header and formatted cells."""

    caption: str
    header: tuple[str, ...]
    rows: list[tuple[str, ...]]


@dataclass
class SectionContent:
    """What a section's builder returns."""

    figures: list[ReportFigure] = field(default_factory=list)
    tables: list[ReportTable] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Section:
    """A section of the report.

    Attributes:
        key: the HTML anchor.
        title: the heading, with the paper's figure/table numbers.
        marts: the marts it reads (named in the page).
        figures: the figure names it draws when its marts hold rows.
        build: draws the section from the marts; may raise ``MartUnavailableError``.
    """

    key: str
    title: str
    marts: tuple[str, ...]
    figures: tuple[str, ...]
    build: Callable[[Marts], SectionContent]
