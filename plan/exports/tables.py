"""The plan as one table, CSV (with a header) or Parquet.

``plan_host_fetch_budget``'s rows, hosts sorted, every column (docs/warehouse.md#the-crawl-plan
names them).
"""

from __future__ import annotations

from pathlib import Path

from plan.exports.common import PLAN, ExportResult, Plan

__all__ = ["write_csv", "write_parquet"]


def _write(plan: Plan, path: Path, file_format: str) -> ExportResult:
    result = ExportResult(file_format)
    result.host_count = plan.copy_table(
        f'select * from "{PLAN}" order by surt_host_name', path, file_format
    )
    result.page_count = int(plan.value(f'select coalesce(sum(pages_to_fetch), 0) from "{PLAN}"'))
    result.files = [path]
    return result


def write_csv(plan: Plan, path: Path) -> ExportResult:
    """Write the plan to ``path`` as CSV."""
    return _write(plan, path, "csv")


def write_parquet(plan: Plan, path: Path) -> ExportResult:
    """Write the plan to ``path`` as Parquet."""
    return _write(plan, path, "parquet")
