"""Every mart built on Spark (dbt-spark, `make spark-test`) holds the DuckDB build's rows.

`make spark-test` builds the tiny crawl's lake (the one `make dbt-test-build` ingested) with
`dbt build --target spark` into a Spark warehouse folder; dbt-spark writes each table as
Parquet under ``<warehouse>/<schema>.db/<table>/``. Here each mart's rows are read from there
and from the DuckDB warehouse of the same lake, sorted, and compared: text, integers and
booleans exactly, numbers to 1e-9 of max(1, |value|) (the engines sum in different orders),
nulls and NaN alike. DuckDB does the sorting and comparing, so the paper lake's marts compare
too (bench/bench_spark.py --compare).
Skipped unless HOSTAWARE_SPARK_TABLES names that schema folder and HOSTAWARE_TEST_WAREHOUSE
the DuckDB warehouse.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest

from hostaware.paths import PROJECT

MARTS = sorted(path.stem for path in (PROJECT / "models" / "marts").rglob("*.sql"))
TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def engines() -> tuple[duckdb.DuckDBPyConnection, Path]:
    """The DuckDB warehouse (read-only) and the Spark schema's folder of tables."""
    warehouse = os.environ.get("HOSTAWARE_TEST_WAREHOUSE")
    spark_tables = os.environ.get("HOSTAWARE_SPARK_TABLES")
    if not warehouse or not spark_tables:
        pytest.skip("HOSTAWARE_TEST_WAREHOUSE and HOSTAWARE_SPARK_TABLES are not set")
    connection = duckdb.connect(warehouse, read_only=True)
    yield connection, Path(spark_tables)
    connection.close()


NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                 "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL")  # fmt: skip


def _column_types(connection: duckdb.DuckDBPyConnection, relation: str) -> dict[str, str]:
    rows = connection.execute(f"describe select * from {relation}").fetchall()
    return {name: data_type for name, data_type, *_ in rows}


def _is_number(data_type: str) -> bool:
    return data_type.startswith(NUMERIC_TYPES)


def _numbered(relation: str, columns: list[str], numeric: set[str]) -> str:
    """The relation's rows numbered in one canonical order: every column, sorted by name,
    numbers rounded to 6 decimals for the order (the engines sum in different orders)."""
    keys = ", ".join(
        f'round("{name}"::double, 6) nulls last' if name in numeric else f'"{name}" nulls last'
        for name in columns
    )
    return f"select *, row_number() over (order by {keys}) as row_in_order from {relation}"


def _differs(name: str, numeric: bool) -> str:
    """SQL true when the two builds' values of a column differ (nulls and NaN alike)."""
    duck, spark = f'duck."{name}"', f'spark."{name}"'
    if not numeric:
        return f"{duck}::varchar is distinct from {spark}::varchar"
    duck, spark = f"{duck}::double", f"{spark}::double"
    same = (
        f"({duck} is null and {spark} is null) or {duck} = {spark}"
        f" or (isnan({duck}) and isnan({spark}))"
        f" or abs({duck} - {spark}) <= {TOLERANCE} * greatest(1.0, abs({duck}))"
    )
    return f"not coalesce({same}, false)"


