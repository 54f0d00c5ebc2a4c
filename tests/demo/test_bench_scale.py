"""bench/bench_scale.py's bounds: the disk a point is expected to need, and its key."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "bench" / "bench_scale.py"
_SPEC = importlib.util.spec_from_file_location("bench_scale", _PATH)
bench_scale = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench_scale)

GB = bench_scale.GB


def _point(kind: str, hosts: int, url_rows: int, peak_gb: float) -> dict:
    return {"kind": kind, "hosts": hosts, "url_rows": url_rows, "disk_peak_gb": peak_gb}


def test_without_a_measured_point_the_estimate_is_the_constants_and_the_spill():
    spill = 8 * GB
    assert (
        bench_scale.disk_need("host", 1000, 0, spill, [])
        == 1000 * bench_scale.BYTES_PER_HOST + spill
    )
    expected = 10 * bench_scale.BYTES_PER_HOST + 1000 * bench_scale.BYTES_PER_URL_ROW + spill
    assert bench_scale.disk_need("url", 10, 1000, spill, []) == expected


def test_one_point_scales_its_peak_per_host():
    measured = [_point("host", 1_000_000, 0, 2.0)]
    need = bench_scale.disk_need("host", 4_000_000, 0, 0, measured)
    assert need == pytest.approx(1.15 * 8.0 * GB, rel=1e-9)


@pytest.mark.parametrize("fixed_gb, per_million_gb", [(0.0, 0.5), (3.0, 0.08), (5.0, 1.0)])
def test_two_points_or_more_follow_the_line_through_the_two_largest(fixed_gb, per_million_gb):
    """A fixed part (the sample, the index of URL points) is not scaled with the size."""
    sizes = [10_000_000, 50_000_000, 100_000_000]
    measured = [_point("url", 7, size, fixed_gb + per_million_gb * size / 1e6) for size in sizes]
    measured.insert(0, _point("url", 7, 1_000_000, 100.0))  # smaller, off the line: not used
    need = bench_scale.disk_need("url", 7, 400_000_000, 0, measured)
    assert need == pytest.approx(1.15 * (fixed_gb + per_million_gb * 400) * GB, rel=1e-9)
    # the per-row rate of the largest point would have said more whenever there is a fixed part
    rate = measured[-1]["disk_peak_gb"] / sizes[-1]
    assert need <= 1.15 * rate * 400_000_000 * GB * (1 + 1e-12)


def test_url_points_of_another_index_and_host_points_are_left_out():
    measured = [
        _point("url", 99, 50_000_000, 500.0),  # another index's
        _point("host", 7, 0, 500.0),
        _point("url", 7, 50_000_000, 5.0),
    ]
    need = bench_scale.disk_need("url", 7, 100_000_000, 0, measured)
    assert need == pytest.approx(1.15 * 10.0 * GB, rel=1e-9)


def test_a_points_key_names_its_vars():
    assert bench_scale.point_key("host", 0.125) == "host:0.125"
    assert bench_scale.point_key("url", 5e7) == "url:50000000"
    key = bench_scale.point_key("host", 0.25, {"plan_constraint_costs": False})
    assert key == 'host:0.25 {"plan_constraint_costs": false}'
    assert bench_scale.point_key("url", 5e7, None, "spark") == "url:50000000 on spark"
    key = bench_scale.point_key("host", 0.25, {"plan_constraint_costs": False}, "spark")
    assert key == 'host:0.25 {"plan_constraint_costs": false} on spark'


def _measured(point: str, kind: str, size: int, seconds: float, engine: str | None) -> dict:
    row = {
        "point": point,
        "kind": kind,
        "hosts": size,
        "url_rows": 0,
        "generate": {"seconds": 1.0},
        "ingest": {"host_index": {"seconds": 1.0}},
        "build": {"seconds": seconds, "peak_gb": 1.0},
        "lake_gb": 1.0,
        "warehouse_gb": 1.0,
        "disk_peak_gb": 1.0,
    }
    return row if engine is None else {**row, "engine": engine}


def test_the_report_keeps_each_engine_on_its_own_curve():
    """A Spark point is never the doubling of a DuckDB point (results written before the
    engine was recorded are DuckDB's)."""
    results = {
        row["point"]: row
        for row in (
            _measured("host:0.01", "host", 1_000_000, 10.0, None),
            _measured("host:0.02", "host", 2_000_000, 20.0, "duckdb"),
            _measured("host:0.01 on spark", "host", 1_000_000, 100.0, "spark"),
            _measured("host:0.02 on spark", "host", 2_000_000, 300.0, "spark"),
        )
    }
    lines = bench_scale.report(results)
    spark = lines.index('with {"engine": "spark"}:')
    duck_lines, spark_lines = lines[:spark], lines[spark:]
    assert [line.split()[0] for line in duck_lines[1:]] == ["host:0.01", "host:0.02"]
    assert duck_lines[-1].endswith("2.00×")
    assert "host:0.01 on spark" in spark_lines[2] and spark_lines[-1].endswith("3.00×")


def test_spark_rows_are_counted_from_its_table_folders(tmp_path: Path):
    """dbt-spark writes a table as Parquet under <warehouse>/hostaware.db/<table>/, a
    per-crawl one under crawl=<id>/; its views (staging) have no folder and are not counted."""
    import duckdb

    folder = tmp_path / "hostaware.db"
    (folder / "fct_host_crawls" / "crawl=CC-MAIN-2024-10").mkdir(parents=True)
    (folder / "int_plan_hosts").mkdir(parents=True)
    with duckdb.connect() as connection:
        connection.execute(
            f"copy (select range as host_id from range(7)) to "
            f"'{folder}/fct_host_crawls/crawl=CC-MAIN-2024-10/part-0.parquet'"
        )
        for part in range(2):
            connection.execute(
                f"copy (select range as host_id from range(3)) to "
                f"'{folder}/int_plan_hosts/part-{part}.parquet'"
            )
    rows = bench_scale.counted_rows("spark", tmp_path, "host")
    assert rows == {"fct_host_crawls": 7, "int_plan_hosts": 6}
