"""What every export shares: the warehouse read-only, files written whole or not at all.

An export reads the plan's marts as built (``plan_host_fetch_budget``, ``plan_host_queue_keys``,
``plan_seed_urls``; no rebuild) and streams each file from DuckDB with ``COPY`` (one text
column written verbatim, or JSON lines), so that a plan of hundreds of millions of hosts
costs no memory in Python. Every file is written into a scratch folder beside ``--out`` and
moved into place once all are complete: a failed export leaves the previous one, if any,
as it was.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import duckdb

from report.marts import sql_string

__all__ = [
    "PLAN",
    "QUEUE_KEYS",
    "SEED_URLS",
    "ExportError",
    "ExportResult",
    "Plan",
    "replace_path",
]

PLAN = "plan_host_fetch_budget"
QUEUE_KEYS = "plan_host_queue_keys"
SEED_URLS = "plan_seed_urls"

# What a seed URL may hold as is in a text export: printable ASCII but space. Anything else
# (controls, spaces, non-ASCII) is percent-encoded as UTF-8 bytes (RFC 3986 §2.1), so that a
# URL never splits a tab- or space-separated line; a URL of printable ASCII is unchanged.
_SAFE_URL_PATTERN = "^[!-~]*$"
_URL_SAFE_CHARACTERS = "".join(chr(code) for code in range(0x21, 0x7F))


class ExportError(Exception):
    """The export cannot be made; the message says why (a missing mart, an unwritable path)."""


@dataclass
class ExportResult:
    """What an export wrote: its files, and the hosts, keys and pages in them."""

    format_name: str
    files: list[Path] = field(default_factory=list)
    host_count: int = 0
    key_count: int = 0
    seed_count: int = 0
    page_count: int = 0
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """A few lines: the files written, then the counts and notes."""
        lines = [f"{self.format_name} export:"]
        lines += [f"  {path}" for path in self.files]
        counts = f"{self.host_count:,} hosts, {self.page_count:,} pages"
        if self.key_count:
            counts += f", {self.key_count:,} queue keys"
        if self.seed_count:
            counts += f", {self.seed_count:,} seed URLs"
        lines.append(f"  {counts}")
        lines += [f"  {note}" for note in self.notes]
        return "\n".join(lines)


def _percent_encode(url: str) -> str:
    """``url`` with every character outside printable ASCII percent-encoded (UTF-8)."""
    return quote(url, safe=_URL_SAFE_CHARACTERS, encoding="utf-8", errors="strict")


class Plan:
    """The plan's marts in one warehouse, opened read-only.

    ``seed_url(column)`` is the SQL of a seed URL safe in a text line; ``copy_lines`` and
    ``copy_json`` stream a query's rows to a file.
    """

    def __init__(self, warehouse: Path) -> None:
        """Open ``warehouse`` read-only and check that the plan's marts are in it.

        Raises:
            ExportError: no warehouse, DuckDB cannot open it, or a mart is missing.
        """
        if not warehouse.is_file():
            raise ExportError(f"no warehouse at {warehouse} (build it with `make build`)")
        try:
            self.connection = duckdb.connect(str(warehouse), read_only=True)
        except duckdb.Error as error:
            first_line = str(error).splitlines()[0]
            raise ExportError(f"cannot open {warehouse} read-only: {first_line}") from error
        names = {
            name
            for (name,) in self.connection.execute(
                "select table_name from information_schema.tables"
            ).fetchall()
        }
        missing = [mart for mart in (PLAN, QUEUE_KEYS, SEED_URLS) if mart not in names]
        if missing:
            self.connection.close()
            raise ExportError(
                f"{warehouse} has no {', '.join(missing)}: build the plan with `make build`"
            )
        self.connection.create_function(
            "percent_encoded", _percent_encode, [str], str, side_effects=False
        )

    def __enter__(self) -> Plan:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.connection.close()

    @staticmethod
    def seed_url(column: str) -> str:
        """SQL: ``column`` as is when it is printable ASCII, else percent-encoded."""
        return (
            f"case when regexp_matches({column}, '{_SAFE_URL_PATTERN}') then {column} "
            f"else percent_encoded({column}) end"
        )

    def value(self, sql: str) -> object:
        """The one value of ``sql``."""
        return self._execute(sql).fetchone()[0]

    def rows(self, sql: str) -> list[tuple]:
        """The rows of ``sql`` (for small results: a summary, a handful of groups)."""
        return self._execute(sql).fetchall()

    def copy_lines(self, sql: str, path: Path, header: str = "") -> int:
        """Write ``sql``'s one text column to ``path``, a line per row, verbatim.

        Args:
            sql: a query of one text column (no line breaks in a value).
            path: the file to write.
            header: lines written before the rows (each ending in a newline).

        Returns:
            The number of rows written.
        """
        body = path.with_name(path.name + ".rows")
        (rows,) = self._execute(
            f"copy ({sql}) to {sql_string(str(body))} "
            "(format csv, header false, quote '', escape '', delimiter '\x01')"
        ).fetchone()
        with path.open("wb") as out:
            out.write(header.encode("utf-8"))
            with body.open("rb") as lines:
                shutil.copyfileobj(lines, out, 1 << 20)
        body.unlink()
        return int(rows)

    def copy_json(self, sql: str, path: Path) -> int:
        """Write ``sql``'s rows to ``path`` as JSON lines (an object per row). Returns the rows."""
        (rows,) = self._execute(f"copy ({sql}) to {sql_string(str(path))} (format json)").fetchone()
        return int(rows)

    def copy_table(self, sql: str, path: Path, file_format: str) -> int:
        """Write ``sql``'s rows to ``path`` as CSV (with a header) or Parquet. Returns the rows."""
        options = {"csv": "format csv, header true", "parquet": "format parquet"}[file_format]
        (rows,) = self._execute(f"copy ({sql}) to {sql_string(str(path))} ({options})").fetchone()
        return int(rows)

    def _execute(self, sql: str) -> duckdb.DuckDBPyConnection:
        try:
            return self.connection.execute(sql)
        except duckdb.Error as error:
            first_line = str(error).splitlines()[0]
            raise ExportError(f"the plan could not be exported ({first_line})") from error


@contextmanager
def replace_path(out: Path, is_folder: bool) -> Iterator[Path]:
    """A scratch path beside ``out`` to write into; moved onto ``out`` when the block ends well.

    On an error the scratch path is removed and ``out`` is left as it was. The move replaces
    a file in one rename; a folder is swapped by two (the old one, renamed aside, is then
    deleted), so that ``out`` is at every moment either the old export or the new one, or,
    between the two renames, absent.
    """
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    scratch = out.with_name(f".{out.name}.partial-{os.getpid()}")
    _remove(scratch)
    if is_folder:
        scratch.mkdir()
    try:
        yield scratch
    except BaseException:
        _remove(scratch)
        raise
    if is_folder and out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        _remove(old)
        out.rename(old)
        scratch.rename(out)
        _remove(old)
    else:
        scratch.replace(out)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
