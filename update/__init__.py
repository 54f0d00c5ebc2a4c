"""Build only what new inputs change: ``python -m update`` (``make update``).

A build through this module records, in the warehouse's table ``hostaware_lake_state``, the
committed parts of the lake it read: one row per part file (its lake-relative path) with the
manifest row that commits it (``ingest.lake.committed_parts``: its lake table, the input's
sha256 and when its ingest finished, so an input ingested again with ``--replace`` counts as
changed even where its part keeps its name). The state is taken before dbt starts and written
only when dbt succeeds: a build that fails or is interrupted leaves the state of the last good
build, and the next update builds the same changes again.

An update compares the lake's committed parts now with the recorded ones. A part added,
removed or recommitted changes its table folder (``host_index``) and the manifest folder of its
row (``_manifest/host_index``); the dbt sources that read a changed folder (their
``spark_lake_folders`` meta) are selected with everything downstream of them
(``source:host_index.host_index+``), and nothing else is built. No recorded state (a warehouse
never built this way) or ``--full-refresh``: everything. Vars, seeds and models changed since
the last build are not inputs here: build everything after changing them.

The ingest of new raw files is the commands' own (each skips inputs already committed); ``make
update`` runs them first.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import duckdb

from hostaware import dbt, paths
from hostaware.cli import OneLineParser
from ingest.lake import committed_parts

__all__ = [
    "STATE_TABLE",
    "Changes",
    "changes",
    "lake_state",
    "main",
    "record_state",
    "recorded_state",
    "sources_reading",
    "update",
]

STATE_TABLE = "hostaware_lake_state"

# A committed part: (its lake-relative path, its manifest's lake table, the input's sha256,
# when the ingest that committed it finished)
Part = tuple[str, str, str, str]


def lake_state(lake: Path) -> set[Part]:
    """The lake's committed parts now, as ``Part`` tuples."""
    state = set()
    for relative, row in committed_parts(lake).items():
        finished = row.get("finished_at")
        state.add(
            (
                relative,
                str(row["lake_table"]),
                str(row["source_sha256"]),
                finished.isoformat() if finished is not None else "",
            )
        )
    return state


def recorded_state(warehouse: Path) -> set[Part] | None:
    """The parts the last recorded build read; None when no build recorded them."""
    if not warehouse.exists():
        return None
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        found = connection.execute(
            "select count(*) from information_schema.tables where table_name = ?", [STATE_TABLE]
        ).fetchone()[0]
        if not found:
            return None
        rows = connection.execute(
            f"select part_path, lake_table, source_sha256, finished_at from {STATE_TABLE}"
        ).fetchall()
    return {tuple(row) for row in rows}


def record_state(warehouse: Path, state: Iterable[Part]) -> None:
    """Replace the recorded state with ``state`` (in one transaction)."""
    rows = sorted(state)
    with duckdb.connect(str(warehouse)) as connection:
        connection.execute("begin")
        connection.execute(
            f"create or replace table {STATE_TABLE} (part_path varchar primary key, "
            "lake_table varchar not null, source_sha256 varchar not null, "
            "finished_at varchar not null)"
        )
        if rows:
            connection.executemany(f"insert into {STATE_TABLE} values (?, ?, ?, ?)", rows)
        connection.execute("commit")


@dataclass(frozen=True)
class Changes:
    """What changed in the lake since the recorded build."""

    added: frozenset[Part]
    removed: frozenset[Part]

    @property
    def folders(self) -> set[str]:
        """The lake folders the changed parts are in, and their manifests' folders."""
        parts = self.added | self.removed
        return {path.split("/", 1)[0] for path, *_ in parts} | {
            f"_manifest/{table}" for _, table, *_ in parts
        }

    def summary(self) -> list[str]:
        """One line per lake table: parts added and removed."""
        tables = sorted({path.split("/", 1)[0] for path, *_ in self.added | self.removed})
        lines = []
        for table in tables:
            added = sum(path.split("/", 1)[0] == table for path, *_ in self.added)
            removed = sum(path.split("/", 1)[0] == table for path, *_ in self.removed)
            lines.append(f"{table}: {added} part(s) new or recommitted, {removed} gone or replaced")
        return lines


def changes(before: set[Part], now: set[Part]) -> Changes:
    """The parts committed now and not before (added) and before and not now (removed).

    A part recommitted (the same path, a new input or ingest) is in both.
    """
    return Changes(frozenset(now - before), frozenset(before - now))


