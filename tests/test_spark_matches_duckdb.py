"""Every mart built on Spark (dbt-spark, `make spark-test`) holds the DuckDB build's rows.

`make spark-test` builds the tiny crawl's lake (the one `make dbt-test-build` ingested) with
`dbt build --target spark` into a Spark warehouse folder; dbt-spark writes each table as
Parquet under ``<warehouse>/<schema>.db/<table>/``. Here each mart's rows are read from there
and from the DuckDB warehouse of the same lake, sorted, and compared: text, integers and
booleans exactly, numbers to 1e-9 (the engines sum in different orders), nulls and NaN alike.
Skipped unless HOSTAWARE_SPARK_TABLES names that schema folder and HOSTAWARE_TEST_WAREHOUSE
the DuckDB warehouse.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import duckdb
import pandas as pd
import pytest

pytestmark = pytest.mark.spark

PROJECT = Path(__file__).resolve().parents[1]
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


def _canonical(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns by name, rows sorted by every column (numbers rounded for the sort key)."""
    frame = frame[sorted(frame.columns)].copy()
    keys = pd.DataFrame(index=frame.index)
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_float_dtype(column):
            keys[name] = column.round(6).fillna(float("inf"))
        else:
            keys[name] = column.astype("string").fillna("\x00null")
    order = keys.sort_values(list(keys.columns), kind="stable").index
    return frame.loc[order].reset_index(drop=True)


def _equal(left: object, right: object) -> bool:
    if left is None or right is None or left is pd.NA or right is pd.NA:
        return pd.isna(left) and pd.isna(right)
    if isinstance(left, float | int) and isinstance(right, float | int):
        if math.isnan(left) or math.isnan(right):
            return math.isnan(left) and math.isnan(right)
        return abs(float(left) - float(right)) <= TOLERANCE * max(1.0, abs(float(left)))
    return left == right


@pytest.mark.parametrize("mart", MARTS)
def test_spark_mart_equals_duckdb_mart(engines, mart: str) -> None:
    """The mart's rows are the same on both engines."""
    connection, spark_tables = engines
    folder = spark_tables / mart
    assert folder.is_dir(), f"{mart} was not built on Spark ({folder} is missing)"
    duck = connection.sql(f"select * from {mart}").df()
    spark = duckdb.sql(f"select * from read_parquet('{folder}/*.parquet')").df()
    assert sorted(spark.columns) == sorted(duck.columns)
    assert len(spark) == len(duck), f"{mart}: {len(spark)} rows on Spark, {len(duck)} on DuckDB"
    duck, spark = _canonical(duck), _canonical(spark)
    for name in duck.columns:
        pairs = zip(duck[name].tolist(), spark[name].tolist(), strict=True)
        mismatches = [(row, d, s) for row, (d, s) in enumerate(pairs) if not _equal(d, s)]
        assert not mismatches, (
            f"{mart}.{name}: {len(mismatches)} rows differ, e.g. {mismatches[:3]}"
        )
