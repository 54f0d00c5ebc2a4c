"""Which input files an ingest reads: expanding arguments, and skip-by-checksum.

Part of the lake's write protocol (:mod:`ingest.lake`). An input file's identity is its
checksum *and* where it went: :func:`new_inputs` skips a file committed already, whole, under
the same crawl; refuses one committed under another crawl unless ``replace``; and ingests again
one whose committed parts are missing or changed (:func:`warn_missing_parts` names the others),
keeping its old copy committed until the new one is.
"""

from __future__ import annotations

import glob
import hashlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ingest.lake_books import LakeError
from ingest.lake_manifest import manifest_rows, missing_parts, prepare_tables

__all__ = ["expand_inputs", "new_inputs", "sha256_of", "warn_missing_parts"]

log = logging.getLogger(__name__)


def sha256_of(path: Path) -> str:
    """SHA-256 of a file, streamed."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def expand_inputs(patterns: Sequence[str]) -> list[Path]:
    """Input files from paths, folders (every file below) and glob patterns, sorted, each once.

    A path that exists is taken literally (``crawl [1].warc.gz`` is a file name, not a glob);
    only a pattern that names no file or folder is expanded as a glob. Files are named by their
    absolute path, so one file given twice (relative and absolute) is one input.
    """
    found: set[Path] = set()
    for pattern in patterns:
        path = Path(pattern)
        if path.is_dir():
            matches = [child for child in path.rglob("*") if not child.name.startswith(".")]
        elif path.exists():
            matches = [path]
        else:
            matches = [Path(match) for match in glob.glob(pattern, recursive=True)]
        files = [match.absolute() for match in matches if match.is_file()]
        if not files:
            raise LakeError(f"no input file matches {pattern!r}")
        found.update(files)
    return sorted(found)


def new_inputs(
    lake: Path,
    table: str,
    inputs: Iterable[Path],
    crawls: Mapping[Path, str | None] | None = None,
    replace: bool = False,
    tables: Iterable[str] | None = None,
) -> list[tuple[Path, str]]:
    """Prepare the lake for an ingest into ``table``; return the inputs to ingest, with checksums.

    Call it under :func:`table_lock` of ``tables`` (default: ``table``), the table folders the
    ingest writes; it runs :func:`prepare_tables` on them. An input is skipped (logged) when a
    manifest row of ``table`` commits its checksum already, whole and under the same crawl
    (``crawls`` maps inputs to the crawl they go to, where that is known before reading); the
    second of two inputs with the same content is skipped too. An input committed under another
    crawl is refused unless ``replace``; with ``replace`` every committed input given is
    ingested again. A committed input whose parts are missing or changed is ingested again;
    committed files not given whose parts are missing are logged as warnings, naming the parts
    and the file that would restore them.

    An input ingested again stays committed, old rows and all, until its new copy is committed
    (``commit_parts`` switches the two in one rename), so a failed or killed ingest leaves it as
    it was. The ingests that drop rows the lake holds already (a WARC-Record-ID, a score of a
    document and classifier) leave out the committed parts of the inputs they ingest again when
    they look, or each row would be a duplicate of itself.

    Raises:
        LakeError: an input committed under another crawl (nothing is changed then), or a lake
            that cannot be written.
    """
    prepare_tables(lake, list(tables) if tables is not None else [table])
    committed = {row["source_sha256"]: row for row in manifest_rows(lake, table)}
    crawls = crawls or {}
    todo: list[tuple[Path, str]] = []
    given: dict[str, Path] = {}
    for path in inputs:
        sha = sha256_of(path)
        if sha in given:
            log.warning("%s: the same content as %s, ingested once", path, given[sha])
            continue
        given[sha] = path
        row = committed.get(sha)
        if row is None:
            todo.append((path, sha))
            continue
        crawl = crawls.get(path)
        if crawl is not None and row["crawl"] is not None and crawl != row["crawl"] and not replace:
            raise LakeError(
                f"{path}: already in the lake as crawl {row['crawl']} (ingested from "
                f"{row['source_file']}), not {crawl}; pass --replace to move it to {crawl}"
            )
        missing = missing_parts(lake, row)
        if replace or missing:
            if missing:
                log.warning(
                    "%s: committed parts missing or changed (%s), ingesting it again",
                    path,
                    ", ".join(missing),
                )
            todo.append((path, sha))
        else:
            log.info("%s: already in the lake (same checksum), skipped", path)
    warn_missing_parts(lake, table, set(given))
    return todo


def warn_missing_parts(lake: Path, table: str, given: set[str]) -> None:
    """Warn of every committed file of ``table`` whose parts are missing or changed.

    Files whose checksum is in ``given`` are left out (the ingest redoes them); the warning
    names the parts and the input file that restores them.
    """
    for row in manifest_rows(lake, table):
        if row["source_sha256"] not in given and (missing := missing_parts(lake, row)):
            log.warning(
                "lake table %s: parts of %s are missing or changed (%s); ingest that file "
                "again to restore them",
                table,
                row["source_file"],
                ", ".join(missing),
            )
