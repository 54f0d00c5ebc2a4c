"""The crawl plan in the formats crawlers load (docs/exports.md): ``python -m plan export``.

Each format is a module with a ``write(plan, path)``; :func:`export` opens the warehouse
read-only, writes into a scratch path beside ``out`` and moves it into place whole.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hostaware.cli import unwritable_folder
from plan.exports import cc_nutch, heritrix, nutch, tables, urlfrontier
from plan.exports.common import ExportError, ExportResult, Plan, replace_path

__all__ = ["FORMATS", "ExportError", "ExportResult", "Format", "export"]


@dataclass(frozen=True)
class Format:
    """An export format: its writer, whether ``--out`` is a folder, and what it is for."""

    write: Callable[[Plan, Path], ExportResult]
    is_folder: bool
    description: str


FORMATS: dict[str, Format] = {
    "nutch": Format(nutch.write, True, "Apache Nutch: seed list and HostDb per-host limits"),
    "cc-nutch": Format(
        cc_nutch.write, True, "Common Crawl's Nutch: domain-limits file and seed list"
    ),
    "urlfrontier": Format(
        urlfrontier.write, True, "URLFrontier / StormCrawler: PutURLs seeds, SetCrawlLimit calls"
    ),
    "heritrix": Format(heritrix.write, True, "Heritrix 3: seeds and a sheet overlay of budgets"),
    "csv": Format(tables.write_csv, False, "the plan's table as CSV"),
    "parquet": Format(tables.write_parquet, False, "the plan's table as Parquet"),
}


def export(warehouse: Path, format_name: str, out: Path) -> ExportResult:
    """Export the plan of ``warehouse`` as ``format_name`` to ``out`` (a file or a folder).

    Raises:
        ExportError: an unknown format, ``out`` of the wrong kind or in a folder that cannot
            be written (checked first), no plan in the warehouse, or the files cannot be
            written.
    """
    chosen = FORMATS.get(format_name)
    if chosen is None:
        raise ExportError(f"unknown format {format_name!r} (one of {', '.join(FORMATS)})")
    if chosen.is_folder and out.exists() and not out.is_dir():
        raise ExportError(f"--out {out} is a file: the {format_name} export is a folder")
    if not chosen.is_folder and out.is_dir():
        raise ExportError(f"--out {out} is a folder: name the {format_name} file to write")
    final = out.absolute()
    problem = unwritable_folder(final if chosen.is_folder else final.parent)
    if problem is not None:  # before the plan is read: /proc, a read-only mount, a file
        raise ExportError(f"--out {out}: {problem}")
    with Plan(warehouse) as plan:
        try:
            with replace_path(final, chosen.is_folder) as scratch:
                result = chosen.write(plan, scratch)
        except OSError as error:
            raise ExportError(f"cannot write {out}: {error.strerror or error}") from error
    result.files = [
        final / path.relative_to(scratch) if chosen.is_folder else final for path in result.files
    ]
    return result
