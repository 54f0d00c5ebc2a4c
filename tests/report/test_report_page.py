"""The report written from marts: the figures, the page, the headline, the marts' export.

Tests without a warehouse: a warehouse whose marts are missing or empty (notes, not a crash), a
missing warehouse, an export to a folder whose name holds SQL and glob characters. Tests marked
``warehouse`` read the tiny crawl's warehouse (``tiny_warehouse_path`` in tests/conftest.py,
named by ``HOSTAWARE_TEST_WAREHOUSE``; skipped when unset): the report of every figure (PNG and
SVG), a self-contained page with every figure and caption, identical files on a second run, the
headline command. The helpers (formatting, captions, numbers) are tested in
tests/report/test_report_numbers.py, the plan's command in tests/plan/test_plan_cli.py.
"""

from __future__ import annotations

import base64
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from hostaware.paths import HOME_VARIABLE, PROJECT
from report.__main__ import main
from report.headline import ANALYSES, format_headline, headline_rows
from report.marts import Marts
from report.page import write_report
from report.sections import FIGURES, SECTIONS

# ----------------------------------------------------------------------- without a warehouse


@pytest.fixture
def bare_warehouse(tmp_path: Path) -> Path:
    """A warehouse with one empty mart and one whose columns are not the mart's."""
    path = tmp_path / "bare.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute("create table rpt_host_quality_icc (classifier varchar, min_docs int)")
    connection.execute("create table rpt_graph_rank_stability as select 1 as unexpected")
    connection.close()
    return path


def test_missing_and_empty_marts_give_notes_not_figures(bare_warehouse: Path, tmp_path: Path):
    out = tmp_path / "report"
    (out / "figures").mkdir(parents=True)
    stale = out / "figures" / "icc_by_classifier.png"
    stale.write_bytes(b"old")
    with Marts(bare_warehouse) as marts:
        report = write_report(marts, out)
    assert report.figures == []
    assert not stale.exists(), "a figure not drawn this time leaves no old file behind"
    assert len(report.notes) == len(SECTIONS)
    page = report.index.read_text()
    assert "rpt_host_quality_icc is empty" in page
    assert "rpt_hidden_gems is not in the warehouse" in page
    assert "rpt_graph_rank_stability has no column" in page
    with Marts(bare_warehouse) as marts:
        rows = headline_rows(marts)
    assert [row.analysis for row in rows] == list(ANALYSES)
    assert all(row.here.startswith("n/a") for row in rows)


def test_build_without_a_warehouse_is_a_one_line_error(tmp_path: Path, capsys):
    assert main(["--warehouse", str(tmp_path / "none.duckdb"), "--out", str(tmp_path)]) == 2
    assert "no warehouse at" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["a_file", "under_a_file", "proc"])
def test_an_out_that_cannot_be_a_folder_is_refused_before_any_work(
    where: str, bare_warehouse: Path, tmp_path: Path, capsys
):
    """Finding 10: ``--out`` naming an existing file failed with NotADirectoryError, after
    the work. Now it is refused first: the warehouse is not even opened (a missing one is not
    the error reported)."""
    a_file = tmp_path / "report.html"
    a_file.write_text("not a folder\n")
    out = {"a_file": a_file, "under_a_file": a_file / "report", "proc": Path("/proc/report")}[where]
    assert main(["--warehouse", str(tmp_path / "none.duckdb"), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"python -m report build: error: --out {out}: "), error
    assert len(error.strip().splitlines()) == 1, error
    assert ("is not a folder" if where != "proc" else "cannot write in /proc") in error
    assert a_file.read_text() == "not a folder\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bare.duckdb", "report.html"]


# ----------------------------------------------------------------------- on the tiny warehouse


