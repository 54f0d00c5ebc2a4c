"""Build only what new inputs change: ``python -m update`` (``make update``).

A build through this module records, in the warehouse's table ``hostaware_lake_state``, the
committed parts of the lake it read: one row per part file (its lake-relative path) with the
manifest row that commits it (``ingest.lake.committed_parts``: its lake table, the input's
sha256, when its ingest finished, and the crawl or graph release it belongs to), so an input
ingested again with ``--replace`` counts as changed even where its part keeps its name. The
state is taken before dbt starts and written only when dbt succeeds: a build that fails or is
interrupted leaves the state of the last good build, and the next update builds the same
changes again.

An update compares the lake's committed parts now with the recorded ones. Each part added,
removed or recommitted is a change of its lake table's partition: ``(host_index,
CC-MAIN-2023-06)``. The dbt sources that read the part's folders (their ``spark_lake_folders``
meta) carry the change to their descendants, and three kinds of model treat it differently
(their ``meta``, docs/warehouse.md "The monthly update"):

- a model with ``lake_partitions`` ({lake table: [crawls or releases]}) depends on those
  tables only through the partitions named (the sample crawl's host index, the graph release's
  ranks): a change of another partition of them stops there. ``<crawl`` names the latest
  crawl before ``crawl`` (the plan's previous crawl when no var names it), taken from the host
  index's committed crawls before and after the change, both;
- a model ``partitioned_by`` a column (its rows one crawl's each, materialized incremental:
  macros/partitions.sql) recomputes only the crawls that changed in its ``lake_tables``, and
  all of them for any other change that reaches it;
- any other model is built again whole.

The models reached are built (``dbt build --select``, their tests with them), the crawls of the
partitioned ones passed in the var ``update_partitions``. No recorded state (a warehouse never
built this way) or ``--full-refresh``: everything. The project is an input too: the state
holds a fingerprint of it (``project_fingerprint``: models, seeds, macros, sources, their
configs, ``dbt_project.yml`` and the vars given; table ``hostaware_project_state``), and an
update whose project differs builds everything with ``--full-refresh``.

The ingest of new raw files is the commands' own (each skips inputs already committed); ``make
update`` runs them first.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import yaml

from hostaware import dbt, paths
from hostaware.cli import OneLineParser
from ingest.lake import committed_parts

__all__ = [
    "PROJECT_TABLE",
    "STATE_TABLE",
    "Changes",
    "Node",
    "Plan",
    "changes",
    "lake_state",
    "main",
    "plan_build",
    "project_fingerprint",
    "record_state",
    "recorded_fingerprint",
    "recorded_state",
    "update",
]

STATE_TABLE = "hostaware_lake_state"
PROJECT_TABLE = "hostaware_project_state"  # the fingerprint of the project it was built with

# A committed part: (its lake-relative path, its manifest's lake table, the input's sha256,
# when the ingest that committed it finished, its crawl or graph release or '')
Part = tuple[str, str, str, str, str]
_STATE_COLUMNS = ("part_path", "lake_table", "source_sha256", "finished_at", "part_partition")

# A change reaching a model: (the lake table of the manifest row, the crawl or release)
Tag = tuple[str, str]


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
                str(row.get("crawl") or row.get("release") or ""),
            )
        )
    return state


def recorded_state(warehouse: Path) -> set[Part] | None:
    """The parts the last recorded build read; None when no build recorded them.

    A state recorded by an older version (without the parts' partitions) is none.
    """
    if not warehouse.exists():
        return None
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        columns = connection.execute(
            "select column_name from information_schema.columns where table_name = ?",
            [STATE_TABLE],
        ).fetchall()
        if {name for (name,) in columns} != set(_STATE_COLUMNS):
            return None
        rows = connection.execute(f"select {', '.join(_STATE_COLUMNS)} from {STATE_TABLE}")
        return {tuple(row) for row in rows.fetchall()}


def recorded_fingerprint(warehouse: Path) -> str | None:
    """The project fingerprint of the last recorded build; None when none was recorded."""
    if not warehouse.exists():
        return None
    with duckdb.connect(str(warehouse), read_only=True) as connection:
        found = connection.execute(
            "select count(*) from information_schema.tables where table_name = ?",
            [PROJECT_TABLE],
        ).fetchone()[0]
        if not found:
            return None
        row = connection.execute(f"select fingerprint from {PROJECT_TABLE}").fetchone()
    return row[0] if row else None


def record_state(warehouse: Path, state: Iterable[Part], fingerprint: str) -> None:
    """Replace the recorded parts and project fingerprint (in one transaction)."""
    rows = sorted(state)
    with duckdb.connect(str(warehouse)) as connection:
        connection.execute("begin")
        connection.execute(
            f"create or replace table {STATE_TABLE} (part_path varchar primary key, "
            "lake_table varchar not null, source_sha256 varchar not null, "
            "finished_at varchar not null, part_partition varchar not null)"
        )
        if rows:
            connection.executemany(f"insert into {STATE_TABLE} values (?, ?, ?, ?, ?)", rows)
        connection.execute(
            f"create or replace table {PROJECT_TABLE} (fingerprint varchar not null)"
        )
        connection.execute(f"insert into {PROJECT_TABLE} values (?)", [fingerprint])
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

    def tags(self, folders: Iterable[str]) -> set[Tag]:
        """The (lake table, partition) of each changed part in ``folders`` or their manifests."""
        read = set(folders)
        return {
            (table, partition)
            for path, table, _, _, partition in self.added | self.removed
            if path.split("/", 1)[0] in read or f"_manifest/{table}" in read
        }

    def summary(self) -> list[str]:
        """One line per lake folder and partition: parts added and removed."""

        def key(part: Part) -> tuple[str, str]:
            return part[0].split("/", 1)[0], part[4]

        lines = []
        for folder, partition in sorted({key(part) for part in self.added | self.removed}):
            added = sum(key(part) == (folder, partition) for part in self.added)
            removed = sum(key(part) == (folder, partition) for part in self.removed)
            where = f" {partition}" if partition else ""
            lines.append(
                f"{folder}{where}: {added} part(s) new or recommitted, {removed} gone or replaced"
            )
        return lines


def changes(before: set[Part], now: set[Part]) -> Changes:
    """The parts committed now and not before (added) and before and not now (removed).

    A part recommitted (the same path, a new input or ingest) is in both.
    """
    return Changes(frozenset(now - before), frozenset(before - now))


@dataclass(frozen=True)
class Node:
    """A dbt model or source, as far as the update cares."""

    unique_id: str
    parents: tuple[str, ...] = ()
    lake_folders: tuple[str, ...] = ()  # a source's spark_lake_folders
    lake_partitions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # the lake tables whose crawls this model's rows follow one to one (its meta's)
    partitioned_by: tuple[str, ...] | None = None
    incremental: bool = False  # materialized incremental: built a crawl at a time

    @property
    def name(self) -> str:
        """The model's or source table's name (the id's last part)."""
        return self.unique_id.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Plan:
    """What an update builds: the models, and the crawls of the per-crawl ones."""

    models: list[str]
    partitions: dict[str, list[str]]  # a per-crawl model -> its crawls (absent: all)


def _latest_before(crawl: str, state: Iterable[Part]) -> set[str]:
    """The host index's latest committed crawl before ``crawl`` (none: the empty set)."""
    earlier = {part[4] for part in state if part[1] == "host_index" and part[4] < crawl}
    return {max(earlier)} if earlier else set()


def plan_build(
    found: Changes, nodes: Mapping[str, Node], before: set[Part], now: set[Part]
) -> Plan:
    """The models ``found`` reaches, by the module docs' three rules, in dbt's graph.

    A change reaches a model as ``(lake table, partition, aligned)``: aligned while every
    model it passed through keeps that table's rows one crawl's each (``partitioned_by`` it);
    a per-crawl model recomputes only the changed crawls when every change reaching it is
    aligned with it, else it is recomputed whole (the sample crawl's host index changes the
    host profiles every crawl's correlations read).
    """
    arriving: dict[str, set[tuple[str, str, bool]]] = {}

    def scope(node: Node) -> dict[str, set[str]]:
        resolved = {}
        for table, partitions in node.lake_partitions.items():
            kept = set()
            for partition in partitions:
                if partition.startswith("<"):
                    kept |= _latest_before(partition[1:], before)
                    kept |= _latest_before(partition[1:], now)
                else:
                    kept.add(partition)
            resolved[table] = kept
        return resolved

    def arrives(unique_id: str) -> set[tuple[str, str, bool]]:
        """The changes reaching a node, within its scope."""
        if unique_id not in arriving:
            node = nodes.get(unique_id)
            tags: set[tuple[str, str, bool]] = set()
            if node is not None:  # else a seed: not a lake input
                tags = {(table, part, True) for table, part in found.tags(node.lake_folders)}
                for parent in node.parents:
                    tags |= leaves(parent)
                kept = scope(node)
                tags = {tag for tag in tags if tag[0] not in kept or tag[1] in kept[tag[0]]}
            arriving[unique_id] = tags
        return arriving[unique_id]

    def leaves(unique_id: str) -> set[tuple[str, str, bool]]:
        """The changes a node hands its children: aligned only through its own tables."""
        node = nodes.get(unique_id)
        aligned = set(node.partitioned_by or ()) if node is not None else set()
        is_source = unique_id.startswith("source.")
        return {(t, p, a and (is_source or t in aligned)) for t, p, a in arrives(unique_id)}

    models, partitions = [], {}
    for unique_id, node in sorted(nodes.items()):
        tags = arrives(unique_id)
        if not unique_id.startswith("model.") or not tags:
            continue
        models.append(node.name)
        if node.incremental and all(a and t in (node.partitioned_by or ()) for t, _, a in tags):
            partitions[node.name] = sorted({partition for _, partition, _ in tags})
    return Plan(models, partitions)


def project_fingerprint(manifest: Mapping, user_vars: Mapping, project_file: bytes) -> str:
    """A digest of what the warehouse's rows depend on besides the lake.

    The dbt version and adapter; each model's, seed's and snapshot's code checksum, rendered
    config, parents, macros and column types; each source's config, meta and columns; the
    project's macros; ``dbt_project.yml`` (its vars and folder settings) and the vars given on
    the command line. Descriptions and tests are left out: they change no row.
    """
    project = manifest["metadata"]["project_name"]
    described = [
        manifest["metadata"].get("dbt_version"),
        manifest["metadata"].get("adapter_type"),
        hashlib.sha256(project_file).hexdigest(),
        json.dumps(user_vars, sort_keys=True, default=str),
    ]
    for unique_id, node in sorted(manifest["nodes"].items()):
        if node["resource_type"] not in ("model", "seed", "snapshot"):
            continue
        described.append(
            [
                unique_id,
                node.get("checksum"),
                node.get("config"),
                node.get("depends_on"),
                {name: column.get("data_type") for name, column in node["columns"].items()},
            ]
        )
    for unique_id, source in sorted(manifest["sources"].items()):
        columns = {name: column.get("data_type") for name, column in source["columns"].items()}
        described.append([unique_id, source.get("config"), source.get("meta"), columns])
    for unique_id, macro in sorted(manifest["macros"].items()):
        if macro.get("package_name") == project:
            described.append([unique_id, macro.get("macro_sql")])
    text = json.dumps(described, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _graph(
    home: Path, warehouse: Path, work: Path, user_vars: Mapping | None = None
) -> tuple[dict[str, Node], str]:
    """Every dbt model and source with the update's meta, and the project's fingerprint.

    Rendered with ``user_vars`` (as the build will be).
    """
    target = work / "target-ls"
    args = ["ls", "--quiet", "--resource-type", "model", "source", "--output", "json"]
    args += ["--output-keys", "unique_id depends_on config meta", "--target-path", str(target)]
    if user_vars:
        args += ["--vars", json.dumps(user_vars)]
    result = dbt.run(args, home=home, warehouse=warehouse, env={"DBT_LOG_PATH": str(work / "logs")})
    nodes = {}
    for line in result.stdout.splitlines():
        if not line.startswith("{"):
            continue
        listed = json.loads(line)
        meta = {**listed.get("meta", {}), **listed.get("config", {}).get("meta", {})}
        by = meta.get("partitioned_by")
        nodes[listed["unique_id"]] = Node(
            unique_id=listed["unique_id"],
            parents=tuple(listed.get("depends_on", {}).get("nodes", [])),
            lake_folders=tuple(meta.get("spark_lake_folders") or ()),
            lake_partitions={
                table: tuple(partitions)
                for table, partitions in (meta.get("lake_partitions") or {}).items()
            },
            partitioned_by=tuple(by["lake_tables"]) if by else None,
            incremental=listed.get("config", {}).get("materialized") == "incremental",
        )
    if not any(unique_id.startswith("source.") for unique_id in nodes):
        raise dbt.DbtError(["dbt", *args], 0, f"dbt listed no sources:\n{result.stdout}")
    manifest = json.loads((target / "manifest.json").read_text())
    project_file = (paths.PROJECT / "dbt_project.yml").read_bytes()
    return nodes, project_fingerprint(manifest, user_vars or {}, project_file)


def _split_vars(dbt_args: Iterable[str]) -> tuple[list[str], dict]:
    """``dbt_args`` without its ``--vars``, and those vars (YAML, as dbt reads them)."""
    rest, found = [], {}
    args = list(dbt_args)
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--vars" and index + 1 < len(args):
            found.update(yaml.safe_load(args[index + 1]) or {})
            index += 2
            continue
        if arg.startswith("--vars="):
            found.update(yaml.safe_load(arg.split("=", 1)[1]) or {})
        else:
            rest.append(arg)
        index += 1
    return rest, found


def update(
    home: Path,
    warehouse: Path,
    *,
    full_refresh: bool = False,
    dry_run: bool = False,
    dbt_args: Iterable[str] = (),
    out=sys.stdout,
) -> Plan | None:
    """Build what the lake's changes since the recorded build need; record the new state.

    Returns what it built (``Plan.models`` empty: everything; None: nothing to build).
    ``dry_run`` says what it would build and builds nothing. Raises ``dbt.DbtError`` when the
    build fails (the recorded state is then left as it was), ``FileNotFoundError`` when
    ``home`` has no lake.
    """
    lake = home / "lake"
    if not lake.is_dir():
        raise FileNotFoundError(f"no lake at {lake}: ingest into it first (python -m ingest)")
    rest, user_vars = _split_vars(dbt_args)
    now = lake_state(lake)
    nodes, fingerprint = _graph(home, warehouse, home / ".hostaware-update", user_vars)
    before = None if full_refresh else recorded_state(warehouse)
    plan = Plan([], {})
    why = "--full-refresh" if full_refresh else f"no recorded build in {warehouse}"
    if before is not None and recorded_fingerprint(warehouse) != fingerprint:
        # the per-crawl tables too: their columns may have changed
        why = "the project (models, macros, seeds or vars) differs from the last update's"
        before, full_refresh = None, True
    if before is None:
        print(f"{why}: building everything ({len(now)} committed parts)", file=out)
    else:
        found = changes(before, now)
        if not found.added and not found.removed:
            print(f"nothing new in {lake} since the last build: nothing to build", file=out)
            return None
        for line in found.summary():
            print(f"new: {line}", file=out)
        plan = plan_build(found, nodes, before, now)
        if not plan.models:
            print("no model reads the changed partitions: nothing to build", file=out)
            if not dry_run:
                record_state(warehouse, now, fingerprint)
            return None
        whole = [name for name in plan.models if name not in plan.partitions]
        print(f"building {len(plan.models)} models: {' '.join(whole)}", file=out)
        for name, crawls in sorted(plan.partitions.items()):
            print(f"  {name}: only {', '.join(crawls) or 'no crawl (removed only)'}", file=out)
    if dry_run:
        return plan
    args = ["build", "--target", "dev", *rest]
    if plan.models:
        args += ["--select", *plan.models]
        user_vars = {**user_vars, "update_partitions": plan.partitions}
    if user_vars:
        args += ["--vars", json.dumps(user_vars)]
    if full_refresh:
        args.append("--full-refresh")
    result = dbt.run(args, home=home, warehouse=warehouse)
    print(result.stdout.rstrip(), file=out)
    record_state(warehouse, now, fingerprint)
    return plan


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
    except duckdb.IOException as error:  # another process (an update, a build) holds it
        print(
            f"python -m update: error: {paths.warehouse()} is held by another process "
            f"({error}); the recorded state is unchanged",
            file=sys.stderr,
        )
        return 1
    return 0
