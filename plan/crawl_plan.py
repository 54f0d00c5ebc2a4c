"""``python -m plan``: compute a what-if crawl plan for a budget with dbt, export it.

The plan is the ``plan_host_fetch_budget`` mart and what depends on it. A what-if plan must
not change what other commands read, so dbt never runs on the shared warehouse: the warehouse
is copied (under a read-only connection, so that no build writes it meanwhile) into a scratch
folder (``tempfile``: ``$TMPDIR``), and dbt rebuilds the plan models there with the budget (and
optionally the sample size and exploration share) as vars, its target, logs and exported files
in that folder too (``HOSTAWARE_EXPORTS``, ``--target-path``, ``--log-path``). The plan is read
back from the copy and written as CSV or Parquet; the folder is then deleted. The shared
warehouse, its ``exports/`` and the project's ``target/`` are left as they were.

dbt dies with the command (``hostaware.dbt.run``), and the scratch folder goes with it: on an
error, Ctrl-C or SIGTERM (``python -m plan`` turns it into an exception) it is removed as the
command unwinds; a command killed outright (SIGKILL) leaves it, and the next plan removes it
(:func:`sweep_scratch`: its name holds the pid of a process that is gone).

Everything the request says is checked before any work: the budget (a whole number of pages,
1 to ``MAX_BUDGET_PAGES``), the output's suffix, and that the output can be written there.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import duckdb

from hostaware import dbt as hostaware_dbt
from hostaware.cli import unwritable_folder
from hostaware.processes import is_running
from report.formatting import fmt_count, fmt_number, text_table
from report.marts import Marts, MartUnavailableError, WarehouseError
from report.sections.plan import FETCH_BUDGET, PAGE_KINDS, phase_totals, plan_expected_hq

log = logging.getLogger(__name__)

FORMATS = {".csv": "csv", ".parquet": "parquet"}
# Scratch folders are <tempdir>/hostaware-plan-<pid>-<random>: a stale one is found by its pid.
SCRATCH_PREFIX = "hostaware-plan-"
# The largest budget: 2**53 pages, so that the plan's shares of it (DOUBLE) are exact whole
# pages and its sums stay far inside BIGINT; a thousand times the URLs any crawl knows.
MAX_BUDGET_PAGES = 2**53


class PlanError(Exception):
    """The plan could not be built or written; the message says why."""


@dataclass(frozen=True)
class PlanRequest:
    """What ``python -m plan`` was asked for.

    Attributes:
        budget: the fetch budget in pages (``plan_budget_pages``).
        out: the file to write; its suffix picks the format.
        sample_size: ``plan_sample_size``, or None for the project's default.
        exploration_share: ``plan_exploration_share``, or None for the default.
    """

    budget: int
    out: Path
    sample_size: int | None = None
    exploration_share: float | None = None


def output_format(path: Path) -> str:
    """``csv`` or ``parquet`` from the file name.

    Raises:
        PlanError: any other suffix.
    """
    found = FORMATS.get(path.suffix.lower())
    if found is None:
        raise PlanError(f"--out must end in .csv or .parquet, got {path.name!r}")
    return found


def check_budget(budget: int) -> int:
    """The budget, when it is a whole number of pages from 1 to ``MAX_BUDGET_PAGES``.

    Raises:
        PlanError: any other value.
    """
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise PlanError(f"--budget must be a whole number of pages, got {budget!r}")
    if not 1 <= budget <= MAX_BUDGET_PAGES:
        raise PlanError(f"--budget must be from 1 to {MAX_BUDGET_PAGES:,} pages, got {budget:,}")
    return budget


def check_output(path: Path | str) -> None:
    """Check that ``path`` can be written: a .csv or .parquet file name, in a writable folder.

    Its folder may not exist yet (it is made), but the nearest folder that does must be one
    a file can be created in (tried: ``/proc`` and read-only mounts refuse whatever the modes
    say). A name ending in ``/`` names a folder, whatever is there.

    Raises:
        PlanError: a bad suffix, ``path`` is (or names) a folder, or its folder cannot be
            written.
    """
    text = str(path)
    if text.endswith(("/", os.sep)):
        raise PlanError(f"--out {text} ends in /, so it names a folder: name the file to write")
    path = Path(path)
    output_format(path)
    if path.is_dir():
        raise PlanError(f"--out {path} is a folder: name the file to write")
    problem = unwritable_folder(path.absolute().parent)
    if problem is not None:
        raise PlanError(f"--out {path}: {problem}")
    if path.exists() and not os.access(path, os.W_OK):
        raise PlanError(f"--out {path}: the file exists and is read-only")


def dbt_vars(request: PlanRequest) -> str:
    """The ``--vars`` argument: the vars given (JSON, which dbt reads as YAML).

    The what-if writes the plan alone, so it plans once: without the constraints' costs
    (``plan_constraint_costs``) or the previous crawl's plan (``plan_changes``).
    """
    values: dict[str, int | float | bool] = {
        "plan_budget_pages": request.budget,
        "plan_constraint_costs": False,
        "plan_changes": False,
    }
    if request.sample_size is not None:
        values["plan_sample_size"] = request.sample_size
    if request.exploration_share is not None:
        values["plan_exploration_share"] = request.exploration_share
    return json.dumps(values)


def copy_warehouse(warehouse: Path, scratch: Path) -> Path:
    """Copy the warehouse (and its write-ahead log, if any) into ``scratch``; return the copy.

    The copy keeps the file's name: the warehouse's views name their relations by its
    database name, which DuckDB takes from the file name. A read-only connection is held
    while copying, so that no build can write the file meanwhile.

    Raises:
        PlanError: the warehouse cannot be opened read-only (a build holds it, say).
    """
    copy = scratch / warehouse.name
    try:
        with duckdb.connect(str(warehouse), read_only=True):
            shutil.copyfile(warehouse, copy)
            wal = warehouse.with_name(warehouse.name + ".wal")
            if wal.exists():
                shutil.copyfile(wal, copy.with_name(copy.name + ".wal"))
    except duckdb.Error as error:
        first_line = str(error).splitlines()[0]
        raise PlanError(f"cannot open {warehouse} read-only: {first_line}") from error
    return copy


def run_dbt(
    request: PlanRequest, warehouse: Path, home: Path, scratch: Path, dbt: str | None = None
) -> str:
    """``dbt run --select int_plan_hosts+`` with the request's vars, from the project root.

    From int_plan_hosts, not the plan alone: a host's quality group depends on the sample size.
    Everything dbt writes goes to ``scratch``: the warehouse given (a scratch copy), the
    plan's exported files (``scratch/exports``), dbt's target and log folders.

    Args:
        request: the budget and options.
        warehouse: the DuckDB file dbt builds into (``WAREHOUSE_PATH``): a scratch copy.
        home: ``HOSTAWARE_HOME``, whose lake the warehouse's staging views read.
        scratch: the folder for every file dbt writes.
        dbt: the dbt executable (default ``hostaware.dbt.executable()``).

    Returns:
        dbt's output.

    Raises:
        PlanError: dbt failed; the message is dbt's output.
    """
    (scratch / "exports").mkdir(parents=True, exist_ok=True)
    command = ["run", "--select", "int_plan_hosts+", "--vars", dbt_vars(request)]
    command += ["--target-path", str(scratch / "target"), "--log-path", str(scratch / "logs")]
    try:
        result = hostaware_dbt.run(
            command,
            home=home.resolve(),
            warehouse=warehouse.resolve(),
            exports=(scratch / "exports").resolve(),
            env=dict.fromkeys(("DBT_TARGET_PATH", "DBT_LOG_PATH")),  # the flags say where
            dbt=dbt,
        )
    except hostaware_dbt.DbtError as error:
        raise PlanError(str(error)) from error
    return (result.stdout + result.stderr).strip()


def write_plan(warehouse: Path, out: Path) -> int:
    """Write the plan from the warehouse to ``out`` (CSV or Parquet by suffix), hosts sorted.

    The file is written under a temporary name and moved into place; on any failure the
    temporary file is removed.

    Returns:
        The number of hosts (rows) written.

    Raises:
        PlanError: the plan cannot be read from the warehouse.
    """
    kind = output_format(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    try:
        with Marts(warehouse) as marts:
            rows = marts.export(
                FETCH_BUDGET, "select * from {mart} order by surt_host_name", partial, kind
            )
        partial.replace(out)
    except MartUnavailableError as error:
        raise PlanError(str(error)) from error
    except OSError as error:
        raise PlanError(f"cannot write {out}: {error.strerror or error}") from error
    finally:
        partial.unlink(missing_ok=True)
    return rows


def plan_summary(warehouse: Path, request: PlanRequest, host_count: int) -> str:
    """Pages by phase, the expected HQ pages, and the budget spent against the budget asked."""
    with Marts(warehouse) as marts:
        totals = phase_totals(marts)
        try:
            expected_hq = plan_expected_hq(marts)
        except MartUnavailableError:  # a warehouse without plan_constraint_costs: no interval
            expected_hq = fmt_count(round(totals["expected_hq"].sum(), 1))
    rows = [
        (
            row.phase,
            fmt_count(row.host_count),
            *(fmt_count(getattr(row, kind)) for kind in PAGE_KINDS),
            fmt_count(row.pages_to_fetch),
            fmt_number(row.expected_hq, 1),
        )
        for row in totals.itertuples()
    ]
    header = ("phase", "hosts", "sampled", "deepened", "explored", "pages", "expected HQ")
    spent = int(totals["pages_to_fetch"].sum())
    known = int(totals["known_url_count"].sum())
    lines = [
        f"crawl plan -> {request.out} ({host_count:,} hosts)",
        text_table(header, rows),
        f"expected HQ pages: {expected_hq}",
        f"budget: {spent:,} pages spent of {request.budget:,} asked",
    ]
    if spent < request.budget:
        lines[-1] += f" (the hosts know only {known:,} URLs)"
    return "\n".join(lines)


def sweep_scratch(temporary: Path | None = None) -> list[Path]:
    """Remove the scratch folders that plan commands killed outright (SIGKILL) left behind.

    A scratch folder is ``<temporary>/hostaware-plan-<pid>-<random>`` (``temporary`` defaults
    to ``tempfile``'s folder, ``$TMPDIR``); it is stale when no process has its pid. A command
    that ends any other way removes its own. Returns the folders removed.
    """
    removed = []
    for folder in Path(temporary or tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*-*"):
        pid = folder.name.removeprefix(SCRATCH_PREFIX).split("-", 1)[0]
        if folder.is_dir() and pid.isdigit() and not is_running(int(pid)):
            log.info("removing %s, the scratch folder of a killed plan (pid %s)", folder, pid)
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def make_plan(request: PlanRequest, warehouse: Path, home: Path, dbt: str | None = None) -> str:
    """Compute the plan for ``request`` on a scratch copy, write ``request.out``, summarise it.

    The shared warehouse, its exports and the project's ``target/`` are not changed.

    Raises:
        PlanError: a bad budget or output (checked before any work), no warehouse, dbt
            failed, or the plan cannot be read back or written.
    """
    check_budget(request.budget)
    check_output(request.out)
    if not warehouse.is_file():
        raise PlanError(f"no warehouse at {warehouse} (build it with `make build`)")
    sweep_scratch()
    prefix = f"{SCRATCH_PREFIX}{os.getpid()}-"
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch_name:
        scratch = Path(scratch_name)
        copy = copy_warehouse(warehouse, scratch)
        run_dbt(request, copy, home, scratch, dbt)
        try:
            host_count = write_plan(copy, request.out)
            return plan_summary(copy, request, host_count)
        except (MartUnavailableError, WarehouseError) as error:
            raise PlanError(str(error)) from error