@pytest.fixture(scope="module")
def built(tiny_warehouse_path: Path, tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("report") / "report"
    with Marts(tiny_warehouse_path) as marts:
        return write_report(marts, out)


@pytest.mark.warehouse
def test_every_figure_is_written_as_png_and_svg(built):
    folder = built.index.parent / "figures"
    assert [figure.name for figure in built.figures] == list(FIGURES)
    for name in FIGURES:
        png, svg = folder / f"{name}.png", folder / f"{name}.svg"
        assert png.stat().st_size > 1000, png
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), png
        assert svg.stat().st_size > 1000, svg
        assert b"<svg" in svg.read_bytes()[:2000], svg
    assert built.notes == [], "every mart of the tiny warehouse has rows"


@pytest.mark.warehouse
def test_the_page_is_self_contained(built):
    page = built.index.read_text(encoding="utf-8")
    assert "http:" not in page and "https:" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?//""", page)
    assert not re.search(r"<script|<link|<iframe|@import|url\(", page, re.IGNORECASE)
    sources = re.findall(r'<img src="([^"]+)"', page)
    assert len(sources) == len(FIGURES)
    assert all(source.startswith("data:image/svg+xml;base64,") for source in sources)


@pytest.mark.warehouse
def test_the_page_embeds_every_figure_with_its_caption(built):
    page = built.index.read_text(encoding="utf-8")
    folder = built.index.parent / "figures"
    for figure in built.figures:
        block = re.search(
            rf'<figure id="figure-{figure.name}">\n<img src="data:image/svg\+xml;base64,'
            r'([^"]+)"',
            page,
        )
        assert block, f"{figure.name} is not on the page"
        assert base64.b64decode(block.group(1)) == (folder / f"{figure.name}.svg").read_bytes()
        assert figure.caption and html.escape(figure.caption) in page, figure.name
    for table in built.tables:
        assert html.escape(table.caption) in page


@pytest.mark.warehouse
def test_the_icc_table_gives_each_value_its_bootstrap_interval(built):
    (table,) = [t for t in built.tables if t.caption.startswith("Table 8")]
    with_interval = re.compile(r"-?\d\.\d{3} \[-?\d\.\d{3}, -?\d\.\d{3}\]")
    for row in table.rows:
        assert all(with_interval.fullmatch(cell) for cell in row[1:4]), row


@pytest.mark.warehouse
def test_the_pooled_centrality_table_gives_each_rho_its_bootstrap_interval(built):
    (table,) = [t for t in built.tables if t.caption.startswith("Table 4")]
    with_interval = re.compile(r"[+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\]")
    assert table.rows
    for row in table.rows:
        assert with_interval.fullmatch(row[3]), row


@pytest.mark.warehouse
def test_the_budget_table_gives_each_ratio_its_interval_and_the_seeds_spread(built):
    (table,) = [t for t in built.tables if t.caption.startswith("Table 3")]
    with_interval = re.compile(r"\d+\.\d\d× \[-?\d+\.\d\d×, -?\d+\.\d\d×\]")
    compared = [row for row in table.rows if row[1] != "random"]
    assert compared
    for row in compared:
        assert with_interval.fullmatch(row[3]), row
        assert re.fullmatch(r"±\d\.\d{3}", row[4]), row
    for row in table.rows:
        if row[1] == "random":
            assert row[3] == "1.00×" and row[4] == "n/a", row


@pytest.mark.warehouse
def test_the_coverage_quality_captions_give_each_rho_its_interval(built):
    captions = {figure.name: figure.caption for figure in built.figures}
    with_interval = r"[+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\]"
    by_signal = re.search(r"GneissWeb: (.*?) here,", captions["coverage_quality_by_signal"])
    assert by_signal, captions["coverage_quality_by_signal"]
    rhos = re.findall(rf"({with_interval}) \(≥ (\d+)\)", by_signal.group(1))
    assert [minimum for _, minimum in rhos] == ["1", "3", "10"], by_signal.group(1)
    assert "95% bootstrap intervals" in captions["coverage_quality_by_crawl"]


@pytest.mark.warehouse
def test_the_uncrawled_table_gives_the_total_and_low_coverage_share_their_intervals(built):
    (table,) = [t for t in built.tables if t.caption.startswith("Uncrawled HQ pages per crawl")]
    count = r"[\d,.]+M?"
    assert table.rows
    for row in table.rows:
        assert re.fullmatch(rf"{count} \[{count}, {count}\]", row[2]), row
        assert re.fullmatch(r"[\d,]+, \d+% \[\d+%, \d+%\]", row[4]), row


