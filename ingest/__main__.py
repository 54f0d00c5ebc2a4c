"""Command line of the ingest package: ``python -m ingest <command> …``.

Exit status: 0 when every input was ingested or skipped as committed already; 2 with one line
``python -m ingest <command>: error: <message>`` on standard error when arguments or inputs are
refused (the message names the file and, for a record, where it is); 1 with one line
``… internal error …`` for a bug (``--verbose`` shows its traceback). A file refused never
undoes the files committed before it.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from hostaware import paths
from hostaware.cli import OneLineParser, non_negative, share
from ingest.reasons import is_document_failure

REGISTRY = paths.CLASSIFIER_REGISTRY

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="python -m ingest", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log each step")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    documents = commands.add_parser(
        "documents", help="WARC/WET files -> main text, language, classifier scores -> lake"
    )
    documents.add_argument(
        "--warc", nargs="+", required=True, metavar="GLOB", help="files or glob patterns"
    )
    documents.add_argument("--crawl", required=True, help="crawl id, e.g. CC-MAIN-2024-10")
    documents.add_argument("--lake", type=Path, default=paths.lake(), help="lake folder")
    documents.add_argument(
        "--raw", type=Path, default=paths.raw(), help="folder relative model paths start from"
    )
    documents.add_argument("--registry", type=Path, default=REGISTRY, help="classifier registry")
    documents.add_argument(
        "--classifiers", nargs="*", default=None, help="only these registry classifiers"
    )
    documents.add_argument("--workers", type=non_negative, default=0, help="0: all cores")
    documents.add_argument("--keep-text", action="store_true", help="store the main text too")
    documents.add_argument(
        "--allow-crawl-mismatch",
        action="store_true",
        help="ingest files whose warcinfo isPartOf names another crawl, as --crawl",
    )
    documents.add_argument(
        "--replace",
        action="store_true",
        help="ingest files already in the lake again (to move a file to another --crawl)",
    )
    documents.add_argument(
        "--max-failure-rate",
        type=share,
        default=0.05,
        help="hold back a file when more than this share of its pages failed (default 0.05; "
        "1 commits what every file holds)",
    )

    graph = commands.add_parser(
        "graph", help="web-graph ranks (and vertices, edges) of one release -> lake"
    )
    graph.add_argument(
        "--release",
        required=True,
        help="a release of seeds/graph_releases.csv, e.g. cc-main-2024-nov-feb-apr",
    )
    graph.add_argument("--ranks", type=Path, help="<release>-host-ranks.txt.gz")
    graph.add_argument(
        "--vertices",
        nargs="+",
        metavar="GLOB",
        help="vertices part files (downloaded from the *-host-vertices.paths.gz listing)",
    )
    graph.add_argument(
        "--edges",
        nargs="+",
        metavar="GLOB",
        help="edges part files (downloaded from the *-host-edges.paths.gz listing)",
    )
    graph.add_argument("--replace", action="store_true", help="replace the release's ranks")

    host_index = commands.add_parser(
        "host-index", help="Common Crawl host-index Parquet (crawl=<id>/ folders) -> lake"
    )
    annotations = commands.add_parser(
        "annotations",
        help="page or host quality annotations (GneissWeb, FineWeb-Edu) Parquet -> lake",
    )
    annotations.add_argument(
        "--profile",
        help="read every file under this annotation profile instead of detecting it "
        "(cc_gneissweb_urls, cc_gneissweb_hosts, dpk_gneissweb, fineweb_edu, dclm_baseline, "
        "fineweb2_hq, fineweb_edu_datatrove)",
    )
    annotations.add_argument(
        "--column",
        action="append",
        default=[],
        metavar="NAME=COLUMN",
        help="with --profile: read the profile's column NAME from the file's COLUMN (a dotted "
        "path reaches a struct's field: score=metadata.score); chooses between two spellings "
        "a file holds; repeatable",
    )
    for command in (host_index, annotations):
        command.add_argument(
            "--path", nargs="+", required=True, metavar="DIR_OR_GLOB", help="files or folders"
        )
        command.add_argument("--crawl", help="crawl id when the path has no crawl=<id> folder")
        command.add_argument(
            "--workers",
            type=non_negative,
            default=0,
            help="processes, one file each (0: one per core, at most 4)",
        )
        command.add_argument(
            "--replace",
            action="store_true",
            help="ingest files already in the lake again (to move a file to another crawl)",
        )
    scores = commands.add_parser(
        "scores",
        help="document scores computed elsewhere (Parquet/CSV) of precomputed classifiers -> lake",
    )
    scores.add_argument(
        "--path", nargs="+", required=True, metavar="FILE_OR_GLOB", help="files or folders"
    )
    scores.add_argument(
        "--classifier", help="registry classifier of files that have no classifier column"
    )
    scores.add_argument(
        "--crawl", help="crawl of files with neither a crawl/dump column nor a crawl=<id> folder"
    )
    scores.add_argument(
        "--score-column",
        default="score",
        help="the column holding the raw score (default: score); a dotted path reaches a field "
        "of a struct column (metadata.score); an exact top-level name wins over a path",
    )
    scores.add_argument(
        "--id-column",
        help="the column holding the WARC-Record-ID (default: doc_id or id; may be a dotted path)",
    )
    scores.add_argument(
        "--url-column",
        help="match rows by the URL in this column instead of by id (default: url, when the "
        "file has no id column)",
    )
    scores.add_argument(
        "--crawl-column", help="the column holding each row's crawl (default: crawl or dump)"
    )
    scores.add_argument("--registry", type=Path, default=REGISTRY, help="classifier registry")
    scores.add_argument(
        "--replace", action="store_true", help="ingest files already in the lake again"
    )
    for command in (graph, host_index, annotations, scores):
        command.add_argument("--lake", type=Path, default=paths.lake(), help="lake folder")
        command.add_argument(
            "--max-reject-rate",
            type=share,
            default=0.001,
            help="fail a file when more than this share of its records is rejected"
            + (" (scores: not counting unknown_document)" if command is scores else ""),
        )

    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; refused arguments or inputs give a one-line error and exit code 2."""
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return _run(args)
    except OSError as error:  # a file that cannot be read or written, named
        where = f"{error.filename}: " if error.filename else ""
        print(
            f"python -m ingest {args.command}: error: {where}{error.strerror or error}",
            file=sys.stderr,
        )
        return 2
    except Exception as error:
        if args.verbose:
            raise
        print(
            f"python -m ingest {args.command}: internal error (a bug, please report it; "
            f"--verbose shows where): {type(error).__name__}: {error}",
            file=sys.stderr,
        )
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.command == "documents":
        return _documents(args)
    if args.command == "scores":
        return _scores(args)
    return _lake_ingest(args)


