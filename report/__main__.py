"""Command line of the report: ``python -m report [build|headline] …``.

* ``python -m report [--warehouse PATH] [--out DIR]`` writes ``DIR/index.html`` and
  ``DIR/figures/`` from the warehouse's marts, then prints the headline table. A ``DIR`` that
  is a file, or in which no file can be created, is refused before the warehouse is read.
* ``python -m report headline [--warehouse PATH]`` prints the headline table only.

The crawl plan's command is ``python -m plan`` (the ``plan`` package).

The warehouse defaults to ``$WAREHOUSE_PATH``, else ``$HOSTAWARE_HOME/warehouse.duckdb``
(``HOSTAWARE_HOME`` defaults to ``./data``); the report folder to ``$HOSTAWARE_HOME/report``.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import NoReturn

from hostaware import paths
from hostaware.cli import unwritable_folder
from report.marts import WarehouseError

COMMANDS = ("build", "headline")

__all__ = ["main"]


class ReportOutError(Exception):
    """The report folder (``--out``) cannot be written; the message says why."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``prog: error: message``), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


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

    return parser


def _build(args: argparse.Namespace) -> int:
    from report.headline import format_headline
    from report.marts import Marts
    from report.page import write_report

    out = args.out or paths.home() / "report"
    problem = unwritable_folder(out)  # before any work: an existing file, /proc, read-only
    if problem is not None:
        raise ReportOutError(f"--out {out}: {problem}")
    with Marts(args.warehouse or paths.warehouse()) as marts:
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

    out = args.out or paths.home() / "report"
    with Marts(args.warehouse or paths.warehouse()) as marts:
        rows = headline_rows(marts)
    index = out / "index.html"
    where = str(index) if index.is_file() else f"{index} (not written yet: python -m report)"
    print(format_headline(rows, where))
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
    handlers = {"build": _build, "headline": _headline}
    try:
        return handlers[args.command](args)
    except (WarehouseError, ReportOutError) as error:
        print(f"python -m report {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
