"""The generic test ``unique_combination_of_columns`` finds every repeated key, nulls included.

It groups on a 64-bit hash of the key first and on the key itself only where a hash repeats
(``macros/dialect.sql`` ``key_hash``). Rendered by ``dbt show --inline`` over literal rows:
keys repeated two and three times, keys with nulls in either column (a null equals a null in
a group-by, as in the plain group-by the test replaced), and thousands of distinct keys that
must not be reported.
"""

from __future__ import annotations

import json
from pathlib import Path

from hostaware import dbt


def _duplicates(tmp_path: Path, rows: str, columns: list[str]) -> list[dict]:
    model = f"({rows}) as t"
    call = (
        f"{{{{ test_unique_combination_of_columns(model={model!r}, "
        f"combination_of_columns={columns!r}) }}}}"
    )
    args = ["show", "--inline", call, "--output", "json", "--limit", "-1", "--log-format", "json"]
    args += ["--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")]
    result = dbt.run(args, home=tmp_path, warehouse=tmp_path / "warehouse.duckdb")
    for line in result.stdout.splitlines():
        data = json.loads(line).get("data", {})
        if "preview" in data:
            return json.loads(data["preview"])
    raise AssertionError(f"no preview in dbt's output:\n{result.stdout[-3000:]}")


def test_repeated_keys_with_nulls_are_found_and_distinct_keys_are_not(tmp_path):
    planted = """
        select * from (values
            (1, null), (1, null), (2, 3), (2, 4), (null, null), (null, null), (null, 7),
            (5, 5), (5, 5), (5, 5), (6, 5)
        ) as planted (a, b)
        union all
        select range // 100 + 1000 as a, range % 100 as b from range(20000)
    """
    found = _duplicates(tmp_path, planted, ["a", "b"])
    reported = {(row["a"], row["b"]): row["duplicate_count"] for row in found}
    assert reported == {(1, None): 2, (None, None): 2, (5, 5): 3}


def test_a_unique_key_reports_nothing(tmp_path):
    rows = "select range as a, 'x' || range as b from range(50000)"
    assert _duplicates(tmp_path, rows, ["a", "b"]) == []
    assert _duplicates(tmp_path, rows, ["b"]) == []
