"""The worked SQL queries (README.md, docs/warehouse.md) run against the tiny warehouse."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from hostaware.paths import PROJECT as ROOT

PAGES = (ROOT / "README.md", ROOT / "docs" / "warehouse.md")
QUERIES = [
    query
    for page in PAGES
    for query in re.findall(r"```sql\n(.*?)```", page.read_text(), flags=re.DOTALL)
]

pytestmark = pytest.mark.warehouse


def test_the_readme_has_five_worked_queries() -> None:
    assert len(QUERIES) == 5


@pytest.mark.parametrize("query", QUERIES, ids=[f"query_{n + 1}" for n in range(len(QUERIES))])
def test_readme_query_runs(query: str, tiny_warehouse_path: Path) -> None:
    with duckdb.connect(str(tiny_warehouse_path), read_only=True) as connection:
        rows = connection.execute(query).fetchall()
    assert rows, query