def differing_columns(
    connection: duckdb.DuckDBPyConnection, duck_relation: str, spark_relation: str
) -> dict[str, tuple[int, list[tuple]]]:
    """Each column whose values differ between two relations of the same rows, with the
    number of rows and up to three (row, DuckDB value, Spark value) examples. Both are
    sorted alike and joined row by row in SQL, so that the paper lake's 30M-row mart
    compares too."""
    duck_types = _column_types(connection, duck_relation)
    spark_types = _column_types(connection, spark_relation)
    assert sorted(spark_types) == sorted(duck_types), "the two have different columns"
    columns = sorted(duck_types)
    numeric = {
        name for name in columns if _is_number(duck_types[name]) or _is_number(spark_types[name])
    }
    differs = {name: _differs(name, name in numeric) for name in columns}
    counts = ", ".join(f"count(*) filter (where {test})" for test in differs.values())
    joined = f"""
        from ({_numbered(duck_relation, columns, numeric)}) as duck
        inner join ({_numbered(spark_relation, columns, numeric)}) as spark
            using (row_in_order)
    """
    mismatch_counts = connection.execute(f"select {counts} {joined}").fetchone()
    return {
        name: (
            mismatches,
            connection.execute(
                f'select row_in_order, duck."{name}", spark."{name}" {joined}'
                f" where {differs[name]} order by row_in_order limit 3"
            ).fetchall(),
        )
        for name, mismatches in zip(columns, mismatch_counts, strict=True)
        if mismatches
    }


@pytest.mark.spark
@pytest.mark.parametrize("mart", MARTS)
def test_spark_mart_equals_duckdb_mart(engines, mart: str) -> None:
    """The mart's rows are the same on both engines."""
    connection, spark_tables = engines
    folder = spark_tables / mart
    assert folder.is_dir(), f"{mart} was not built on Spark ({folder} is missing)"
    # a per-crawl model is partitioned by crawl on Spark: its files under crawl=<id>/
    spark_relation = f"read_parquet('{folder}/**/*.parquet', hive_partitioning = true)"
    duck_rows = connection.execute(f"select count(*) from {mart}").fetchone()[0]
    spark_rows = connection.execute(f"select count(*) from {spark_relation}").fetchone()[0]
    assert spark_rows == duck_rows, f"{mart}: {spark_rows} rows on Spark, {duck_rows} on DuckDB"
    differing = differing_columns(connection, mart, spark_relation)
    assert not differing, f"{mart}: columns differ (rows, examples): {differing}"


def test_comparison_finds_what_differs_and_forgives_the_rest(tmp_path: Path) -> None:
    """The comparison itself: rows in another order, a sum rounded differently, nulls, NaN,
    an integer read back as a double pass; a text, a boolean, a number off by 1e-6 and a
    null for a value are caught, each in its own column (the rows keep their order here: a
    difference in a column sorted before the others would misalign every row after it)."""
    connection = duckdb.connect()
    connection.execute("""
        create table duck as select * from (values
            (1, 'a', true, 0.1 + 0.2, null::double, 'nan'::double, 10),
            (2, 'b', false, 1e6 / 3, 2.0, 1.5, 20),
            (3, 'c', true, 7.0, 3.0, 2.5, 30)
        ) as t (id, label, verified, total, maybe, odd, whole)
    """)
    # the same rows in another order, the sums a rounding apart, the integers as doubles
    connection.execute(f"""
        copy (select * from (values
            (3, 'c', true, 7.0, 3.0, 2.5, 30.0),
            (1, 'a', true, 0.3, null::double, 'nan'::double, 10.0),
            (2, 'b', false, 333333.33333333337, 2.0, 1.5, 20.0)
        ) as t (id, label, verified, total, maybe, odd, whole))
        to '{tmp_path / "same.parquet"}'
    """)
    assert differing_columns(connection, "duck", f"'{tmp_path / 'same.parquet'}'") == {}
    connection.execute(f"""
        copy (select * from (values
            (1, 'a', false, 0.3, null::double, 'nan'::double, 10),
            (2, 'B', false, 1e6 / 3, 2.0, 1.5, 20),
            (3, 'c', true, 7.000001, null::double, 2.5, 30)
        ) as t (id, label, verified, total, maybe, odd, whole))
        to '{tmp_path / "other.parquet"}'
    """)
    differing = differing_columns(connection, "duck", f"'{tmp_path / 'other.parquet'}'")
    assert {name: count for name, (count, _) in differing.items()} == {
        "verified": 1,
        "label": 1,
        "maybe": 1,
        "total": 1,
    }
    assert differing["total"][1] == [(3, 7.0, 7.000001)]
