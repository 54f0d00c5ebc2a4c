"""The README's worked SQL queries run against the tiny crawl's warehouse and return rows."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
QUERIES = re.findall(r"```sql\n(.*?)```", README.read_text(), flags=re.DOTALL)

pytestmark = pytest.mark.warehouse


def test_the_readme_has_five_worked_queries() -> None:
    assert len(QUERIES) == 5


@pytest.mark.parametrize("query", QUERIES, ids=[f"query_{n + 1}" for n in range(len(QUERIES))])
def test_readme_query_runs(query: str, tiny_warehouse_path: Path) -> None:
    with duckdb.connect(str(tiny_warehouse_path), read_only=True) as connection:
        rows = connection.execute(query).fetchall()
    assert rows, query
