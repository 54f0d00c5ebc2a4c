"""`dbt docs generate` works offline on the tiny warehouse, and the docs say what each thing is.

Every model, seed and source table has a description that starts with its grain ("One row
per ..."); every column the warehouse holds is documented; the lineage ends at the exposures
people use (the report and the crawl plan), and every mart feeds one of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hostaware import dbt

pytestmark = pytest.mark.warehouse


@pytest.fixture(scope="module")
def docs(
    tmp_path_factory: pytest.TempPathFactory, tiny_warehouse_path: Path
) -> tuple[dict, dict, Path]:
    warehouse = tiny_warehouse_path
    target = tmp_path_factory.mktemp("docs-target")
    result = dbt.run(
        ["docs", "generate", "--target", "dev"],
        home=warehouse.parent,
        warehouse=warehouse,
        env={"DBT_TARGET_PATH": str(target), "DBT_LOG_PATH": str(target / "logs")},
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    manifest = json.loads((target / "manifest.json").read_text())
    catalog = json.loads((target / "catalog.json").read_text())
    return manifest, catalog, target


def _documented(manifest: dict) -> list[dict]:
    nodes = [
        node
        for node in manifest["nodes"].values()
        if node["resource_type"] in ("model", "seed") and node["package_name"] == "hostaware"
    ]
    return nodes + list(manifest["sources"].values())


def test_docs_site_is_written(docs: tuple[dict, dict, Path]) -> None:
    _, catalog, target = docs
    assert (target / "index.html").stat().st_size > 10_000
    assert not catalog.get("errors"), catalog.get("errors")


def test_every_model_seed_and_source_states_its_grain_first(
    docs: tuple[dict, dict, Path],
) -> None:
    manifest, _, _ = docs
    without_grain = [
        node["unique_id"]
        for node in _documented(manifest)
        if not node["description"].strip().lower().startswith("one row")
    ]
    assert len(_documented(manifest)) > 40
    assert without_grain == []


def test_every_column_in_the_warehouse_is_documented(docs: tuple[dict, dict, Path]) -> None:
    manifest, catalog, _ = docs
    undocumented = []
    described = {
        node["unique_id"]: node
        for node in list(manifest["nodes"].values()) + list(manifest["sources"].values())
    }
    tables = {**catalog["nodes"], **catalog["sources"]}
    for unique_id, table in tables.items():
        node = described.get(unique_id)
        if node is None or node["resource_type"] not in ("model", "seed", "source"):
            continue
        for column in table["columns"]:
            documented = node["columns"].get(column) or node["columns"].get(column.lower())
            if not documented or not documented["description"].strip():
                undocumented.append(f"{node['name']}.{column}")
    assert len(tables) > 40
    assert undocumented == []


def test_lineage_ends_at_the_report_and_the_plan(docs: tuple[dict, dict, Path]) -> None:
    manifest, _, _ = docs
    exposures = {exposure["name"]: exposure for exposure in manifest["exposures"].values()}
    assert set(exposures) == {"hostaware_report", "crawl_fetch_plan"}
    used = {uid for exposure in exposures.values() for uid in exposure["depends_on"]["nodes"]}
    marts = {
        node["unique_id"]
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model"
        and node["original_file_path"].startswith("models/marts/")
        and node["name"] != "fct_host_crawls"  # the fact table behind the RQ4 reports
    }
    assert marts - used == set()
