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