def _lake_ingest(args: argparse.Namespace) -> int:
    """The graph, host-index and annotations commands: run, then print one summary line."""
    from ingest.lake import LakeError, expand_inputs

    try:
        if args.command == "graph":
            from ingest.webgraph import ingest_graph

            rows = ingest_graph(
                args.release,
                args.lake,
                ranks=args.ranks,
                vertices=expand_inputs(args.vertices) if args.vertices else None,
                edges=expand_inputs(args.edges) if args.edges else None,
                max_reject_rate=args.max_reject_rate,
                replace=args.replace,
            )
            what = f"graph {args.release}"
        else:
            files = [path for path in expand_inputs(args.path) if path.suffix == ".parquet"]
            if args.command == "host-index":
                from ingest.host_index import ingest_host_index

                rows = ingest_host_index(
                    files,
                    args.lake,
                    args.crawl,
                    args.max_reject_rate,
                    workers=args.workers or None,
                    replace=args.replace,
                )
            else:
                from ingest.annotations import ingest_annotations

                rows = ingest_annotations(
                    files,
                    args.lake,
                    args.crawl,
                    args.max_reject_rate,
                    workers=args.workers or None,
                    profile=args.profile,
                    replace=args.replace,
                    columns=_column_choices(args.column),
                )
            what = args.command
    except LakeError as error:
        print(f"python -m ingest {args.command}: error: {error}", file=sys.stderr)
        return 2
    for row in rows:
        for note in row["schema_drift"] or []:
            print(f"{what}: schema drift in {row['source_file']}: {note}")
    _summary(what, rows)
    return 0


def _column_choices(given: list[str]) -> dict[str, str] | None:
    """``--column NAME=COLUMN`` options as a map (None when none is given)."""
    from ingest.lake import LakeError

    choices: dict[str, str] = {}
    for item in given:
        name, equals, column = item.partition("=")
        if not equals or not name or not column:
            raise LakeError(f"--column {item!r}: expected NAME=COLUMN (score=metadata.score)")
        if name in choices and choices[name] != column:
            raise LakeError(f"--column {name} given twice ({choices[name]}, {column})")
        choices[name] = column
    return choices or None


