"""Read-only access to the warehouse's marts.

The report reads marts (``rpt_*``, ``plan_*``) and nothing else: no lake file, no staging
model. A mart that is missing, unreadable or empty raises ``MartUnavailableError``, which the page
turns into a note where the figure would be.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

# The mart naming the crawls and releases the build is about (its vars).
BUILD_SETTINGS = "rpt_build_settings"
# The mart naming each classifier's registry family.
CLASSIFIERS = "rpt_classifiers"


class MartUnavailableError(Exception):
    """A mart the report needs is missing from the warehouse, unreadable or empty."""


class WarehouseError(Exception):
    """The warehouse file cannot be opened."""


def sql_string(text: str) -> str:
    """``text`` as a DuckDB string literal (each ``'`` doubled): a path or value is data, never SQL.

    The one way the report writes text into SQL; a literal that ``Marts.frame`` formats must
    hold no braces (crawl ids and paths the report writes have none).
    """
    return "'" + text.replace("'", "''") + "'"


def missing_column(error: Exception) -> str | None:
    """The column a mart lacks, when ``error`` is pandas' way of saying so; else None.

    A missing column is a ``KeyError`` from ``frame[column]``, or an ``AttributeError`` on a
    row of ``frame.itertuples()`` (a namedtuple pandas calls ``Pandas``).
    """
    if isinstance(error, KeyError):
        return repr(error.args[0]) if error.args else "?"
    if isinstance(error, AttributeError) and type(error.obj).__name__ == "Pandas":
        return repr(error.name)
    return None


class Marts:
    """The marts of one DuckDB warehouse, opened read-only; query results are cached.

    Use as a context manager, or call ``close``.
    """

    def __init__(self, path: Path) -> None:
        """Open ``path`` read-only.

        Raises:
            WarehouseError: no such file, or DuckDB cannot open it (another process holds a
                write lock, say).
        """
        self.path = Path(path)
        if not self.path.is_file():
            raise WarehouseError(f"no warehouse at {self.path} (build it with `make build`)")
        try:
            self._connection = duckdb.connect(str(self.path), read_only=True)
        except duckdb.Error as error:
            raise WarehouseError(f"cannot open {self.path} read-only: {error}") from error
        self._relations = {
            name
            for (name,) in self._connection.execute(
                "select table_name from information_schema.tables"
            ).fetchall()
        }
        self._cache: dict[tuple[str, str], pd.DataFrame] = {}

    def __enter__(self) -> Marts:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._connection.close()

    def has(self, mart: str) -> bool:
        """Whether the warehouse holds a table or view named ``mart``."""
        return mart in self._relations

    def setting(self, name: str) -> str | None:
        """A var the build used, from ``rpt_build_settings`` (``fullcrawl_crawl``, …).

        Raises:
            MartUnavailableError: the warehouse has no ``rpt_build_settings``.
        """
        return self.frame(BUILD_SETTINGS)[name].iloc[0]

    def families(self) -> dict[str, str | None]:
        """Each classifier's registry family (``rpt_classifiers``; None for one of no family).

        Raises:
            MartUnavailableError: the warehouse has no ``rpt_classifiers``.
        """
        frame = self.frame(CLASSIFIERS)
        return {
            row.classifier: (None if pd.isna(row.family) else row.family)
            for row in frame.itertuples()
        }

    def rq4_crawl(self, mart: str, crawls: pd.Series) -> str:
        """The crawl the RQ4 figures are about: the build's ``fullcrawl_crawl``.

        Raises:
            MartUnavailableError: ``mart`` has no row of that crawl.
        """
        crawl = self.setting("fullcrawl_crawl")
        if crawl not in set(crawls):
            raise MartUnavailableError(
                f"{mart} has no row for crawl {crawl} (the build's fullcrawl_crawl)"
            )
        return crawl

    def frame(self, mart: str, sql: str | None = None) -> pd.DataFrame:
        """The rows of ``mart``, or of ``sql`` over it (``{mart}`` in ``sql`` names it).

        Args:
            mart: the mart's name.
            sql: a query; default ``select * from {mart}``.

        Raises:
            MartUnavailableError: the mart is missing, cannot be read, or the result is empty.
        """
        query = (sql or "select * from {mart}").format(mart=f'"{mart}"')
        key = (mart, query)
        if key not in self._cache:
            if not self.has(mart):
                raise MartUnavailableError(f"{mart} is not in the warehouse")
            try:
                result = self._connection.execute(query).df()
            except duckdb.Error as error:
                first_line = str(error).splitlines()[0]
                raise MartUnavailableError(f"{mart} could not be read ({first_line})") from error
            self._cache[key] = result
        result = self._cache[key]
        if result.empty:
            raise MartUnavailableError(f"{mart} is empty")
        return result.copy()

    def export(self, mart: str, sql: str, path: Path, file_format: str) -> int:
        """Write the rows of ``sql`` over ``mart`` to ``path`` with DuckDB's ``COPY``.

        The rows stream from DuckDB to the file (no DataFrame), so a plan of millions of hosts
        costs little memory.

        Args:
            mart: the mart's name.
            sql: a query; ``{mart}`` names the mart.
            path: the file to write.
            file_format: ``csv`` (with a header) or ``parquet``.

        Returns:
            The number of rows written.

        Raises:
            MartUnavailableError: the mart is missing or cannot be read.
        """
        if not self.has(mart):
            raise MartUnavailableError(f"{mart} is not in the warehouse")
        options = {"csv": "format csv, header true", "parquet": "format parquet"}[file_format]
        query = sql.format(mart=f'"{mart}"')
        try:
            (rows,) = self._connection.execute(
                f"copy ({query}) to {sql_string(str(path))} ({options})"
            ).fetchone()
        except duckdb.Error as error:
            first_line = str(error).splitlines()[0]
            raise MartUnavailableError(f"{mart} could not be exported ({first_line})") from error
        return int(rows)
