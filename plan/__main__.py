"""Command line of the crawl plan: ``python -m plan --budget N --out FILE`` and ``… export``.

``python -m plan export --format F --out PATH`` writes the plan as built in a crawler's format
(docs/exports.md; ``--format all`` writes every format into ``$HOSTAWARE_HOME/exports``).

Computes the crawl plan for N pages with dbt on a scratch copy of the warehouse (the shared
warehouse, its exports and ``target/`` are not changed) and writes it as CSV or Parquet
(``--sample-size K``, ``--exploration-share S``). Exit codes: 0 done, 2 a refused input (one
line ``python -m plan: error: ...``), 1 an internal error. Stopped by SIGTERM, SIGHUP or Ctrl-C,
it stops dbt and removes its scratch folder first, then ends by that signal.

The warehouse defaults to ``$WAREHOUSE_PATH``, else ``$HOSTAWARE_HOME/warehouse.duckdb``
(``HOSTAWARE_HOME`` defaults to ``./data``), as ``hostaware.paths``.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

from hostaware import paths
from hostaware.cli import OneLineParser, positive, share
from report.marts import WarehouseError

__all__ = ["main"]


def _budget(text: str) -> int:
    """A fetch budget: a whole number of pages, 1 to ``MAX_BUDGET_PAGES``."""
    from plan.crawl_plan import MAX_BUDGET_PAGES

    value = positive(text)
    if value > MAX_BUDGET_PAGES:
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_BUDGET_PAGES:,} pages (2**53), got {value:,}"
        )
    return value


def _add_warehouse(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--warehouse",
        type=Path,
        help="the DuckDB warehouse (default $WAREHOUSE_PATH or $HOSTAWARE_HOME/warehouse.duckdb)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="python -m plan",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--budget", type=_budget, required=True, help="fetch budget in pages (1 to 2**53)"
    )
    parser.add_argument(  # a str: a Path would drop a trailing / (checked by check_output)
        "--out", required=True, help="file to write: .csv or .parquet"
    )
    parser.add_argument("--sample-size", type=positive, help="pages sampled per unknown host (k)")
    parser.add_argument(
        "--exploration-share", type=share, help="share of the budget explored breadth-first"
    )
    _add_warehouse(parser)
    parser.add_argument("-v", "--verbose", action="store_true", help="log each step")
    return parser


def _home(warehouse: Path) -> Path:
    """``$HOSTAWARE_HOME``, else the warehouse's folder."""
    named = os.environ.get(paths.HOME_VARIABLE)
    return Path(named) if named else warehouse.parent


def _export_parser() -> argparse.ArgumentParser:
    from plan.exports import FORMATS

    parser = OneLineParser(
        prog="python -m plan export",
        description="Write the crawl plan as built (no rebuild) in a crawler's format.",
    )
    parser.add_argument(
        "--format",
        required=True,
        choices=[*FORMATS, "all"],
        help="; ".join(f"{name}: {spec.description}" for name, spec in FORMATS.items())
        + "; all: every format, into --out (default $HOSTAWARE_HOME/exports)",
    )
    parser.add_argument(
        "--out", type=Path, help="the file (csv, parquet) or folder (the crawlers') to write"
    )
    _add_warehouse(parser)
    return parser


# Where ``--format all`` puts each format, under its folder.
ALL_EXPORTS = {
    "nutch": "nutch",
    "cc-nutch": "cc-nutch",
    "urlfrontier": "urlfrontier",
    "heritrix": "heritrix",
    "csv": "crawl_plan.csv",
    "parquet": "crawl_plan.parquet",
}


def export_main(argv: list[str]) -> int:
    """``python -m plan export``: write the plan in one format, or all; print what was written."""
    from plan.exports import ExportError, export

    args = _export_parser().parse_args(argv)
    warehouse = args.warehouse or paths.warehouse()
    if args.format == "all":
        folder = args.out or paths.exports()
        targets = [(name, folder / place) for name, place in ALL_EXPORTS.items()]
    elif args.out is None:
        print("python -m plan export: error: --out is required", file=sys.stderr)
        return 2
    else:
        targets = [(args.format, args.out)]
    try:
        for name, out in targets:
            print(export(warehouse, name, out).summary())
    except ExportError as error:
        print(f"python -m plan export: error: {error}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """Compute, write and summarise the plan; errors are one line on stderr."""
    from plan.crawl_plan import PlanError, PlanRequest, check_output, make_plan

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["export"]:
        return export_main(argv[1:])
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.ERROR,
        format="%(levelname)s %(name)s: %(message)s",
    )
    warehouse = args.warehouse or paths.warehouse()
    try:
        with _signals_stop_the_command():
            check_output(args.out)  # as given: a trailing / says a folder
            request = PlanRequest(
                args.budget, Path(args.out), args.sample_size, args.exploration_share
            )
            print(make_plan(request, warehouse, _home(warehouse)))
    except (PlanError, WarehouseError) as error:
        print(f"python -m plan: error: {error}", file=sys.stderr)
        return 2
    except (_Stopped, KeyboardInterrupt) as stopped:
        # dbt is stopped and the scratch folder removed: now end by the signal, as asked
        number = stopped.number if isinstance(stopped, _Stopped) else signal.SIGINT
        print(f"python -m plan: stopped by {signal.Signals(number).name}", file=sys.stderr)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        return 128 + number
    return 0


class _Stopped(BaseException):
    """A signal asked the command to stop (SIGTERM, SIGHUP).

    Raised where the command was, so that what it started is stopped and removed as it unwinds.
    """

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


@contextlib.contextmanager
def _signals_stop_the_command() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into :class:`_Stopped` (Ctrl-C is a KeyboardInterrupt already)."""

    def stop(number: int, frame: object) -> None:
        raise _Stopped(number)

    previous = {number: signal.signal(number, stop) for number in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


if __name__ == "__main__":
    sys.exit(main())
