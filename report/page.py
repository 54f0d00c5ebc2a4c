"""Draw every section and write the figures and one self-contained ``index.html``.

The page needs nothing beside itself: figures are embedded as SVG ``data:`` URIs, the style
sheet is inline, there is no script and no font to fetch. Each figure is also written as
``figures/<name>.png`` and ``figures/<name>.svg``. Nothing on the page depends on the time
or the machine, so two runs over the same warehouse give identical files.
"""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

from report import charts
from report.content import ReportFigure, ReportTable, Section, SectionContent
from report.headline import HEADER, HeadlineRow, headline_rows
from report.marts import Marts, MartUnavailableError, missing_column
from report.sections import FIGURES, SECTIONS

log = logging.getLogger(__name__)

STYLESHEET = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.2rem; margin-top: 2.5rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
nav ol { columns: 2; column-gap: 2.5rem; font-size: 0.9rem; }
nav li { break-inside: avoid; margin-left: 1.5rem; }
figure { margin: 1rem 0; }
figure img { width: 100%; height: auto; }
figcaption, table caption { font-size: 0.9rem; color: #333; text-align: left; margin: 0.3rem 0; }
table { border-collapse: collapse; font-size: 0.8rem; margin: 1rem 0; display: block;
        overflow-x: auto; }
th, td { border-bottom: 1px solid #e4e4e4; padding: 0.15rem 0.5rem; text-align: left;
         vertical-align: top; }
th { background: #f4f4f4; }
.marts, .source { font-size: 0.8rem; color: #666; }
.note { background: #fff4e5; border-left: 4px solid #f0a030; padding: 0.4rem 0.8rem; }
code { font-size: 0.85em; }
"""


@dataclass
class SectionResult:
    """A section as drawn: its content, or the notes saying why it is not there."""

    section: Section
    content: SectionContent = field(default_factory=SectionContent)


@dataclass
class Report:
    """What ``write_report`` wrote."""

    index: Path
    sections: list[SectionResult]
    headline: list[HeadlineRow]

    @property
    def figures(self) -> list[ReportFigure]:
        """Every figure drawn, in page order."""
        return [figure for result in self.sections for figure in result.content.figures]

    @property
    def tables(self) -> list[ReportTable]:
        """Every table, in page order."""
        return [table for result in self.sections for table in result.content.tables]

    @property
    def notes(self) -> list[str]:
        """Every note (a mart missing or empty)."""
        return [note for result in self.sections for note in result.content.notes]


def _drawn(section: Section) -> str:
    return ", ".join(section.figures) or "its table"


def draw_section(section: Section, marts: Marts) -> SectionResult:
    """Draw ``section``; a missing or empty mart becomes a note instead of figures."""
    try:
        content = section.build(marts)
    except MartUnavailableError as missing:
        content = SectionContent(notes=[f"Not drawn ({_drawn(section)}): {missing}."])
        log.warning("%s: %s", section.key, missing)
    except (KeyError, AttributeError) as error:
        # a mart whose columns changed under the report: say which, draw the rest
        column = missing_column(error)
        if column is None:
            raise
        marts_read = ", ".join(section.marts)
        content = SectionContent(
            notes=[f"Not drawn ({_drawn(section)}): {marts_read} has no column {column}."]
        )
        log.warning("%s: no column %s", section.key, column)
    return SectionResult(section, content)


def _table_html(table: ReportTable) -> str:
    head = "".join(f"<th>{html.escape(cell)}</th>" for cell in table.header)
    body = "\n".join(
        "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
        for row in table.rows
    )
    return (
        f"<table>\n<caption>{html.escape(table.caption)}</caption>\n"
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"
    )


def _figure_html(figure: ReportFigure) -> str:
    alt = html.escape(figure.caption, quote=True)
    return (
        f'<figure id="figure-{figure.name}">\n'
        f'<img src="{charts.data_uri(Path(figure.svg))}" alt="{alt}">\n'
        f"<figcaption>{html.escape(figure.caption)} "
        f'<span class="source">(figures/{figure.name}.png, .svg)</span></figcaption>\n'
        "</figure>"
    )


def _headline_html(rows: list[HeadlineRow]) -> str:
    table = ReportTable(
        "The paper's headline numbers (docs/definitions.md §2.2) beside this warehouse's.",
        HEADER,
        [(row.analysis, row.paper, row.here) for row in rows],
    )
    return _table_html(table)


def render_html(warehouse: str, results: list[SectionResult], headline: list[HeadlineRow]) -> str:
    """The whole page as one string (figures already saved: their SVG is read back)."""
    contents = "\n".join(
        f'<li><a href="#{result.section.key}">{html.escape(result.section.title)}</a></li>'
        for result in results
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>hostaware report</title>",
        f"<style>{STYLESHEET}</style>",
        "</head>",
        "<body>",
        "<header>",
        "<h1>hostaware: host-aware web crawling, reproduced</h1>",
        '<p class="source">Figures and tables of “Host-Aware Web Crawling for LLM Pretraining '
        "Data”, drawn from the marts of the warehouse "
        f"<code>{html.escape(warehouse)}</code> only. Each caption gives this warehouse's value "
        "and, where the paper states one, the paper's. An interval [low, high] beside a number, "
        "or an error bar on it, is where the number falls in 95% of samples of hosts drawn "
        "like this one: the bootstrap over hosts of docs/definitions.md B.</p>",
        "</header>",
        f'<nav><h2 id="contents">Contents</h2><ol><li><a href="#headline">Headline numbers'
        f"</a></li>\n{contents}</ol></nav>",
        '<section id="headline">',
        "<h2>Headline numbers</h2>",
        _headline_html(headline),
        "</section>",
    ]
    for result in results:
        section, content = result.section, result.content
        parts += [
            f'<section id="{section.key}">',
            f"<h2>{html.escape(section.title)}</h2>",
            '<p class="marts">From '
            + ", ".join(f"<code>{html.escape(mart)}</code>" for mart in section.marts)
            + ".</p>",
        ]
        parts += [f'<p class="note">{html.escape(note)}</p>' for note in content.notes]
        parts += [_figure_html(figure) for figure in content.figures]
        parts += [_table_html(table) for table in content.tables]
        parts.append("</section>")
    parts += [
        '<footer class="source"><p>Written by <code>python -m report</code>. Reference values: '
        "<code>report/paper.py</code> (docs/definitions.md §2.2, Headline numbers).</p></footer>",
        "</body>",
        "</html>",
        "",
    ]
    return "\n".join(parts)


def write_report(marts: Marts, out: Path) -> Report:
    """Draw every section from ``marts`` and write ``out/index.html`` and ``out/figures/``.

    Figure files of a figure that could not be drawn this time are removed, so that no stale
    file is left beside the page.
    """
    figures_folder = out / "figures"
    figures_folder.mkdir(parents=True, exist_ok=True)
    for name in FIGURES:
        for suffix in (".png", ".svg"):
            (figures_folder / f"{name}{suffix}").unlink(missing_ok=True)
    with matplotlib.rc_context(charts.STYLE):
        results = []
        for section in SECTIONS:
            result = draw_section(section, marts)
            for figure in result.content.figures:
                png, svg = charts.save(figure.figure, figures_folder, figure.name)
                figure.png, figure.svg = str(png), str(svg)
            results.append(result)
    headline = headline_rows(marts)
    index = out / "index.html"
    partial = out / "index.html.partial"
    partial.write_text(render_html(str(marts.path), results, headline), encoding="utf-8")
    partial.replace(index)
    return Report(index, results, headline)
