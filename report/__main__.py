"""Command line of the report: ``python -m report [build|headline|plan] …``.

* ``python -m report [--warehouse PATH] [--out DIR]`` writes ``DIR/index.html`` and
  ``DIR/figures/`` from the warehouse's marts, then prints the headline table.
* ``python -m report headline [--warehouse PATH]`` prints the headline table only.
* ``python -m report plan --budget N --out FILE [--sample-size K] [--exploration-share S]``
  computes the crawl plan for N pages with dbt on a scratch copy of the warehouse (the shared
  warehouse, its exports and ``target/`` are not changed) and writes it as CSV or Parquet.

The warehouse defaults to ``$WAREHOUSE_PATH``, else ``$HOSTAWARE_HOME/warehouse.duckdb``
(``HOSTAWARE_HOME`` defaults to ``./data``); the report folder to ``$HOSTAWARE_HOME/report``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import NoReturn

from report.marts import WarehouseError, default_home, default_warehouse

COMMANDS = ("build", "headline", "plan")

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``prog: error: message``), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _budget(text: str) -> int:
    """A fetch budget: a whole number of pages, 1 to ``MAX_BUDGET_PAGES``."""
    from report.crawl_plan import MAX_BUDGET_PAGES

    value = _positive(text)
    if value > MAX_BUDGET_PAGES:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_BUDGET_PAGES:,} pages (2**53), got {value:,}"
        )
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m report",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    warehouse_help = (
        "the DuckDB warehouse (default $WAREHOUSE_PATH or $HOSTAWARE_HOME/warehouse.duckdb)"
    )

    build = commands.add_parser("build", help="write the HTML report and its figures (default)")
    build.add_argument("--warehouse", type=Path, help=warehouse_help)
    build.add_argument("-v", "--verbose", action="store_true", help="log each step")
    build.add_argument("--out", type=Path, help="report folder (default $HOSTAWARE_HOME/report)")

    headline = commands.add_parser(
        "headline", help="print the paper's headline numbers beside ours"
    )
    headline.add_argument("--warehouse", type=Path, help=warehouse_help)
    headline.add_argument("-v", "--verbose", action="store_true", help="log each step")
    headline.add_argument(
        "--out", type=Path, help="the report folder whose path to print (default as build)"
    )

    plan = commands.add_parser(
        "plan", help="compute a what-if crawl plan for a budget and export it"
    )
    plan.add_argument(
        "--budget", type=_budget, required=True, help="fetch budget in pages (1 to 2**53)"
    )
    plan.add_argument("--out", type=Path, required=True, help="file to write: .csv or .parquet")
    plan.add_argument("--sample-size", type=_positive, help="pages sampled per unknown host (k)")
    plan.add_argument(
        "--exploration-share", type=_share, help="share of the budget explored breadth-first"
    )
    plan.add_argument("--warehouse", type=Path, help=warehouse_help)
    plan.add_argument("-v", "--verbose", action="store_true", help="log each step")
    return parser


def _home(warehouse: Path) -> Path:
    """``$HOSTAWARE_HOME``, else the warehouse's folder."""
    named = os.environ.get("HOSTAWARE_HOME")
    return Path(named) if named else warehouse.parent


def _build(args: argparse.Namespace) -> int:
    from report.headline import format_headline
    from report.marts import Marts
    from report.page import write_report

    out = args.out or default_home() / "report"
    with Marts(args.warehouse or default_warehouse()) as marts:
        report = write_report(marts, out)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    print(
        f"wrote {report.index} and {len(report.figures)} figures (PNG and SVG) in {out / 'figures'}"
    )
    print()
    print(format_headline(report.headline, str(report.index)))
    return 0


def _headline(args: argparse.Namespace) -> int:
    from report.headline import format_headline, headline_rows
    from report.marts import Marts

    out = args.out or default_home() / "report"
    with Marts(args.warehouse or default_warehouse()) as marts:
        rows = headline_rows(marts)
    index = out / "index.html"
    where = str(index) if index.is_file() else f"{index} (not written yet: python -m report)"
    print(format_headline(rows, where))
    return 0


def _plan(args: argparse.Namespace) -> int:
    from report.crawl_plan import PlanError, PlanRequest, make_plan

    warehouse = args.warehouse or default_warehouse()
    request = PlanRequest(args.budget, args.out, args.sample_size, args.exploration_share)
    try:
        print(make_plan(request, warehouse, _home(warehouse)))
    except PlanError as error:
        print(f"python -m report plan: error: {error}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run one command (``build`` when none is named); errors are one line on stderr."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in (*COMMANDS, "-h", "--help"):
        argv.insert(0, "build")
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.ERROR,
        format="%(levelname)s %(name)s: %(message)s",
    )
    handlers = {"build": _build, "headline": _headline, "plan": _plan}
    try:
        return handlers[args.command](args)
    except WarehouseError as error:
        print(f"python -m report {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
