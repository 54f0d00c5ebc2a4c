"""``python -m report plan``: rebuild the crawl plan for a budget with dbt, then export it.

The plan is the ``plan_host_fetch_budget`` mart and what depends on it. dbt rebuilds them
with the budget (and optionally the sample size and exploration share) as vars; the plan is
then read back from the warehouse and written as CSV or Parquet.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from report.formatting import fmt_count, fmt_number, text_table
from report.marts import Marts, MartUnavailableError, WarehouseError
from report.sections.plan import FETCH_BUDGET, PAGE_KINDS, phase_totals

PROJECT = Path(__file__).resolve().parents[1]
FORMATS = {".csv": "csv", ".parquet": "parquet"}


class PlanError(Exception):
    """The plan could not be built or written; the message says why."""


@dataclass(frozen=True)
class PlanRequest:
    """What ``report plan`` was asked for.

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


def dbt_vars(request: PlanRequest) -> str:
    """The ``--vars`` argument: only the vars given (JSON, which dbt reads as YAML)."""
    values: dict[str, int | float] = {"plan_budget_pages": request.budget}
    if request.sample_size is not None:
        values["plan_sample_size"] = request.sample_size
    if request.exploration_share is not None:
        values["plan_exploration_share"] = request.exploration_share
    return json.dumps(values)


def dbt_executable() -> str:
    """The dbt beside this Python (the project's venv), else the project's ``.venv``, else PATH."""
    for candidate in (Path(sys.executable).parent / "dbt", PROJECT / ".venv" / "bin" / "dbt"):
        if candidate.is_file():
            return str(candidate)
    return "dbt"


def run_dbt(request: PlanRequest, warehouse: Path, home: Path, dbt: str | None = None) -> str:
    """``dbt run --select int_plan_hosts+`` with the request's vars, from the project root.

    From int_plan_hosts, not the plan alone: a host's quality group depends on the sample size.

    Args:
        request: the budget and options.
        warehouse: the DuckDB file (``WAREHOUSE_PATH``).
        home: ``HOSTAWARE_HOME``; the plan's external files go to ``home/exports``.
        dbt: the dbt executable (default ``dbt_executable()``).

    Returns:
        dbt's output.

    Raises:
        PlanError: dbt failed; the message is dbt's output.
    """
    (home / "exports").mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "HOSTAWARE_HOME": str(home.resolve()),
        "WAREHOUSE_PATH": str(warehouse.resolve()),
        "DBT_PROFILES_DIR": str(PROJECT),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
    }
    command = [dbt or dbt_executable(), "run", "--select", "int_plan_hosts+"]
    command += ["--vars", dbt_vars(request)]
    try:
        result = subprocess.run(
            command, cwd=PROJECT, env=env, capture_output=True, text=True, check=False
        )
    except OSError as error:
        raise PlanError(f"cannot run dbt ({command[0]}): {error}") from error
    output = (result.stdout + result.stderr).strip()
    if result.returncode != 0:
        raise PlanError(f"dbt run failed (exit {result.returncode}):\n{output}")
    return output


def write_plan(warehouse: Path, out: Path) -> int:
    """Write the plan from the warehouse to ``out`` (CSV or Parquet by suffix), hosts sorted.

    The file is written under a temporary name and moved into place.

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
    except MartUnavailableError as error:
        partial.unlink(missing_ok=True)
        raise PlanError(str(error)) from error
    partial.replace(out)
    return rows


def plan_summary(warehouse: Path, request: PlanRequest, host_count: int) -> str:
    """Pages by phase, the expected HQ pages, and the budget spent against the budget asked."""
    with Marts(warehouse) as marts:
        totals = phase_totals(marts)
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
        f"expected HQ pages: {fmt_number(totals['expected_hq'].sum(), 1)}",
        f"budget: {spent:,} pages spent of {request.budget:,} asked",
    ]
    if spent < request.budget:
        lines[-1] += f" (the hosts know only {known:,} URLs)"
    return "\n".join(lines)


def make_plan(request: PlanRequest, warehouse: Path, home: Path, dbt: str | None = None) -> str:
    """Rebuild the plan for ``request``, write ``request.out``, and return the summary.

    Raises:
        PlanError: a bad output suffix (checked before dbt runs), dbt failed, or the plan
            cannot be read back.
    """
    output_format(request.out)
    if not warehouse.is_file():
        raise PlanError(f"no warehouse at {warehouse} (build it with `make build`)")
    run_dbt(request, warehouse, home, dbt)
    try:
        host_count = write_plan(warehouse, request.out)
        return plan_summary(warehouse, request, host_count)
    except (MartUnavailableError, WarehouseError) as error:
        raise PlanError(str(error)) from error
