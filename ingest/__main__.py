"""Command line of the ingest package: ``python -m ingest <command> …``."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import NoReturn

__all__ = ["main"]


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (``prog: error: message``), exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m ingest", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log each step")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    synth = commands.add_parser(
        "synth", help="write a demo crawl in Common Crawl's formats, with planted truth"
    )
    synth.add_argument("--out", type=Path, required=True, help="folder to write (e.g. data/raw)")
    synth.add_argument("--seed", type=_non_negative, default=20241010, help="random seed")
    synth.add_argument(
        "--scale", default="demo", help="tiny (~100 hosts), demo (~2,000 hosts) or paper"
    )
    synth.add_argument("--force", action="store_true", help="replace a non-empty --out")
    synth.add_argument(
        "--lake",
        type=Path,
        default=None,
        help="paper scale: lake folder for the documents tables (default: <out>/../lake)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; bad arguments give a one-line error and exit code 2."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args.command == "synth":
        from ingest.synth.generate import SynthError, synthesize

        try:
            truth = synthesize(args.out, args.seed, args.scale, args.force, args.lake)
        except SynthError as error:
            print(f"python -m ingest synth: error: {error}", file=sys.stderr)
            return 2
        documents = truth["documents"]
        print(
            f"synth {args.scale}: {truth['hosts']['graph_host_count']:,} graph hosts, "
            f"{documents['count']:,} sample pages on "
            f"{documents['hosts_with_ge3']:,} hosts with >= 3 pages, in "
            f"{truth['generation_seconds']:.1f} s -> {args.out}"
        )
        steps = ", ".join(
            f"{step} {seconds:.1f} s" for step, seconds in truth["timings_seconds"].items()
        )
        print(f"synth {args.scale} steps: {steps}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
