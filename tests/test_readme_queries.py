"""The README's worked SQL queries run against the tiny crawl's warehouse and return rows."""

from __future__ import annotations

import os
import re
from pathlib import Path

import duckdb
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
QUERIES = re.findall(r"```sql\n(.*?)```", README.read_text(), flags=re.DOTALL)

pytestmark = pytest.mark.warehouse


def test_the_readme_has_five_worked_queries() -> None:
    assert len(QUERIES) == 5


@pytest.mark.parametrize("query", QUERIES, ids=[f"query_{n + 1}" for n in range(len(QUERIES))])
def test_readme_query_runs(query: str) -> None:
    named = os.environ.get("HOSTAWARE_TEST_WAREHOUSE")
    if not named or not Path(named).exists():
        pytest.skip("HOSTAWARE_TEST_WAREHOUSE is not set or missing (make dbt-test-build)")
    with duckdb.connect(named, read_only=True) as connection:
        rows = connection.execute(query).fetchall()
    assert rows, query