@pytest.mark.warehouse
def test_the_k_sample_caption_gives_each_rho_its_interval(built):
    captions = {figure.name: figure.caption for figure in built.figures}
    text = captions["sample_size_correlation"]
    rho = r"-?\d\.\d\d"
    with_interval = rf"{rho} \[{rho}, {rho}\]"
    for k in (3, 5):
        found = re.search(rf"k = {k}: ρ = ({with_interval}) \(full crawl\)", text)
        assert found, text
    assert "95% bootstrap interval over hosts" in text


@pytest.mark.warehouse
def test_the_depth_caption_gives_hc_depths_extremes_their_intervals(built):
    captions = {figure.name: figure.caption for figure in built.figures}
    ratio = r"\d+\.\d\d×"
    with_interval = rf"{ratio} \[{ratio}, {ratio}\]"
    text = captions["depth_policy_curves"]
    found = re.search(
        rf"HC depth ({with_interval}) to ({with_interval}) \(95% intervals hold 1× at (\d+) of "
        rf"(\d+) budgets × signals\) here, little or no gain in the paper",
        text,
    )
    assert found, text
    assert 0 <= int(found.group(3)) <= int(found.group(4)) > 0
    assert "bands: 95% bootstrap intervals over hosts" in text


@pytest.mark.warehouse
def test_captions_give_the_papers_value_beside_ours(built):
    captions = {figure.name: figure.caption for figure in built.figures}
    assert "here, 0.43–0.62 in the paper" in captions["icc_by_classifier"]
    assert "here, 0.53 in the paper" in captions["sample_size_correlation"]
    assert "here, 0.57 in the paper" in captions["sample_size_correlation"]
    assert "here, 0.851–0.923 in the paper" in captions["graph_rank_stability"]
    assert "in the paper" in captions["missed_hq_by_tld"]
    for name, text in captions.items():
        assert text.endswith("."), name
        assert "\n" not in text, name


@pytest.mark.warehouse
def test_a_second_run_writes_identical_files(built, tmp_path: Path, tiny_warehouse_path: Path):
    with Marts(tiny_warehouse_path) as marts:
        again = write_report(marts, tmp_path / "again")
    first, second = built.index.parent, again.index.parent
    names = sorted(path.relative_to(first) for path in first.rglob("*") if path.is_file())
    assert names == sorted(path.relative_to(second) for path in second.rglob("*") if path.is_file())
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


@pytest.mark.warehouse
def test_headline_prints_every_row_and_the_report_path(tiny_warehouse_path: Path, tmp_path: Path):
    warehouse = tiny_warehouse_path
    result = subprocess.run(
        [sys.executable, "-m", "report", "headline", "--warehouse", str(warehouse)],
        cwd=PROJECT,
        env={**os.environ, HOME_VARIABLE: str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    for analysis in ANALYSES:
        assert analysis in result.stdout, analysis
    assert f"report: {tmp_path / 'report' / 'index.html'}" in result.stdout
    assert "n/a:" not in result.stdout, "every mart of the tiny warehouse has rows"
    with Marts(warehouse) as marts:
        rows = headline_rows(marts)
    assert format_headline(rows) in result.stdout


def test_the_plan_export_takes_its_path_as_data(tmp_path: Path):
    warehouse = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(warehouse)) as connection:
        connection.execute("create table plan_host_fetch_budget as select 'com,a' as host, 3 as n")
    folder = tmp_path / "it's [1] {x}"
    folder.mkdir()
    out = folder / "plan.csv"
    with Marts(warehouse) as marts:
        rows = marts.export("plan_host_fetch_budget", "select * from {mart}", out, "csv")
    assert rows == 1
    assert pd.read_csv(out).to_dict("records") == [{"host": "com,a", "n": 3}]
