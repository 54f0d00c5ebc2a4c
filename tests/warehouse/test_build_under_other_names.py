"""A user's own crawl builds green: the tiny crawl under other crawl and release names.

The tiny crawl's lake (the one `make dbt-test-build` ingested, beside the warehouse
``HOSTAWARE_TEST_WAREHOUSE`` names) is copied with every ``crawl=`` and ``release=`` partition,
and the manifests' crawl and release, renamed to other published crawls and releases, in the
same order (as an ingest under those names would have written it), and built again with the
vars naming them, in a home below a ``batch=7`` folder (DuckDB reads a key=value folder anywhere
in a path as a hive partition: the published plan's views gained a ``batch`` column). The
build must pass every model, unit and data test, and every mart must hold the same rows as the
tiny crawl's own warehouse once the names are mapped back: nothing in the project may depend
on the default names.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hostaware import dbt
from hostaware.paths import PROJECT

pytestmark = pytest.mark.warehouse

# Order-preserving renames (by name, and releases by the graph_releases seed's last crawl).
CRAWLS = {
    "CC-MAIN-2021-04": "CC-MAIN-2019-04",
    "CC-MAIN-2021-49": "CC-MAIN-2019-47",
    "CC-MAIN-2022-33": "CC-MAIN-2020-29",
    "CC-MAIN-2023-06": "CC-MAIN-2020-45",
    "CC-MAIN-2023-50": "CC-MAIN-2021-10",
    "CC-MAIN-2024-10": "CC-MAIN-2021-17",
}
RELEASES = {
    "cc-main-2024-nov-feb-apr": "cc-main-2023-may-sep-nov",
    "cc-main-2024-25-nov-dec-jan": "cc-main-2024-feb-apr-may",
}
VARS = {
    "sample_crawl": CRAWLS["CC-MAIN-2024-10"],
    "fullcrawl_crawl": CRAWLS["CC-MAIN-2024-10"],
    "plan_crawl": CRAWLS["CC-MAIN-2024-10"],
    "graph_release": RELEASES["cc-main-2024-nov-feb-apr"],
}
BACK = {new: old for old, new in {**CRAWLS, **RELEASES}.items()}
MARTS = sorted(path.stem for path in (PROJECT / "models" / "marts").rglob("*.sql"))


def _renamed_part(relative: str) -> str:
    """A lake-relative part path with its crawl= or release= folder renamed."""
    table, partition, name = relative.split("/")
    key, _, value = partition.partition("=")
    names = CRAWLS if key == "crawl" else RELEASES
    return f"{table}/{key}={names[value]}/{name}"


def _renamed_manifest(source: Path, destination: Path) -> None:
    """A manifest file with its rows' crawl (comma-separated), release and parts renamed."""
    rows = pq.read_table(source).to_pylist()
    for row in rows:
        if row.get("crawl"):
            row["crawl"] = ",".join(CRAWLS[crawl] for crawl in row["crawl"].split(","))
        if row.get("release"):
            row["release"] = RELEASES[row["release"]]
        # staging counts a part by the path its manifest row lists
        row["output_files"] = [_renamed_part(part) for part in row["output_files"] or []]
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(source)), destination)


def _renamed_lake(source: Path, target: Path) -> None:
    """Copy a lake, renaming every crawl= and release= folder and the manifests' names."""
    for path in sorted(source.rglob("*")):
        if not path.is_file() or path.name.startswith("."):
            continue
        parts = []
        for part in path.relative_to(source).parts:
            key, equals, value = part.partition("=")
            if equals and key in ("crawl", "release"):
                names = CRAWLS if key == "crawl" else RELEASES
                assert value in names or value == "_", f"no new name for {part}"
                part = f"{key}={names.get(value, value)}"
            parts.append(part)
        destination = target.joinpath(*parts)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if parts[0] == "_manifest":
            _renamed_manifest(path, destination)
        else:
            shutil.copyfile(path, destination)


@pytest.fixture(scope="module")
def renamed_warehouse(tmp_path_factory: pytest.TempPathFactory, tiny_warehouse_path: Path) -> Path:
    original = tiny_warehouse_path
    # below a key=value folder (the module's docstring says why)
    home = tmp_path_factory.mktemp("other-names") / "batch=7" / "home"
    _renamed_lake(original.parent / "lake", home / "lake")
    args = ["build", "--target", "dev", "--target-path", str(home / "target")]
    args += ["--vars", json.dumps(VARS)]
    result = dbt.run(args, home=home, env={"DBT_LOG_PATH": str(home / "logs")}, check=False)
    assert result.returncode == 0, f"dbt build under other names failed:\n{result.stdout[-8000:]}"
    return home / "warehouse.duckdb"


def _mart(path: Path, mart: str) -> pd.DataFrame:
    with duckdb.connect(str(path), read_only=True) as connection:
        return connection.sql(f"select * from {mart}").df()


def _canonical(frame: pd.DataFrame) -> pd.DataFrame:
    """Names mapped back, rows in one order, numbers rounded for the order only."""
    frame = frame.copy()
    for column in frame.columns:
        if pd.api.types.is_string_dtype(frame[column]) or frame[column].dtype == object:
            frame[column] = frame[column].map(lambda value: BACK.get(value, value))
    keys = [
        frame[column].round(9) if pd.api.types.is_float_dtype(frame[column]) else frame[column]
        for column in frame.columns
    ]
    order = pd.DataFrame({str(i): key.astype(str) for i, key in enumerate(keys)})
    return frame.iloc[order.sort_values(list(order.columns)).index].reset_index(drop=True)


def test_the_build_names_the_crawls_and_release_of_the_vars(renamed_warehouse: Path):
    (settings,) = _mart(renamed_warehouse, "rpt_build_settings").to_dict("records")
    assert {name: settings[name] for name in VARS} == VARS


@pytest.mark.parametrize("mart", [mart for mart in MARTS if mart != "rpt_build_settings"])
def test_every_mart_holds_the_same_rows_under_other_names(
    renamed_warehouse: Path, tiny_warehouse_path: Path, mart: str
):
    original = tiny_warehouse_path
    expected = _canonical(_mart(original, mart))
    got = _canonical(_mart(renamed_warehouse, mart))
    assert list(got.columns) == list(expected.columns)
    assert len(got) == len(expected) > 0, mart
    for column in expected.columns:
        if pd.api.types.is_float_dtype(expected[column]):
            np.testing.assert_allclose(
                got[column].to_numpy(float),
                expected[column].to_numpy(float),
                rtol=0,
                atol=1e-9,
                equal_nan=True,
                err_msg=f"{mart}.{column}",
            )
        else:
            assert got[column].astype(str).tolist() == expected[column].astype(str).tolist(), (
                f"{mart}.{column}"
            )