def sources_reading(folders: set[str], sources: Mapping[str, Iterable[str]]) -> list[str]:
    """The selectors of the sources that read any of ``folders`` (``source:<name>.<table>``).

    ``sources`` maps a source's unique id (``source.hostaware.<name>.<table>``) to its lake
    folders (``spark_lake_folders``).
    """
    chosen = []
    for unique_id, read in sorted(sources.items()):
        if folders & set(read):
            _, _, name, table = unique_id.split(".", 3)
            chosen.append(f"source:{name}.{table}")
    return chosen


def _source_folders(home: Path, warehouse: Path, work: Path) -> dict[str, list[str]]:
    """Every dbt source's unique id -> the lake folders it reads (its meta)."""
    args = ["ls", "--quiet", "--resource-type", "source", "--output", "json"]
    args += ["--output-keys", "unique_id meta", "--target-path", str(work / "target-ls")]
    result = dbt.run(args, home=home, warehouse=warehouse, env={"DBT_LOG_PATH": str(work / "logs")})
    folders = {}
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            node = json.loads(line)
            folders[node["unique_id"]] = list(node["meta"].get("spark_lake_folders") or [])
    if not folders:
        raise dbt.DbtError(["dbt", *args], 0, f"dbt listed no sources:\n{result.stdout}")
    return folders


def update(
    home: Path,
    warehouse: Path,
    *,
    full_refresh: bool = False,
    dry_run: bool = False,
    dbt_args: Iterable[str] = (),
    out=sys.stdout,
) -> list[str] | None:
    """Build what the lake's changes since the recorded build need; record the new state.

    Returns the dbt selectors built (an empty list: everything; None: nothing to build).
    ``dry_run`` says what it would build and builds nothing. Raises ``dbt.DbtError`` when the
    build fails (the recorded state is then left as it was), ``FileNotFoundError`` when
    ``home`` has no lake.
    """
    lake = home / "lake"
    if not lake.is_dir():
        raise FileNotFoundError(f"no lake at {lake}: ingest into it first (python -m ingest)")
    now = lake_state(lake)
    before = None if full_refresh else recorded_state(warehouse)
    if before is None:
        why = "--full-refresh" if full_refresh else f"no recorded build in {warehouse}"
        print(f"{why}: building everything ({len(now)} committed parts)", file=out)
        selectors: list[str] = []
    else:
        found = changes(before, now)
        if not found.added and not found.removed:
            print(f"nothing new in {lake} since the last build: nothing to build", file=out)
            return None
        for line in found.summary():
            print(f"new: {line}", file=out)
        work = home / ".hostaware-update"
        selectors = sources_reading(found.folders, _source_folders(home, warehouse, work))
        if not selectors:
            print("no dbt source reads the changed folders: nothing to build", file=out)
            if not dry_run:
                record_state(warehouse, now)
            return None
        print(f"building: {' '.join(f'{s}+' for s in selectors)}", file=out)
    if dry_run:
        return selectors
    args = ["build", "--target", "dev", *dbt_args]
    if selectors:
        args += ["--select", *(f"{selector}+" for selector in selectors)]
    if full_refresh:
        args.append("--full-refresh")
    result = dbt.run(args, home=home, warehouse=warehouse)
    print(result.stdout.rstrip(), file=out)
    record_state(warehouse, now)
    return selectors


def main(argv: list[str] | None = None) -> int:
    """The command line: update ``$HOSTAWARE_HOME``'s warehouse; exit status 1 if dbt failed."""
    parser = OneLineParser(prog="python -m update", description=__doc__.split("\n")[0])
    parser.add_argument("--full-refresh", action="store_true", help="build everything")
    parser.add_argument("--dry-run", action="store_true", help="say what would be built")
    parser.add_argument(
        "dbt_args", nargs="*", help="more arguments for dbt build (after --), e.g. --vars ..."
    )
    args = parser.parse_args(argv)
    try:
        update(
            paths.home(),
            paths.warehouse(),
            full_refresh=args.full_refresh,
            dry_run=args.dry_run,
            dbt_args=args.dbt_args,
        )
    except FileNotFoundError as error:
        print(f"python -m update: error: {error}", file=sys.stderr)
        return 2
    except dbt.DbtError as error:
        print(f"update failed; the recorded state is unchanged: {error}", file=sys.stderr)
        return 1
    return 0
