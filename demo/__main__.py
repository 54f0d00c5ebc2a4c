"""Command line of the demo: ``python -m demo <command> …``.

The demo is not part of the ingest: it writes a crawl in Common Crawl's published formats (with
the truth it planted) for the ingest to read, trains the demo crawl's fastText classifiers from
its corpus, and writes the large inputs the lake-ingest benchmark times (``bench-inputs``, one
JSON line describing them on standard output). Exit status: 0 on success, 2 with one line
``python -m demo <command>: error: …`` when arguments or files are refused.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

from hostaware import paths
from hostaware.cli import OneLineParser, non_negative

REGISTRY = paths.SEEDS / "classifier_registry.csv"

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="python -m demo", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log each step")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    crawl = commands.add_parser(
        "crawl", help="write a demo crawl in Common Crawl's formats, with planted truth"
    )
    crawl.add_argument("--out", type=Path, required=True, help="folder to write (e.g. data/raw)")
    crawl.add_argument("--seed", type=non_negative, default=20241010, help="random seed")
    crawl.add_argument(
        "--scale", default="demo", help="tiny (~100 hosts), demo (~2,000 hosts) or paper"
    )
    crawl.add_argument("--force", action="store_true", help="replace a non-empty --out")
    crawl.add_argument(
        "--lake",
        type=Path,
        default=None,
        help="paper scale: lake folder for the documents tables (default: <out>/../lake)",
    )
    train = commands.add_parser(
        "classifiers", help="train the demo crawl's fastText models from its corpus"
    )
    train.add_argument(
        "--raw", type=Path, default=paths.home() / "raw", help="the demo crawl's folder"
    )
    train.add_argument("--registry", type=Path, default=REGISTRY, help="classifier registry")
    inputs = commands.add_parser(
        "bench-inputs", help="write the lake-ingest benchmark's inputs (cached), print them"
    )
    inputs.add_argument("kind", choices=["ranks", "host-index"], help="which input")
    inputs.add_argument("--out", type=Path, required=True, help="folder of the inputs (a cache)")
    inputs.add_argument("--rows", type=non_negative, default=50_000_000, help="ranks rows")
    inputs.add_argument(
        "--prefix-rows",
        default="",
        help="ranks: comma-separated N, files holding the first N rows (N < --rows)",
    )
    inputs.add_argument("--hosts", type=non_negative, default=5_000_000, help="hosts per crawl")
    inputs.add_argument("--workers", type=non_negative, default=2, help="processes (ranks)")
    real = commands.add_parser(
        "real-size",
        help="write one crawl's inputs (host index, annotations, ranks) at a share of a real "
        "crawl's 335M hosts",
    )
    real.add_argument("--out", type=Path, required=True, help="folder of the inputs (a cache)")
    real.add_argument(
        "--fraction", type=_fraction, required=True, help="share of the 335,267,082 hosts"
    )
    real.add_argument("--crawl", default="CC-MAIN-2024-10", help="the crawl partition")
    real.add_argument(
        "--part-rows", type=non_negative, default=2_000_000, help="hosts per Parquet part"
    )
    real.add_argument("--ranks", action="store_true", help="also the graph release's ranks file")
    real.add_argument(
        "--url-rows", type=non_negative, default=0, help="also about this many URL-level rows"
    )
    real.add_argument(
        "--url-parts",
        type=non_negative,
        default=0,
        help="write at most this many parts of the URL rows (0: all); run again for the next",
    )
    real.add_argument(
        "--lake", type=Path, default=None, help="commit the classified sample to this lake"
    )
    real.add_argument(
        "--memory-limit", default="4GB", help="DuckDB's limit for the PageRank order's sort"
    )
    real.add_argument("--workers", type=non_negative, default=2, help="processes (ranks)")
    return parser


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"a share in (0, 1], not {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Run one command; refused arguments give a one-line error and exit code 2."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if args.command == "crawl":
        return _crawl(args)
    if args.command == "bench-inputs":
        return _bench_inputs(args)
    if args.command == "real-size":
        return _real_size(args)
    return _classifiers(args)


def _crawl(args: argparse.Namespace) -> int:
    from demo.generate import SynthError, synthesize

    try:
        truth = synthesize(args.out, args.seed, args.scale, args.force, args.lake)
    except SynthError as error:
        print(f"python -m demo crawl: error: {error}", file=sys.stderr)
        return 2
    documents = truth["documents"]
    print(
        f"demo crawl {args.scale}: {truth['hosts']['graph_host_count']:,} graph hosts, "
        f"{documents['count']:,} sample pages on "
        f"{documents['hosts_with_ge3']:,} hosts with >= 3 pages, in "
        f"{truth['generation_seconds']:.1f} s -> {args.out}"
    )
    steps = ", ".join(
        f"{step} {seconds:.1f} s" for step, seconds in truth["timings_seconds"].items()
    )
    print(f"demo crawl {args.scale} steps: {steps}")
    return 0


def _classifiers(args: argparse.Namespace) -> int:
    from demo.train import train_demo_classifiers
    from ingest.quality import ClassifierError, load_registry

    try:
        entries = load_registry(args.registry, args.raw)
        models = [entry for entry in entries if not entry.is_precomputed]  # nothing to train
        results = train_demo_classifiers(args.raw, models)
    except ClassifierError as error:
        print(f"python -m demo classifiers: error: {error}", file=sys.stderr)
        return 2
    for result in results:
        print(
            f"{result['classifier']:<28} {result['train_documents']:>6,} docs "
            f"{result['seconds']:>5.1f} s  valid Brier {result['valid_brier']:.3f}  "
            f"mean score {result['valid_mean_score']:.3f} "
            f"vs label {result['valid_mean_label_value']:.3f}"
        )
    return 0


def _bench_inputs(args: argparse.Namespace) -> int:
    from demo.bench_inputs import host_index_files, ranks_files

    if args.kind == "ranks":
        prefixes = sorted({int(n) for n in args.prefix_rows.split(",") if n})
        info = ranks_files(args.out, args.rows, prefixes, max(1, args.workers))
    else:
        info = host_index_files(args.out, args.hosts)
    print(json.dumps(info))
    return 0


def _real_size(args: argparse.Namespace) -> int:
    from demo import real_size

    started = time.perf_counter()
    index = real_size.host_index(
        args.out, args.fraction, args.crawl, max(1, args.part_rows), args.memory_limit
    )
    info = {
        "folder": str(index.root),
        "hosts": index.hosts,
        "index": {
            "rows": index.rows,
            "parts": len(index.parts),
            "cached_parts": index.cached_parts,
            "bytes": index.bytes,
            "seconds": round(index.seconds, 1),
        },
    }
    if args.ranks:
        info["ranks"] = real_size.ranks(index, max(1, args.workers))
    if args.url_rows:
        info["url_annotations"] = real_size.url_annotations(
            index, args.url_rows, args.url_parts or None
        )
    if args.lake:
        row = real_size.classified_sample(index, args.lake)
        info["sample"] = {"documents": row["records_written"], "part_key": row["part_key"]}
    info["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(info, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