def _by_reason(rows: list[dict], column: str) -> str:
    """``reason count, …`` summed over the manifest rows' ``column`` (a reason -> count map)."""
    reasons: dict[str, int] = {}
    for row in rows:
        for reason, count in row.get(column) or []:
            reasons[reason] = reasons.get(reason, 0) + count
    return ", ".join(f"{reason} {count:,}" for reason, count in sorted(reasons.items()))


def _nulled(rows: list[dict]) -> str:
    """The summary's tail for values nulled in written records, if any."""
    detail = _by_reason(rows, "nulled_by_reason")
    return f"; values nulled in written records ({detail})" if detail else ""


def _summary(what: str, rows: list[dict]) -> None:
    read = sum(row["records_read"] for row in rows)
    written = sum(row["records_written"] for row in rows)
    detail = _by_reason(rows, "rejected_by_reason")
    tables = sorted({row["lake_table"] for row in rows})
    profiles: dict[str, int] = {}
    for row in rows:
        if row.get("annotation_profile"):
            profiles[row["annotation_profile"]] = profiles.get(row["annotation_profile"], 0) + 1
    read_as = ", ".join(f"{name} {count}" for name, count in sorted(profiles.items()))
    print(
        f"{what}: {len(rows)} files{f' ({read_as})' if read_as else ''} ingested into "
        f"{', '.join(tables) or 'nothing new'}, "
        f"{read:,} records read, {written:,} written, {read - written:,} rejected"
        + (f" ({detail})" if detail else "")
        + _nulled(rows)
    )


def _documents(args: argparse.Namespace) -> int:
    """The documents command: the summary of what was committed, then any file held back."""
    from ingest.documents import FilesHeldBackError, ingest_documents
    from ingest.lake import LakeError, expand_inputs
    from ingest.quality import ClassifierError, load_registry

    held_back: FilesHeldBackError | None = None
    try:
        entries = load_registry(args.registry, args.raw, args.classifiers)
        files = expand_inputs(args.warc)
        rows = ingest_documents(
            files,
            args.crawl,
            args.lake,
            entries,
            args.workers or None,
            args.keep_text,
            allow_crawl_mismatch=args.allow_crawl_mismatch,
            replace=args.replace,
            max_failure_rate=args.max_failure_rate,
        )
    except FilesHeldBackError as error:
        held_back, rows = error, error.rows
    except (LakeError, ClassifierError) as error:
        print(f"python -m ingest documents: error: {error}", file=sys.stderr)
        return 2
    read = sum(row["records_read"] for row in rows)
    written = sum(row["records_written"] for row in rows)
    failed = sum(
        count
        for row in rows
        for reason, count in row["rejected_by_reason"] or []
        if is_document_failure(reason)
    )
    held = len(held_back.failures) if held_back is not None else 0
    skipped = len(files) - len(rows) - held
    detail = _by_reason(rows, "rejected_by_reason")
    print(
        f"documents {args.crawl}: {len(rows)} files ingested ({skipped} already in the lake"
        + (f", {held} refused or held back: below" if held else "")
        + f"), {read:,} records read, {written:,} written, {read - written:,} rejected"
        + (f" ({detail})" if detail else "")
        + (f"; {failed:,} of them failed pages" if read > written else "")
        + _nulled(rows)
    )
    if held_back is not None:
        print(f"python -m ingest documents: error: {held_back}", file=sys.stderr)
        return 2
    return 0


def _scores(args: argparse.Namespace) -> int:
    """The scores command: precomputed classifiers' score files into the lake."""
    from ingest.lake import LakeError, expand_inputs
    from ingest.quality import ClassifierError, load_registry
    from ingest.scores import SUFFIXES, ingest_scores, is_score_file

    try:
        raw = paths.raw()  # no model is read
        entries = load_registry(args.registry, raw)
        files = [path for path in expand_inputs(args.path) if is_score_file(path)]
        if not files:
            raise LakeError(f"no {', '.join(SUFFIXES)} file in {' '.join(args.path)}")
        rows = ingest_scores(
            files,
            args.lake,
            entries,
            classifier=args.classifier,
            crawl=args.crawl,
            score_column=args.score_column,
            max_reject_rate=args.max_reject_rate,
            replace=args.replace,
            id_column=args.id_column,
            url_column=args.url_column,
            crawl_column=args.crawl_column,
        )
    except (LakeError, ClassifierError) as error:
        print(f"python -m ingest scores: error: {error}", file=sys.stderr)
        return 2
    for row in rows:
        for note in row["schema_drift"] or []:
            print(f"scores: schema drift in {row['source_file']}: {note}")
    _summary("scores", rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
